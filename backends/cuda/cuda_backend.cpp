// The cuda backend inside libtileskip_cuda.so: device selection and description, problems
// resident on the device (upload, patterns, timed runs of the catalogue kernels and the vendor
// baselines), and the module's one exported symbol.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_module.hpp"
#include "core/model/dtype.hpp"
#include "core/model/error.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reference.hpp"
#include "cuda_check.hpp"
#include "device_resources.hpp"
#include "launch.hpp"
#include "vendor_baselines.hpp"

namespace tileskip::cuda {

namespace {

// The kernel driver's version ("580.95.05"), which the CUDA runtime does not report; empty
// where neither file is visible (some containers).
std::string nvidiaDriverVersion() {
  std::ifstream module("/sys/module/nvidia/version");
  std::string version;
  if (module >> version) return version;
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(proc, line)) {
    std::istringstream words(line.substr(line.find("Kernel Module") == std::string::npos ? line.size()
                                                                                         : line.find("Kernel Module") + 13));
    if (words >> version) return version;
  }
  return "";
}

std::string versionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

class CudaStream {
 public:
  CudaStream() { check(cudaStreamCreate(&stream_), "creating a CUDA stream"); }
  ~CudaStream() {
    if (!processExiting()) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event that only orders streams (no timing), kept for the backend's life.
class OrderingEvent {
 public:
  OrderingEvent() { check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "creating an event"); }
  ~OrderingEvent() {
    if (!processExiting()) cudaEventDestroy(event_);
  }
  OrderingEvent(const OrderingEvent&) = delete;
  OrderingEvent& operator=(const OrderingEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

using PatternKey = std::pair<Operand, int>;  // a pattern's operand and granularity

// What multiplyInPlace's problems borrow instead of allocating on every call (a cudaFree waits
// for the whole device): the block tile queue, which the persistent kernels leave zeroed, pattern
// buffers kept at the largest size asked for, and the event that orders the caller's stream and
// the backend's. One call at a time uses them, on the backend's stream.
struct InPlaceScratch {
  DeviceBuffer tileQueue;
  std::map<PatternKey, DeviceBuffer> patterns;
  OrderingEvent order;
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const BackendOptions& options);

  std::string_view name() const override { return "cuda"; }
  const DeviceInfo& device() const override { return device_; }
  bool implements(std::string_view kernelId) const override {
    const KernelInfo* info = findKernelInfo(kernelId);
    if (info != nullptr && (info->runs(VendorRoutine::CublasGemm) || info->runs(VendorRoutine::CusparseCsrSpmm))) return true;
    // A Hopper kernel's instructions exist on compute capability 9.0 only.
    return hasGemmKernel(kernelId) && info != nullptr && (!info->needsHopper() || hopper_);
  }
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override;
  double multiplyInPlace(const KernelInfo& kernel, const DeviceOperands& operands) override;
  bool fusesLayer(const KernelInfo& first, const KernelInfo& second, DType dtype) const override;
  std::unique_ptr<DeviceLayer> uploadLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype, bool relu,
                                           const KernelInfo& first, const KernelInfo& second) override;
  std::optional<double> copyBandwidth() override;

  // Every entry point of a backend or problem selects its device first: a process may hold
  // backends on several devices.
  void makeCurrent() const { check(cudaSetDevice(deviceIndex_), "selecting the CUDA device"); }
  cudaStream_t stream() const { return stream_->get(); }
  cublasHandle_t cublas() {
    if (!cublas_) cublas_ = std::make_unique<CublasHandle>(stream());
    return cublas_->get();
  }
  cusparseHandle_t cusparse() {
    if (!cusparse_) cusparse_ = std::make_unique<CusparseHandle>(stream());
    return cusparse_->get();
  }
  InPlaceScratch& inPlaceScratch() {
    if (!inPlace_) {
      inPlace_ = std::make_unique<InPlaceScratch>();
      inPlace_->tileQueue = DeviceBuffer(2 * sizeof(unsigned), "the block tile queue");
      check(cudaMemsetAsync(inPlace_->tileQueue.get(), 0, 2 * sizeof(unsigned), stream()), "clearing the block tile queue");
    }
    return *inPlace_;
  }

 private:
  int deviceIndex_ = 0;
  bool hopper_ = false;  // compute capability 9.0: the warpgroup kernels run here
  DeviceInfo device_;
  std::unique_ptr<CudaStream> stream_;
  std::unique_ptr<CublasHandle> cublas_;  // created on first use: cuBLAS and cuSPARSE take
  std::unique_ptr<CusparseHandle> cusparse_;  // device memory and time that `list` need not pay
  std::unique_ptr<InPlaceScratch> inPlace_;   // created by the first multiplyInPlace
};

class CudaProblem final : public DeviceProblem {
 public:
  CudaProblem(CudaBackend& backend, const Matrix& a, const Matrix& b, DType dtype);
  // A, B and C in the caller's device memory (multiplyInPlace): nothing allocated for them.
  CudaProblem(CudaBackend& backend, const DeviceOperands& operands);

