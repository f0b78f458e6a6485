// The Backend interface every implementation (cpu, vulkan, cuda) provides, and the registry
// that finds them at run time. The CLI, the bench harness, the tests and the viewer speak only
// to this interface; nothing outside backends/ includes a GPU API header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/block_sparse.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/matrix.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

class Tunable;  // core/measure/tune.hpp

struct DeviceInfo {
  std::string name;    // "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)", the host CPU
  std::string driver;  // "580.159.04", "Mesa 22.3.6"
  std::string api;     // "CUDA 13.0", "Vulkan 1.3.239", "OpenBLAS 0.3.21"
  bool isGpu = false;  // a real GPU, not a CPU implementation such as lavapipe or OpenBLAS
  int subgroupSize = 0;                 // warp / subgroup width, 0 where it means nothing
  std::size_t sharedMemoryBytes = 0;    // per block / workgroup
  std::size_t memoryBytes = 0;          // device memory (host memory for CPU devices)

  std::string describe() const;  // one line: name, api, driver
};

// Options a user can give any backend; a backend ignores what does not apply to it.
struct BackendOptions {
  int deviceIndex = -1;     // -1: the backend's own choice (a discrete GPU first)
  bool validation = false;  // API validation (Vulkan layers); messages come back through diagnostics()
};

// One problem C = A·B resident on a device. Created by Backend::upload().
class DeviceProblem {
 public:
  virtual ~DeviceProblem() = default;

  // Per-kernel preprocessing: the A/B patterns a skipping kernel needs at its granularities,
  // built on the device (cusparse-csr: the CSR conversion). Returns device milliseconds,
  // 0 when the kernel needs none. run() calls it first if it has not been called.
  virtual double prepare(const KernelInfo& kernel) = 0;

  // What prepare() does again per call when A's part is kept from an earlier prepare(): the
  // per-call work of a static A, a weight whose pattern is built once (B's pattern where the
  // kernel reads one; nothing where it reads A's alone). Device milliseconds; nothing where the
  // backend does not time the operands' parts apart (the default).
  virtual std::optional<double> prepareKeepingA(const KernelInfo& kernel) {
    (void)kernel;
    return std::nullopt;
  }

  // Device milliseconds spent rounding A and B into copies in the problem's dtype for the kernels
  // that read them so (the tensor-core kernels and cuBLAS of a 16-bit problem): made once per
  // problem, by the first prepare() that needs them, and never part of prepare()'s time, since a
  // caller whose operands are already in the dtype would not make them. 0 until then and where
  // nothing reads such copies.
  virtual double roundingMs() const { return 0.0; }

  // A packed (core/model/block_sparse.hpp) for the bsr kernels of its block, kept as it is given: its
  // topology, stored blocks of zeros and all, as a trained weight's. Without one, a bsr kernel's first
  // prepare() packs A at its block, keeping the blocks that hold a non-zero. Packing is the format's
  // one-time cost, never a call's: a bsr kernel prepares nothing per call (prepareKeepingA 0).
  // InputError where `packed` is not this problem's A (its shape or dtype); UnavailableError from a
  // backend with no bsr kernel (the default).
  virtual void attachPackedA(const BlockSparseMatrix& packed);

  // Fills C with NaN, so that an output element a kernel fails to write fails verification.
  virtual void poisonC() = 0;

  // One launch of the kernel into C; returns its device time in milliseconds.
  virtual double run(const KernelInfo& kernel) = 0;

  // Builds ahead what the first run of each of `kernels` would build one at a time, where a
  // backend builds it faster together (Vulkan: the pipelines, on several threads). A kernel that
  // cannot run is left for run() to say why. The default builds nothing.
  virtual void buildAhead(std::span<const KernelInfo* const> kernels) { (void)kernels; }

  virtual Matrix downloadC() = 0;

  // The tiles and switches this problem runs `kernel` with where they replace the catalogue's
  // (TILESKIP_VULKAN_TILES's notation: "pipelined=128x128x16/64x64/8x4/128,prefetch=0"), "" for
  // the catalogue's own. Reports carry it per row.
  virtual std::string variantOf(const KernelInfo& kernel) const {
    (void)kernel;
    return {};
  }

  // A pattern built on the device by prepare() (tests compare it byte for byte with the CPU's).
  // Throws InputError if no kernel prepared so far uses that operand at that granularity.
  virtual Pattern downloadPattern(Operand operand, int granularity) = 0;
};

// Operands already on the backend's device, in memory the caller owns (the Python module's
// CUDA tensors): A and B fp32 (`a`, `b`) or, with `dtype` fp16 or bf16, 16-bit words of that type
// (`aHalf`, `bHalf`, read by the kernels that take it as they are: nothing is rounded), and C
// fp32; row-major, contiguous. `stream` is the caller's stream (a cudaStream_t; null: the legacy
// default stream): the work is ordered after what is queued there, and what is queued there after
// it waits for C.
struct DeviceOperands {
  const float* a = nullptr;
  const float* b = nullptr;
  const std::uint16_t* aHalf = nullptr;
  const std::uint16_t* bHalf = nullptr;
  DType dtype = DType::Fp32;
  float* c = nullptr;
  int m = 0, n = 0, k = 0;
  int deviceIndex = 0;
  void* stream = nullptr;
  // false: queue the work on the stream and return at once (the time comes back NaN, and a
  // kernel's fault surfaces on the caller's stream), as a framework's operator does.
  bool timed = true;
};