  double prepare(const KernelInfo& kernel) override;
  std::optional<double> prepareKeepingA(const KernelInfo& kernel) override;
  void attachPackedA(const BlockSparseMatrix& packed) override;
  double roundingMs() const override { return roundingMs_; }
  void poisonC() override;
  double run(const KernelInfo& kernel) override;
  Matrix downloadC() override;
  Pattern downloadPattern(Operand operand, int granularity) override;

 private:
  bool needsPreparation(const KernelInfo& kernel) const;
  // Whether `kernel` reads the 16-bit copies of A and B: a tensor-core kernel or cuBLAS, on a
  // 16-bit problem.
  bool readsHalves(const KernelInfo& kernel) const {
    return (kernel.usesTensorCores() || kernel.runs(VendorRoutine::CublasGemm) || kernel.readsPackedA()) &&
           (dtype_ == DType::Fp16 || dtype_ == DType::Bf16);
  }
  // Whether `kernel` reads B transposed: the tensor-core kernels with tf32 inputs (parts/mma.cuh's MmaInputType).
  bool readsTransposedB(const KernelInfo& kernel) const { return kernel.usesTensorCores() && dtype_ == DType::Tf32; }
  // Whether `kernel` reads A transposed, in the problem's dtype: the compaction kernels that take it.
  bool readsTransposedA(const KernelInfo& kernel) const { return kernel.readsTransposedA() && kernel.takes(dtype_); }
  // prepare()'s parts, each returning the device milliseconds it took.
  double makeHalves();
  double makeTransposedB();
  double makeTransposedA();
  double buildPatterns(const KernelInfo& kernel, bool keepA);
  // A packed at the bsr kernel's block from A's values (downloaded, packed on the host, uploaded):
  // the format's one-time cost; returns the milliseconds it took.
  double packA(const KernelInfo& kernel);
  Matrix downloadA();
  std::uint8_t* patternFor(Operand operand, int granularity);  // allocates on first use
  const std::uint8_t* builtPattern(Operand operand, int granularity) const;
  std::size_t cBytes() const { return static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_) * sizeof(float); }
  void synchronize(const char* doing) const { check(cudaStreamSynchronize(backend_.stream()), doing); }
  // Queues `work` on the backend's stream and returns the device milliseconds it took, waiting for
  // it; for an untimed problem (DeviceOperands::timed) only queues it and returns NaN.
  template <class Work>
  double onStream(const char* doing, Work&& work) {
    if (!timed_) {
      work();
      return std::numeric_limits<double>::quiet_NaN();
    }
    timer_.start(backend_.stream());
    work();
    timer_.stop(backend_.stream());
    return timer_.milliseconds(doing);
  }

  CudaBackend& backend_;
  int m_, n_, k_;
  DType dtype_ = DType::Fp32;
  DeviceBuffer a_, b_, c_;  // empty when the caller's memory holds them
  DeviceBuffer aHalf_, bHalf_;  // A and B as 16-bit words of dtype_, made by prepare() where a kernel reads them
  const std::uint16_t* aHalfData_ = nullptr;  // those words: aHalf_'s, or the caller's (in place)
  const std::uint16_t* bHalfData_ = nullptr;
  bool halvesMade_ = false;
  double roundingMs_ = 0.0;  // the device time makeHalves() took, once per problem
  DeviceBuffer bTransposed_;  // B as N x K, made by prepare() for the tf32 kernel
  bool transposedMade_ = false;
  DeviceBuffer aTransposed_;  // A as K x M (its 16-bit words, or fp32), made by prepare() for the compaction kernels
  bool aTransposedMade_ = false;
  const float* aData_ = nullptr;
  const float* bData_ = nullptr;
  float* cData_ = nullptr;
  DeviceBuffer ownQueue_;
  void* tileQueue_ = nullptr;  // the persistent kernels' block tile queue (kernels/parts/tile_queue.cuh)
  std::map<PatternKey, DeviceBuffer> ownPatterns_;
  std::map<PatternKey, DeviceBuffer>* patterns_ = &ownPatterns_;  // the backend's for an in-place problem
  std::set<PatternKey> built_;  // patterns whose kernel ran to completion
  CsrMatrix csr_;
  // A packed, by block size: the values in the problem's words (fp32 or 16-bit) and the index.
  struct PackedOnDevice {
    DeviceBuffer values, index;
    int blockRows = 0, keptBlocks = 0;
    BlockStreamPlan plan;  // the streaming kernels' units (their schedule), kept with the values
    // Per streaming kernel (its column tile sizes them): the units, counters and partial tiles.
    struct Stream {
      DeviceBuffer units, counters, partials;
    };
    std::map<std::string, Stream, std::less<>> streams;
  };
  // `kernel`'s units, counters and partial tiles for `packed`, made by its first run.
  const PackedOnDevice::Stream& streamFor(const KernelInfo& kernel, PackedOnDevice& packed);
  std::map<int, PackedOnDevice> packed_;
  EventTimer timer_;
  bool timed_ = true;
};

// An MLP layer on the device (Backend::uploadLayer): X, W1 and W2 as 16-bit words, H written by the
// first GEMM's epilogue (launchLayerFirstGemm) transposed with its pattern, which the compaction
// kernel `second` reads as its A, and Y in fp32.
class CudaLayer final : public DeviceLayer {
 public:
  CudaLayer(CudaBackend& backend, const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype, bool relu,
            const KernelInfo& second);
  Times run() override;
  Matrix downloadH() override;
  Pattern downloadHPattern() override;
  Matrix downloadY() override;

 private:
  // `m`'s values as 16-bit words of dtype_, on the device.
  DeviceBuffer uploadWords(const Matrix& m, const char* what);
  void synchronize(const char* doing) const { check(cudaStreamSynchronize(backend_.stream()), doing); }

  CudaBackend& backend_;
  const KernelInfo& second_;
  int m_, d_, f_, n_;
  DType dtype_;
  bool relu_;
  std::size_t patternWords_;
  DeviceBuffer x_, w1_, w2_, ht_, hPattern_, y_;
  EventTimer timer_;
};

CudaLayer::CudaLayer(CudaBackend& backend, const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype, bool relu,
                     const KernelInfo& second)
    : backend_(backend), second_(second), m_(x.rows()), d_(x.cols()), f_(w1.cols()), n_(w2.cols()), dtype_(dtype), relu_(relu),
      patternWords_((patternBytes(m_, f_, kernelInfo(kLayerFirstGemm).tile.BM) + 3) / 4) {
  const std::size_t words = x.values().size() + w1.values().size() + w2.values().size();
  const std::size_t hWords = static_cast<std::size_t>(transposedRowLength(m_)) * static_cast<std::size_t>(f_);
  const std::size_t yBytes = static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_) * sizeof(float);
  requireFreeDeviceMemory(2 * (words + hWords) + 4 * patternWords_ + yBytes,
                          "the layer's X, W1, W2, H and Y (" + std::to_string(m_) + " tokens, " + std::to_string(d_) + " -> " +
                              std::to_string(f_) + " -> " + std::to_string(n_) + ")");
  x_ = uploadWords(x, "X");
  w1_ = uploadWords(w1, "W1");
  w2_ = uploadWords(w2, "W2");
  ht_ = DeviceBuffer(2 * hWords, "H transposed");
  hPattern_ = DeviceBuffer(4 * patternWords_, "H's pattern");
  y_ = DeviceBuffer(yBytes, "Y");
  synchronize("uploading the layer");
}

DeviceBuffer CudaLayer::uploadWords(const Matrix& m, const char* what) {
  std::vector<std::uint16_t> words(m.values().size());
  std::transform(m.values().begin(), m.values().end(), words.begin(), [&](float v) { return halfBits(dtype_, v); });
  DeviceBuffer buffer(2 * words.size(), std::string(dtypeName(dtype_)) + " " + what);
  check(cudaMemcpy(buffer.get(), words.data(), 2 * words.size(), cudaMemcpyHostToDevice), (std::string("uploading ") + what).c_str());
  return buffer;
}

DeviceLayer::Times CudaLayer::run() {
  backend_.makeCurrent();
  Times times;
  timer_.start(backend_.stream());
  launchLayerFirstGemm(dtype_, static_cast<const std::uint16_t*>(x_.get()), static_cast<const std::uint16_t*>(w1_.get()),
                       static_cast<std::uint16_t*>(ht_.get()), static_cast<unsigned*>(hPattern_.get()), patternWords_, m_, f_, d_,
                       relu_, backend_.stream());
  timer_.stop(backend_.stream());
  times.firstMs = timer_.milliseconds("running the layer's first GEMM");
  GemmOperands operands;
  operands.c = y_.floats();
  operands.dtype = dtype_;
  operands.bHalf = static_cast<const std::uint16_t*>(w2_.get());
  operands.aHalfTransposed = static_cast<const std::uint16_t*>(ht_.get());
  operands.aPattern = hPattern_.bytePointer();
  operands.m = m_, operands.n = n_, operands.k = f_;
  const std::string doing = "running kernel " + std::string(second_.id) + " on the layer's H";
  timer_.start(backend_.stream());
  launchGemmKernel(second_.id, operands, backend_.stream());
  timer_.stop(backend_.stream());
  times.secondMs = timer_.milliseconds(doing.c_str());
  return times;
}

Matrix CudaLayer::downloadH() {
  backend_.makeCurrent();
  const std::size_t rowLength = transposedRowLength(m_);
  std::vector<std::uint16_t> words(rowLength * static_cast<std::size_t>(f_));
  check(cudaMemcpyAsync(words.data(), ht_.get(), 2 * words.size(), cudaMemcpyDeviceToHost, backend_.stream()), "downloading H");
  synchronize("downloading H");
  Matrix h(m_, f_);
  for (int j = 0; j < f_; ++j) {
    for (int i = 0; i < m_; ++i) h(i, j) = fromHalfBits(dtype_, words[static_cast<std::size_t>(j) * rowLength + i]);
  }
  return h;
}