// An MLP layer, Y = act(X·W1)·W2, resident on a device whose first GEMM writes what the second
// reads (Backend::uploadLayer): the first GEMM's epilogue applies the activation and leaves H as
// the second's kernel takes A (for a compaction kernel: transposed, in the 16-bit type, with the
// live columns of each row tile), so nothing passes over H between the two.
class DeviceLayer {
 public:
  virtual ~DeviceLayer() = default;
  struct Times {
    double firstMs = 0.0;   // the first GEMM with its epilogue (and clearing what it marks)
    double secondMs = 0.0;  // the second GEMM
  };
  // Both GEMMs, in order; device milliseconds of each.
  virtual Times run() = 0;
  virtual Matrix downloadH() = 0;  // H as the second GEMM read it (its 16-bit values)
  // H's A-pattern as the first GEMM's epilogue wrote it, at the second kernel's row tiles (tests
  // compare it byte for byte with the host's pattern of downloadH()).
  virtual Pattern downloadHPattern() = 0;
  virtual Matrix downloadY() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  virtual const DeviceInfo& device() const = 0;
  virtual bool implements(std::string_view kernelId) const = 0;
  // Whether this backend runs `kernel` on inputs of `dtype`: the precisions of its row
  // (KernelInfo::takes), fewer where this backend's twin takes fewer.
  virtual bool takes(const KernelInfo& kernel, DType dtype) const { return kernel.takes(dtype); }

  // Why this device refuses to run `kernel` on an M x N x K problem (a loop limit, a tile larger
  // than its shared memory, a missing instruction), as run() would say it; nothing where it runs.
  // Known before anything is uploaded, so that auto and inspect never choose a refused kernel.
  // The default refuses nothing.
  virtual std::optional<std::string> refusal(const KernelInfo& kernel, int m, int n, int k) const {
    (void)kernel, (void)m, (void)n, (void)k;
    return std::nullopt;
  }

  // A note for the user before this backend first builds kernels in this process, where that
  // build is slow enough to explain a pause (shaders compiled for a CPU device); nothing where it
  // is not, nor after the first call.
  virtual std::optional<std::string> takeFirstBuildNote() { return std::nullopt; }

  // Copies A and B to the device and allocates C. `dtype` is their precision: their values are
  // exactly representable in it (ProblemSpec::dtype rounded them), and only kernels that take it
  // (KernelInfo::takes) run on the problem; another is refused with InputError by run(). Throws
  // InputError on shapes that do not multiply, UnavailableError when the device lacks memory
  // (naming bytes needed and free). A backend class that overrides it says `using Backend::upload;`
  // so the fp32 form stays callable on it.
  virtual std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) = 0;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b) { return upload(a, b, DType::Fp32); }

  // Whether this backend has a first GEMM `first` whose epilogue writes what `second` reads in
  // `dtype`, so that an MLP layer of the two runs fused (uploadLayer). None by default: the layer
  // then runs as two multiplies.
  virtual bool fusesLayer(const KernelInfo& first, const KernelInfo& second, DType dtype) const {
    (void)first, (void)second, (void)dtype;
    return false;
  }
  // The layer fused, where fusesLayer() says so (else InputError). X, W1 and W2 hold values `dtype`
  // represents (rounded already) and chain (X's columns are W1's rows, W1's columns W2's rows);
  // `relu`: the activation, else none.
  virtual std::unique_ptr<DeviceLayer> uploadLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype,
                                                   bool relu, const KernelInfo& first, const KernelInfo& second);

  // The device memory's bandwidth as a copy sees it: bytes read plus bytes written per second of a
  // large device-to-device copy (the median of a few, after one to warm up): what a kernel bound by
  // the bytes it reads and writes can reach. Nothing where the backend cannot time one (the default).
  virtual std::optional<double> copyBandwidth() { return std::nullopt; }
  // Whether copyBandwidth() is a data sheet's peak, not a copy timed here (a modelled GPU's).
  virtual bool bandwidthIsPeak() const { return false; }

  // Messages the driver or validation layers reported since the last call (and clears them).
  virtual std::vector<std::string> takeDiagnostics() { return {}; }

  // Run-time variants of its kernels for `tileskip tune` (core/measure/tune.hpp), or null where
  // its kernels' shapes are fixed when it is built (the default: cpu, and cuda, whose shapes are
  // template arguments compiled in).
  virtual Tunable* tuning() { return nullptr; }

  // C = A·B with `kernel` on operands that already live on this backend's device, nothing copied
  // (the patterns a skipping kernel needs are built there first). Returns the kernel's device
  // milliseconds. InputError when the operands are on another device or the shapes do not fit
  // 32-bit indexing; UnavailableError from a backend that cannot take device memory from
  // outside, which is every backend but CUDA (the default).
  virtual double multiplyInPlace(const KernelInfo& kernel, const DeviceOperands& operands);

  // Catalogue entries this backend implements, in catalogue order.
  std::vector<const KernelInfo*> kernels() const;
};

// InputError unless `kernel` takes inputs of `dtype` (KernelInfo::takes), naming the kernels
// that do: every DeviceProblem::run() checks it first.
void requireInputs(const KernelInfo& kernel, DType dtype);

// InputError unless `packed` can stand for an M x K A of `dtype`: what attachPackedA() checks.
void requirePackedA(const BlockSparseMatrix& packed, int m, int k, DType dtype);

// Attaches `packed` to `problem` where `backend` runs a bsr kernel of its block (the others have no
// use for it); does nothing otherwise.
void attachWherePacked(const Backend& backend, DeviceProblem& problem, const BlockSparseMatrix& packed);

// Finding backends at run time: backends/backend_registry.hpp.

}  // namespace tileskip