Pattern CudaLayer::downloadHPattern() {
  backend_.makeCurrent();
  Pattern pattern = fullPattern(Operand::A, m_, f_, kernelInfo(kLayerFirstGemm).tile.BM);  // shape from the core
  check(cudaMemcpyAsync(pattern.bits.data(), hPattern_.get(), pattern.bits.size(), cudaMemcpyDeviceToHost, backend_.stream()),
        "downloading H's pattern");
  synchronize("downloading H's pattern");
  return pattern;
}

Matrix CudaLayer::downloadY() {
  backend_.makeCurrent();
  Matrix y(m_, n_);
  check(cudaMemcpyAsync(y.data(), y_.get(), y.bytes(), cudaMemcpyDeviceToHost, backend_.stream()), "downloading Y");
  synchronize("downloading Y");
  return y;
}

CudaBackend::CudaBackend(const BackendOptions& options) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    throw UnavailableError(describeNoDevice(error));
  }
  if (count == 0) throw UnavailableError(describeNoDevice(cudaErrorNoDevice));
  deviceIndex_ = options.deviceIndex < 0 ? 0 : options.deviceIndex;
  if (deviceIndex_ >= count) {
    throw InputError("CUDA device " + std::to_string(deviceIndex_) + " does not exist: this machine has " +
                     std::to_string(count) + " (numbered 0 to " + std::to_string(count - 1) + ")");
  }
  makeCurrent();
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, deviceIndex_), "reading the CUDA device's properties");
  const std::string capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
  hopper_ = properties.major == 9 && properties.minor == 0;
  try {
    checkKernelImages();
  } catch (const UnavailableError& e) {
    throw UnavailableError(std::string(e.what()) + " [" + properties.name + ", compute capability " + capability + "]");
  }
  stream_ = std::make_unique<CudaStream>();
  watchProcessExit();

  int driverVersion = 0, runtimeVersion = 0;
  check(cudaDriverGetVersion(&driverVersion), "reading the CUDA driver version");
  check(cudaRuntimeGetVersion(&runtimeVersion), "reading the CUDA runtime version");
  const std::string kernelDriver = nvidiaDriverVersion();
  device_.name = properties.name;
  device_.driver = (kernelDriver.empty() ? "" : kernelDriver + " ") + "(CUDA " + versionText(driverVersion) + ")";
  device_.api = "CUDA " + versionText(runtimeVersion) + " runtime, compute capability " + capability + ", " +
                std::to_string(properties.multiProcessorCount) + " SMs; " + vendorLibraryVersions();
  device_.isGpu = true;
  device_.subgroupSize = properties.warpSize;
  device_.sharedMemoryBytes = properties.sharedMemPerBlockOptin;
  device_.memoryBytes = properties.totalGlobalMem;
}

std::optional<double> CudaBackend::copyBandwidth() {
  makeCurrent();
  // 256 MiB each way: far past L2, so the copy runs at the memory's pace.
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  requireFreeDeviceMemory(2 * kBytes, "measuring the copy bandwidth");
  DeviceBuffer from(kBytes, "a copy's source"), to(kBytes, "a copy's destination");
  check(cudaMemsetAsync(from.get(), 0, kBytes, stream()), "filling a copy's source");
  EventTimer timer;
  std::vector<double> milliseconds;
  for (int run = 0; run < 6; ++run) {
    timer.start(stream());
    check(cudaMemcpyAsync(to.get(), from.get(), kBytes, cudaMemcpyDeviceToDevice, stream()), "copying on the device");
    timer.stop(stream());
    const double ms = timer.milliseconds("timing a device copy");
    if (run > 0) milliseconds.push_back(ms);  // the first warms the clocks up
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  return 2.0 * static_cast<double>(kBytes) / (milliseconds[milliseconds.size() / 2] * 1e-3);
}

std::unique_ptr<DeviceProblem> CudaBackend::upload(const Matrix& a, const Matrix& b, DType dtype) {
  checkMultiplicable(a, b);
  checkMatrixShape(a.rows(), b.cols(), "C");
  makeCurrent();
  return std::make_unique<CudaProblem>(*this, a, b, dtype);
}

bool CudaBackend::fusesLayer(const KernelInfo& first, const KernelInfo& second, DType dtype) const {
  return hopper_ && layerFuses(first, second, dtype) && implements(second.id);
}

std::unique_ptr<DeviceLayer> CudaBackend::uploadLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype,
                                                      bool relu, const KernelInfo& first, const KernelInfo& second) {
  if (!fusesLayer(first, second, dtype)) return Backend::uploadLayer(x, w1, w2, dtype, relu, first, second);
  checkMultiplicable(x, w1);
  checkMultiplicable(w1, w2);
  makeCurrent();
  return std::make_unique<CudaLayer>(*this, x, w1, w2, dtype, relu, second);
}

double CudaBackend::multiplyInPlace(const KernelInfo& kernel, const DeviceOperands& operands) {
  checkMatrixShape(operands.m, operands.k, "A");
  checkMatrixShape(operands.k, operands.n, "B");
  checkMatrixShape(operands.m, operands.n, "C");
  if (operands.deviceIndex != deviceIndex_) {
    throw InputError("the operands are on CUDA device " + std::to_string(operands.deviceIndex) +
                     " but the cuda backend runs on device " + std::to_string(deviceIndex_) + "; pass device=" +
                     std::to_string(operands.deviceIndex));
  }
  makeCurrent();
  // Ordered after the caller's queued work (which may still be writing A and B), and the
  // caller's later work after C: events, no host synchronisation between them.
  auto caller = static_cast<cudaStream_t>(operands.stream);
  cudaEvent_t ready = inPlaceScratch().order.get();
  check(cudaEventRecord(ready, caller), "recording the caller's stream");
  check(cudaStreamWaitEvent(stream(), ready, 0), "waiting for the caller's stream");
  CudaProblem problem(*this, operands);
  const double milliseconds = problem.run(kernel);  // builds the patterns first where it needs them
  check(cudaEventRecord(ready, stream()), "recording C");
  check(cudaStreamWaitEvent(caller, ready, 0), "ordering the caller's stream after C");
  return milliseconds;
}

CudaProblem::CudaProblem(CudaBackend& backend, const Matrix& a, const Matrix& b, DType dtype)
    : backend_(backend), m_(a.rows()), n_(b.cols()), k_(a.cols()), dtype_(dtype) {
  requireFreeDeviceMemory(a.bytes() + b.bytes() + cBytes(),
                          "A, B and C of the " + std::to_string(m_) + "x" + std::to_string(n_) + "x" +
                              std::to_string(k_) + " problem");
  a_ = DeviceBuffer(a.bytes(), "A");
  b_ = DeviceBuffer(b.bytes(), "B");
  c_ = DeviceBuffer(cBytes(), "C");
  aData_ = a_.floats();
  bData_ = b_.floats();
  cData_ = c_.floats();
  ownQueue_ = DeviceBuffer(2 * sizeof(unsigned), "the block tile queue");
  tileQueue_ = ownQueue_.get();
  check(cudaMemsetAsync(tileQueue_, 0, 2 * sizeof(unsigned), backend_.stream()), "clearing the block tile queue");
  check(cudaMemcpyAsync(a_.get(), a.data(), a.bytes(), cudaMemcpyHostToDevice, backend_.stream()), "uploading A");
  check(cudaMemcpyAsync(b_.get(), b.data(), b.bytes(), cudaMemcpyHostToDevice, backend_.stream()), "uploading B");
  synchronize("uploading A and B");
}

CudaProblem::CudaProblem(CudaBackend& backend, const DeviceOperands& operands)
    : backend_(backend), m_(operands.m), n_(operands.n), k_(operands.k), aData_(operands.a), bData_(operands.b),
      cData_(operands.c), timed_(operands.timed) {
  dtype_ = operands.dtype;
  if (dtype_ == DType::Fp16 || dtype_ == DType::Bf16) {  // the caller's words are the kernels' inputs
    aHalfData_ = operands.aHalf;
    bHalfData_ = operands.bHalf;
    halvesMade_ = true;
  }
  InPlaceScratch& scratch = backend_.inPlaceScratch();
  tileQueue_ = scratch.tileQueue.get();
  patterns_ = &scratch.patterns;
}

std::uint8_t* CudaProblem::patternFor(Operand operand, int granularity) {
  const std::size_t bytes = patternBytes(operand == Operand::A ? m_ : n_, k_, granularity);
  DeviceBuffer& buffer = (*patterns_)[PatternKey(operand, granularity)];
  if (buffer.bytes() < bytes) {
    buffer = DeviceBuffer(bytes, std::string(operandName(operand)) + "-pattern at granularity " + std::to_string(granularity));
  }
  return buffer.bytePointer();
}

const std::uint8_t* CudaProblem::builtPattern(Operand operand, int granularity) const {
  if (!built_.contains(PatternKey(operand, granularity))) return nullptr;
  return patterns_->at(PatternKey(operand, granularity)).bytePointer();
}

bool CudaProblem::needsPreparation(const KernelInfo& kernel) const {
  if (kernel.runs(VendorRoutine::CusparseCsrSpmm)) return !csr_.converted();
  if (kernel.readsPackedA()) return !packed_.contains(kernel.packedBlock()) || (readsHalves(kernel) && !halvesMade_);
  if (readsHalves(kernel) && !halvesMade_) return true;
  if (readsTransposedB(kernel) && !transposedMade_) return true;
  if (readsTransposedA(kernel) && !aTransposedMade_) return true;
  return (kernel.buildsAPattern() && builtPattern(Operand::A, kernel.aGranularity) == nullptr) ||
         (kernel.usesBPattern() && builtPattern(Operand::B, kernel.bGranularity) == nullptr);
}

double CudaProblem::prepare(const KernelInfo& kernel) {
  backend_.makeCurrent();
  if (kernel.runs(VendorRoutine::CusparseCsrSpmm)) return csr_.convert(backend_.cusparse(), backend_.stream(), aData_, m_, k_);
  // A packed is made once, and B's 16-bit words where the kernel reads them; nothing per call.
  if (kernel.readsPackedA()) {
    if (readsHalves(kernel) && !halvesMade_) roundingMs_ = makeHalves();
    return packed_.contains(kernel.packedBlock()) ? 0.0 : packA(kernel);
  }
  // A skipping tensor-core kernel needs both: its 16-bit inputs and its patterns (built from those
  // copies where their rows are whole 16-byte words, else from the fp32 values, which hold the same
  // rounded numbers). The copies are made once per problem and timed apart (roundingMs): a caller
  // whose operands are already in the dtype would not make them.
  if (readsHalves(kernel) && !halvesMade_) roundingMs_ = makeHalves();
  const double transposed = (readsTransposedB(kernel) ? makeTransposedB() : 0.0) + (readsTransposedA(kernel) ? makeTransposedA() : 0.0);
  return transposed + buildPatterns(kernel, false);
}

std::optional<double> CudaProblem::prepareKeepingA(const KernelInfo& kernel) {
  if (needsPreparation(kernel)) prepare(kernel);  // A's part, once
  backend_.makeCurrent();
  if (kernel.runs(VendorRoutine::CusparseCsrSpmm) || kernel.readsPackedA()) return 0.0;  // A's CSR or packed form is all it prepares
  const double transposed = readsTransposedB(kernel) ? makeTransposedB() : 0.0;
  return transposed + buildPatterns(kernel, true);
}

Matrix CudaProblem::downloadA() {
  Matrix a(m_, k_);
  if (aData_ != nullptr) {
    check(cudaMemcpyAsync(a.data(), aData_, a.bytes(), cudaMemcpyDeviceToHost, backend_.stream()), "downloading A");
    synchronize("downloading A");
    return a;
  }
  std::vector<std::uint16_t> words(a.size());
  check(cudaMemcpyAsync(words.data(), aHalfData_, 2 * words.size(), cudaMemcpyDeviceToHost, backend_.stream()), "downloading A");
  synchronize("downloading A");
  std::transform(words.begin(), words.end(), a.data(), [&](std::uint16_t w) { return fromHalfBits(dtype_, w); });
  return a;
}

double CudaProblem::packA(const KernelInfo& kernel) {
  const auto start = std::chrono::steady_clock::now();
  attachPackedA(packBlocks(downloadA(), kernel.packedBlock(), dtype_ == DType::Tf32 ? DType::Fp32 : dtype_));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const CudaProblem::PackedOnDevice::Stream& CudaProblem::streamFor(const KernelInfo& kernel, PackedOnDevice& packed) {
  if (auto it = packed.streams.find(kernel.id); it != packed.streams.end()) return it->second;
  PackedOnDevice::Stream stream;
  const std::size_t units = 4 * packed.plan.words.size();
  const std::size_t colTiles = static_cast<std::size_t>((n_ + kernel.tile.BN - 1) / kernel.tile.BN);
  const std::size_t counters = 4 * static_cast<std::size_t>(packed.blockRows) * colTiles;
  const std::size_t partials = 4 * static_cast<std::size_t>(std::max(packed.plan.slots, 1)) * colTiles * kernel.tile.BM * kernel.tile.BN;
  requireFreeDeviceMemory(units + counters + partials, "kernel " + std::string(kernel.id) + "'s units and partial tiles");
  stream.units = DeviceBuffer(units, "the streaming kernels' units");
  stream.counters = DeviceBuffer(counters, "the streaming kernels' counters");
  stream.partials = DeviceBuffer(partials, "the streaming kernels' partial tiles");
  check(cudaMemcpyAsync(stream.units.get(), packed.plan.words.data(), units, cudaMemcpyHostToDevice, backend_.stream()), "uploading the units");
  check(cudaMemsetAsync(stream.counters.get(), 0, counters, backend_.stream()), "clearing the streaming kernels' counters");
  synchronize("uploading the streaming kernels' units");
  return packed.streams.emplace(std::string(kernel.id), std::move(stream)).first->second;
}

void CudaProblem::attachPackedA(const BlockSparseMatrix& packed) {
  requirePackedA(packed, m_, k_, dtype_);
  backend_.makeCurrent();
  const bool half = dtype_ == DType::Fp16 || dtype_ == DType::Bf16;
  const std::vector<std::int32_t> index = packed.packedIndexWords();
  const std::size_t valueBytes = static_cast<std::size_t>(packed.valueBytes()), indexBytes = 4 * index.size();
  requireFreeDeviceMemory(valueBytes + indexBytes, "A packed in blocks of " + std::to_string(packed.block()));
  PackedOnDevice onDevice;
  onDevice.values = DeviceBuffer(std::max<std::size_t>(valueBytes, 4), "A's kept blocks");
  onDevice.index = DeviceBuffer(indexBytes, "A's block index");
  onDevice.blockRows = packed.blockRows();
  onDevice.keptBlocks = packed.keptBlocks();
  // About eight units a multiprocessor: enough to fill the device several times over, few enough
  // that a unit reads several kept blocks.
  int device = 0, multiprocessors = 0;
  check(cudaGetDevice(&device), "querying the current device");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "querying multiprocessors");
  onDevice.plan = planBlockStream(packed, 8 * multiprocessors);
  const std::vector<std::uint16_t> words = half ? packed.halfWords() : std::vector<std::uint16_t>{};
  const void* values = half ? static_cast<const void*>(words.data()) : static_cast<const void*>(packed.values().data());
  if (valueBytes > 0) check(cudaMemcpyAsync(onDevice.values.get(), values, valueBytes, cudaMemcpyHostToDevice, backend_.stream()), "uploading A's kept blocks");
  check(cudaMemcpyAsync(onDevice.index.get(), index.data(), indexBytes, cudaMemcpyHostToDevice, backend_.stream()), "uploading A's block index");
  synchronize("uploading A packed");
  packed_[packed.block()] = std::move(onDevice);
}

double CudaProblem::makeTransposedB() {
  const std::size_t bytes = static_cast<std::size_t>(k_) * n_ * sizeof(float);
  if (bTransposed_.empty()) {
    requireFreeDeviceMemory(bytes, "B transposed for tf32");
    bTransposed_ = DeviceBuffer(bytes, "B transposed");
  }
  // Made again on every call, so that repeated calls time the real work.
  const double milliseconds = onStream("transposing B", [&] {
    launchTranspose(bData_, k_, n_, static_cast<float*>(bTransposed_.get()), k_, backend_.stream());
  });
  transposedMade_ = true;
  return milliseconds;
}

double CudaProblem::makeTransposedA() {
  const bool fp32 = dtype_ == DType::Fp32;
  const std::size_t bytes = static_cast<std::size_t>(transposedRowLength(m_)) * k_ * (fp32 ? sizeof(float) : sizeof(std::uint16_t));
  if (aTransposed_.empty()) {
    requireFreeDeviceMemory(bytes, "A transposed for compaction");
    aTransposed_ = DeviceBuffer(bytes, "A transposed");
  }
  // Made again on every call that prepares A, so that repeated calls time the real work.
  const double milliseconds = onStream("transposing A", [&] {
    if (fp32) {
      launchTranspose(aData_, m_, k_, static_cast<float*>(aTransposed_.get()), transposedRowLength(m_), backend_.stream());
    } else {
      launchTranspose(aHalfData_, m_, k_, static_cast<std::uint16_t*>(aTransposed_.get()), backend_.stream());
    }
  });
  aTransposedMade_ = true;
  return milliseconds;
}

double CudaProblem::makeHalves() {
  const std::size_t aCount = static_cast<std::size_t>(m_) * k_, bCount = static_cast<std::size_t>(k_) * n_;
  if (aHalf_.empty()) {
    const std::string type(dtypeName(dtype_));
    requireFreeDeviceMemory(2 * (aCount + bCount), type + " copies of A and B");
    aHalf_ = DeviceBuffer(2 * aCount, type + " A");
    bHalf_ = DeviceBuffer(2 * bCount, type + " B");
  }
  const bool bf16 = dtype_ == DType::Bf16;
  const double milliseconds = onStream("converting A and B to 16 bits", [&] {
    launchToHalf(aData_, static_cast<std::uint16_t*>(aHalf_.get()), aCount, bf16, backend_.stream());
    launchToHalf(bData_, static_cast<std::uint16_t*>(bHalf_.get()), bCount, bf16, backend_.stream());
  });
  aHalfData_ = static_cast<const std::uint16_t*>(aHalf_.get());
  bHalfData_ = static_cast<const std::uint16_t*>(bHalf_.get());
  halvesMade_ = true;
  return milliseconds;
}

double CudaProblem::buildPatterns(const KernelInfo& kernel, bool keepA) {
  // Built again on every call, so that repeated calls time the real work; A's kept where asked.
  std::uint8_t* aPattern = kernel.buildsAPattern() && !keepA ? patternFor(Operand::A, kernel.aGranularity) : nullptr;
  std::uint8_t* bPattern = kernel.usesBPattern() ? patternFor(Operand::B, kernel.bGranularity) : nullptr;
  if (aPattern == nullptr && bPattern == nullptr) return 0.0;
  const double milliseconds = onStream("building the skip patterns", [&] {
    const bool fromHalves = readsHalves(kernel) && launchPatternsFromHalves(aHalfData_, bHalfData_, m_, k_, n_, kernel.aGranularity,
                                                                             kernel.bGranularity, aPattern, bPattern, backend_.stream());
    if (!fromHalves && aData_ == nullptr) {
      throw InputError("16-bit operands in device memory need K and N multiples of 8 and a B-pattern of 8 to 64 columns "
                       "for kernel " + std::string(kernel.id) + "'s patterns (built from whole 16-byte rows); M=" +
                       std::to_string(m_) + " N=" + std::to_string(n_) + " K=" + std::to_string(k_));
    }
    if (!fromHalves && aPattern != nullptr) launchAPattern(aData_, m_, k_, kernel.aGranularity, aPattern, backend_.stream());
    if (!fromHalves && bPattern != nullptr) launchBPattern(bData_, k_, n_, kernel.bGranularity, bPattern, backend_.stream());
  });
  if (aPattern != nullptr) built_.insert(PatternKey(Operand::A, kernel.aGranularity));
  if (bPattern != nullptr) built_.insert(PatternKey(Operand::B, kernel.bGranularity));
  return milliseconds;
}

void CudaProblem::poisonC() {
  backend_.makeCurrent();
  // 0xFF bytes make every float a NaN.
  check(cudaMemsetAsync(cData_, 0xFF, cBytes(), backend_.stream()), "filling C with NaN");
  synchronize("filling C with NaN");
}

double CudaProblem::run(const KernelInfo& kernel) {
  requireInputs(kernel, dtype_);
  backend_.makeCurrent();
  if (needsPreparation(kernel)) prepare(kernel);
  if (kernel.runs(VendorRoutine::CusparseCsrSpmm)) return csr_.multiply(backend_.cusparse(), backend_.stream(), bData_, cData_, n_);
  const std::string doing = "running kernel " + std::string(kernel.id);
  if (kernel.runs(VendorRoutine::CublasGemm)) {
    cublasHandle_t handle = backend_.cublas();
    const bool halves = readsHalves(kernel);
    return onStream(doing.c_str(), [&] {
      runCublasGemm(handle, dtype_, halves ? static_cast<const void*>(aHalfData_) : aData_,
                    halves ? static_cast<const void*>(bHalfData_) : bData_, cData_, m_, n_, k_);
    });
  }
  GemmOperands operands;
  operands.a = aData_;
  operands.b = bData_;
  operands.c = cData_;
  operands.m = m_;
  operands.n = n_;
  operands.k = k_;
  operands.dtype = dtype_;
  if (readsHalves(kernel)) {
    operands.aHalf = aHalfData_;
    operands.bHalf = bHalfData_;
  }
  if (readsTransposedB(kernel)) operands.bTransposed = static_cast<const float*>(bTransposed_.get());
  if (readsTransposedA(kernel) && dtype_ == DType::Fp32) operands.aTransposed = static_cast<const float*>(aTransposed_.get());
  if (readsTransposedA(kernel) && dtype_ != DType::Fp32) operands.aHalfTransposed = static_cast<const std::uint16_t*>(aTransposed_.get());
  if (kernel.buildsAPattern()) operands.aPattern = builtPattern(Operand::A, kernel.aGranularity);
  if (kernel.readsPackedA()) {
    PackedOnDevice& packed = packed_.at(kernel.packedBlock());
    operands.packedValues = packed.values.get();
    operands.packedIndex = static_cast<const int*>(packed.index.get());
    operands.packedBlockRows = packed.blockRows;
    operands.packedKeptBlocks = packed.keptBlocks;
    if (kernel.structure.scheduling == Scheduling::SplitBlocks) {
      const PackedOnDevice::Stream& stream = streamFor(kernel, packed);
      operands.streamUnits = static_cast<const int*>(stream.units.get());
      operands.streamUnitCount = packed.plan.units;
      operands.streamCounters = static_cast<unsigned*>(stream.counters.get());
      operands.streamPartials = stream.partials.floats();
    }
  }
  if (kernel.usesBPattern()) operands.bPattern = builtPattern(Operand::B, kernel.bGranularity);
  operands.tileQueue = static_cast<unsigned*>(tileQueue_);
  return onStream(doing.c_str(), [&] { launchGemmKernel(kernel.id, operands, backend_.stream()); });
}

Matrix CudaProblem::downloadC() {
  backend_.makeCurrent();
  Matrix c(m_, n_);
  check(cudaMemcpyAsync(c.data(), cData_, cBytes(), cudaMemcpyDeviceToHost, backend_.stream()), "downloading C");
  synchronize("downloading C");
  return c;
}

Pattern CudaProblem::downloadPattern(Operand operand, int granularity) {
  const std::uint8_t* device = builtPattern(operand, granularity);
  if (device == nullptr) {
    throw InputError("the cuda backend has built no " + std::string(operandName(operand)) + "-pattern at granularity " +
                     std::to_string(granularity) + " for this problem; prepare a kernel that uses one first");
  }
  backend_.makeCurrent();
  Pattern pattern = fullPattern(operand, operand == Operand::A ? m_ : n_, k_, granularity);  // shape from the core
  check(cudaMemcpyAsync(pattern.bits.data(), device, pattern.bits.size(), cudaMemcpyDeviceToHost, backend_.stream()),
        "downloading a skip pattern");
  synchronize("downloading a skip pattern");
  return pattern;
}

std::unique_ptr<Backend> openCudaBackend(const BackendOptions& options) { return std::make_unique<CudaBackend>(options); }

}  // namespace

}  // namespace tileskip::cuda

extern "C" __attribute__((visibility("default"))) const tileskip::cuda::ModuleInterface* tileskip_cuda_module() {
  static const tileskip::cuda::ModuleInterface module{tileskip::cuda::LayoutStamp{}, &tileskip::cuda::openCudaBackend};
  return &module;
}
