#include "emulated_cuda_backend.hpp"

// clang-format off
#include "cuda_emulation.hpp"  // first: the .cuh files below need its stand-ins
// clang-format on

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "backends/cuda/gemm_instance.cuh"
#include "kernels/layer_first_gemm.cuh"
#include "kernels/pattern_a.cuh"
#include "kernels/pattern_b.cuh"
#include "kernels/pattern_halves.cuh"
#include "core/model/dtype.hpp"
#include "core/model/error.hpp"
#include "core/model/reference.hpp"

namespace tileskip::testing {

namespace {

// The table's parts, as one list (emulated_instances.cpp compiles each).
std::span<const cuda::GemmInstance> emulatedInstances() {
  static const std::vector<cuda::GemmInstance> all = [] {
    std::vector<cuda::GemmInstance> instances;
    for (std::span<const cuda::GemmInstance> part : {emulatedInstancePart<0>(), emulatedInstancePart<1>()}) {
      instances.insert(instances.end(), part.begin(), part.end());
    }
    return instances;
  }();
  return all;
}

void emulate(long long blocks, int threads, const std::function<void()>& kernel) {
  try {
    emu::launch(static_cast<unsigned>(blocks), static_cast<unsigned>(threads), kernel);
  } catch (const std::logic_error& e) {
    throw Error(ExitCode::VerificationFailed, std::string("CUDA emulation: ") + e.what());
  }
}

// Blocks a persistent kernel runs with in emulation: fewer than the tiles of most test shapes.
constexpr long long kPersistentBlocks = 3;

// `values` (rows x cols, row-major) transposed: cols rows of `rowLength` >= rows values, the
// values past `rows` zeros (the CUDA backend's launchTranspose).
template <class Value>
std::vector<Value> transposed(const std::vector<Value>& values, int rows, int cols, int rowLength) {
  std::vector<Value> out(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rowLength), Value{0});
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) out[static_cast<std::size_t>(j) * rowLength + i] = values[static_cast<std::size_t>(i) * cols + j];
  }
  return out;
}

class EmulatedProblem final : public DeviceProblem {
 public:
  EmulatedProblem(const Matrix& a, const Matrix& b, DType dtype)
      : m_(a.rows()), n_(b.cols()), k_(a.cols()), dtype_(dtype), a_(a.values().begin(), a.values().end()),
        b_(b.values().begin(), b.values().end()), c_(static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_)) {}

  // As the CUDA backend's: a 16-bit tensor-core kernel's copies of A and B first (once), then its
  // patterns, from those copies where kernels/pattern_halves.cuh takes the shape.
  double prepare(const KernelInfo& kernel) override {
    if (readsHalves(kernel)) makeHalves();
    // A packed once, at the bsr kernel's block, as the CUDA backend's packA.
    if (kernel.readsPackedA()) {
      if (!packed_.contains(kernel.packedBlock())) {
        Matrix a(m_, k_);
        std::copy(a_.begin(), a_.end(), a.data());
        attachPackedA(packBlocks(a, kernel.packedBlock(), dtype_ == DType::Tf32 ? DType::Fp32 : dtype_));
      }
      return 0.0;
    }
    const bool fromHalves = readsHalves(kernel) && cuda::halvesPatternShape(k_, n_, kernel.usesBPattern() ? kernel.bGranularity : 8);
    if (fromHalves) {
      buildPatternsFromHalves(kernel);
      return 0.0;
    }
    if (kernel.buildsAPattern()) {
      const int rows = kernel.aGranularity;
      std::vector<std::uint8_t>& pattern = freshPattern(Operand::A, rows);
      const cuda::APatternGrid grid = cuda::aPatternGrid(m_, k_, rows);
      emulate(grid.blocks, cuda::kPatternThreads, [&] {
        cuda::buildAPattern(a_.data(), m_, k_, rows, grid.rowTiles, grid.kChunks, pattern.data());
      });
    }
    if (kernel.usesBPattern()) {
      const int cols = kernel.bGranularity;
      std::vector<std::uint8_t>& pattern = freshPattern(Operand::B, cols);
      const cuda::BPatternLaunch launch = cuda::bPatternLaunch(cols, k_, n_);
      if (launch.kernel == nullptr) throw InputError("no B-pattern kernel for granularity " + std::to_string(cols));
      emulate(launch.blocks, cuda::kPatternThreads, [&] {
        launch.kernel(b_.data(), k_, n_, launch.colWarps, launch.kBlockGroups, pattern.data());
      });
    }
    return 0.0;
  }

  void attachPackedA(const BlockSparseMatrix& packed) override {
    requirePackedA(packed, m_, k_, dtype_);
    Packed& copy = packed_[packed.block()];
    copy.index = packed.packedIndexWords();
    copy.blockRows = packed.blockRows();
    copy.keptBlocks = packed.keptBlocks();
    // Few units, so that the test shapes' block rows are split and their partials summed.
    copy.plan = planBlockStream(packed, kStreamUnits);
    copy.values.assign(packed.values().begin(), packed.values().end());
    copy.words = dtype_ == DType::Fp16 || dtype_ == DType::Bf16 ? packed.halfWords() : std::vector<std::uint16_t>{};
    // A matrix that keeps no block still has somewhere to point, as the CUDA backend's buffer of 4 bytes.
    if (copy.values.empty()) copy.values.push_back(0.0f);
  }

  void poisonC() override { std::fill(c_.begin(), c_.end(), std::numeric_limits<float>::quiet_NaN()); }

  double run(const KernelInfo& kernel) override {
    requireInputs(kernel, dtype_);
    const cuda::GemmInstance* instance = findEmulatedInstance(kernel.id, dtype_);
    if (instance == nullptr) throw InputError("the emulated cuda backend has no kernel '" + std::string(kernel.id) + "'");
    const std::uint8_t* aPattern = kernel.buildsAPattern() ? patterns_.at({Operand::A, kernel.aGranularity}).data() : nullptr;
    const std::uint8_t* bPattern = kernel.usesBPattern() ? patterns_.at({Operand::B, kernel.bGranularity}).data() : nullptr;
    long long blocks = cuda::gemmBlockCount(kernel.tile, m_, n_);
    // A persistent kernel gets fewer blocks than tiles, as on a GPU, so each block walks the
    // tile queue more than once.
    if (kernel.persistent()) blocks = std::min(blocks, kPersistentBlocks);
    // A tensor-core kernel reads A and B as 16-bit words, or for tf32 B transposed, as the CUDA
    // backend's prepare() makes them.
    std::vector<float> bTransposed;
    if (kernel.usesTensorCores() && dtype_ == DType::Tf32) {
      bTransposed = transposed(b_, k_, n_, k_);
    } else if (readsHalves(kernel)) {
      makeHalves();
    }
    // A compaction kernel reads A transposed, K x M padded: its 16-bit words, or its fp32 values.
    std::vector<std::uint16_t> aHalfTransposed;
    std::vector<float> aTransposed;
    if (kernel.readsTransposedA() && readsHalves(kernel)) {
      aHalfTransposed = transposed(aHalf_, m_, k_, transposedRowLength(m_));
    } else if (kernel.readsTransposedA() && dtype_ == DType::Fp32) {
      aTransposed = transposed(a_, m_, k_, transposedRowLength(m_));
    }
    cuda::GemmOperands op{.a = a_.data(), .b = b_.data(), .c = c_.data(), .dtype = dtype_, .aHalf = aHalf_.data(),
                                .bHalf = bHalf_.data(), .bTransposed = bTransposed.data(), .aHalfTransposed = aHalfTransposed.data(),
                                .aTransposed = aTransposed.data(), .m = m_, .n = n_, .k = k_, .aPattern = aPattern,
                                .bPattern = bPattern, .tileQueue = tileQueue_};
    // A streaming kernel's counters start at zero and must end there; its partial slots start as NaN.
    std::vector<unsigned> counters;
    std::vector<float> partials;
    if (kernel.readsPackedA()) {
      const Packed& packed = packed_.at(kernel.packedBlock());
      op.packedValues = packed.words.empty() ? static_cast<const void*>(packed.values.data()) : packed.words.data();
      op.packedIndex = packed.index.data();
      op.packedBlockRows = packed.blockRows;
      op.packedKeptBlocks = packed.keptBlocks;
      if (kernel.structure.scheduling == Scheduling::SplitBlocks) {
        const std::size_t colTiles = static_cast<std::size_t>((n_ + kernel.tile.BN - 1) / kernel.tile.BN);
        counters.assign(static_cast<std::size_t>(packed.blockRows) * colTiles, 0u);
        partials.assign(std::max<std::size_t>(1, static_cast<std::size_t>(packed.plan.slots) * colTiles * kernel.tile.BM * kernel.tile.BN),
                        std::numeric_limits<float>::quiet_NaN());
        op.streamUnits = packed.plan.words.data();
        op.streamUnitCount = packed.plan.units;
        op.streamCounters = counters.data();
        op.streamPartials = partials.data();
        blocks = cuda::gridBlocks(kernel, op);
      }
    }
    emulate(blocks, kernel.tile.threads, [&] { instance->call(op); });
    if (std::any_of(counters.begin(), counters.end(), [](unsigned c) { return c != 0u; })) {
      throw Error(ExitCode::VerificationFailed, "a streaming kernel left a block row's counter other than zero");
    }
    if (tileQueue_[0] != 0 || tileQueue_[1] != 0) throw Error(ExitCode::VerificationFailed, "the tile queue was not reset");
    return 1.0;
  }

  Matrix downloadC() override {
    Matrix c(m_, n_);
    std::copy(c_.begin(), c_.end(), c.data());
    return c;
  }

  Pattern downloadPattern(Operand operand, int granularity) override {
    auto it = patterns_.find({operand, granularity});
    if (it == patterns_.end()) throw InputError("no such pattern prepared");
    Pattern pattern = fullPattern(operand, operand == Operand::A ? m_ : n_, k_, granularity);
    pattern.bits = it->second;
    return pattern;
  }

 private:
  bool readsHalves(const KernelInfo& kernel) const {
    return (kernel.usesTensorCores() || kernel.readsPackedA()) && (dtype_ == DType::Fp16 || dtype_ == DType::Bf16);
  }
  // The pattern of `operand` at `granularity`, its bytes garbage: every byte must be written.
  std::vector<std::uint8_t>& freshPattern(Operand operand, int granularity) {
    std::vector<std::uint8_t>& pattern = patterns_[{operand, granularity}];
    pattern.assign(patternBytes(operand == Operand::A ? m_ : n_, k_, granularity), 0xAB);
    return pattern;
  }
  void makeHalves() {
    if (!aHalf_.empty() || a_.empty()) return;
    for (float x : a_) aHalf_.push_back(halfBits(dtype_, x));
    for (float x : b_) bHalf_.push_back(halfBits(dtype_, x));
  }
  void buildPatternsFromHalves(const KernelInfo& kernel) {
    // The row's granularities as the CUDA backend passes them (launchPatternsFromHalves), so that a
    // row without an A-pattern goes through the same grid.
    const int rows = kernel.aGranularity;
    const int cols = kernel.usesBPattern() ? kernel.bGranularity : 8;
    std::uint8_t* aPattern = kernel.usesAPattern() ? freshPattern(Operand::A, rows).data() : nullptr;
    std::uint8_t* bPattern = kernel.usesBPattern() ? freshPattern(Operand::B, cols).data() : nullptr;
    const cuda::HalvesPatternGrid grid = cuda::halvesPatternGrid(m_, k_, n_, rows, aPattern != nullptr, bPattern != nullptr);
    emulate(grid.blocks(), cuda::kPatternThreads, [&] {
      cuda::halvesPatternKernel(cols)(aHalf_.data(), bHalf_.data(), m_, k_, n_, rows, grid, aPattern, bPattern);
    });
  }

  int m_, n_, k_;
  DType dtype_;
  std::vector<float> a_, b_, c_;
  std::vector<std::uint16_t> aHalf_, bHalf_;  // the 16-bit copies, made once (makeHalves)
  std::map<std::pair<Operand, int>, std::vector<std::uint8_t>> patterns_;
  // A packed, by block: the values as fp32 and, in a 16-bit problem, as its words; the index.
  struct Packed {
    std::vector<float> values;
    std::vector<std::uint16_t> words;
    std::vector<std::int32_t> index;
    int blockRows = 0, keptBlocks = 0;
    BlockStreamPlan plan;
  };
  static constexpr int kStreamUnits = 4;
  std::map<int, Packed> packed_;
  unsigned tileQueue_[2] = {0u, 0u};
};

// The row the layer's first GEMM runs, as a variable of its own (a kernel's template argument).
inline constexpr KernelInfo kLayerRow = *findKernelInfo(kLayerFirstGemm);

// The CUDA backend's fused layer (CudaLayer), its two kernels emulated: the first GEMM writes H
// transposed and its pattern, which `second` reads as A.
class EmulatedLayer final : public DeviceLayer {
 public:
  EmulatedLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype, bool relu, const KernelInfo& second)
      : second_(second), m_(x.rows()), d_(x.cols()), f_(w1.cols()), n_(w2.cols()), dtype_(dtype), relu_(relu),
        x_(words(x)), w1_(words(w1)), w2_(words(w2)), ht_(static_cast<std::size_t>(transposedRowLength(m_)) * static_cast<std::size_t>(f_)),
        hPattern_((patternBytes(m_, f_, kLayerRow.tile.BM) + 3) / 4),
        y_(static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_)) {}

  Times run() override {
    std::fill(hPattern_.begin(), hPattern_.end(), 0u);  // as launchLayerFirstGemm clears it
    std::fill(ht_.begin(), ht_.end(), std::uint16_t{0x7FFF});  // NaN in either type: every word must be written
    std::fill(y_.begin(), y_.end(), std::numeric_limits<float>::quiet_NaN());
    if (dtype_ == DType::Bf16) {
      first<DType::Bf16>();
    } else {
      first<DType::Fp16>();
    }
    // The padding of H transposed's rows is the first GEMM's to write, as zeros (only C's rows
    // past M would show it, and no kernel stores those: so it is checked here).
    const int rowLength = transposedRowLength(m_);
    for (int j = 0; j < f_; ++j) {
      for (int i = m_; i < rowLength; ++i) {
        if (ht_[static_cast<std::size_t>(j) * rowLength + i] != 0u) {
          throw Error(ExitCode::VerificationFailed, "the layer's first GEMM left H transposed's padding at row " + std::to_string(j) +
                                                        ", token " + std::to_string(i) + " other than zero");
        }
      }
    }
    const cuda::GemmInstance* instance = findEmulatedInstance(second_.id, dtype_);
    if (instance == nullptr) throw InputError("the emulated cuda backend has no kernel '" + std::string(second_.id) + "'");
    cuda::GemmOperands op;
    op.c = y_.data();
    op.dtype = dtype_;
    op.bHalf = w2_.data();
    op.aHalfTransposed = ht_.data();
    op.aPattern = reinterpret_cast<const std::uint8_t*>(hPattern_.data());
    op.m = m_, op.n = n_, op.k = f_;
    emulate(cuda::gemmBlockCount(second_.tile, m_, n_), second_.tile.threads, [&] { instance->call(op); });
    return {1.0, 1.0};
  }

  Matrix downloadH() override {
    Matrix h(m_, f_);
    const std::size_t rowLength = transposedRowLength(m_);
    for (int j = 0; j < f_; ++j) {
      for (int i = 0; i < m_; ++i) h(i, j) = fromHalfBits(dtype_, ht_[static_cast<std::size_t>(j) * rowLength + i]);
    }
    return h;
  }
  Matrix downloadY() override {
    Matrix y(m_, n_);
    std::copy(y_.begin(), y_.end(), y.data());
    return y;
  }
  Pattern downloadHPattern() override {
    Pattern pattern = fullPattern(Operand::A, m_, f_, kLayerRow.tile.BM);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(hPattern_.data());
    std::copy(bytes, bytes + pattern.bits.size(), pattern.bits.begin());
    return pattern;
  }

 private:
  std::vector<std::uint16_t> words(const Matrix& m) const {
    std::vector<std::uint16_t> out;
    for (float v : m.values()) out.push_back(halfBits(dtype_, v));
    return out;
  }
  template <DType D>
  void first() {
    cuda::GemmOperands op;
    op.m = m_, op.n = f_, op.k = d_, op.dtype = D;
    const cuda::WarpgroupMaps maps = cuda::warpgroupMaps<kLayerRow, D>(x_.data(), w1_.data(), op);
    emulate(cuda::gemmBlockCount(kLayerRow.tile, m_, f_), kLayerRow.tile.threads, [&] {
      cuda::layer_first_gemm<kLayerRow, D>(maps.a, maps.b, maps.bulk, x_.data(), w1_.data(), ht_.data(), hPattern_.data(), m_,
                                           f_, d_, relu_);
    });
  }

  const KernelInfo& second_;
  int m_, d_, f_, n_;
  DType dtype_;
  bool relu_;
  std::vector<std::uint16_t> x_, w1_, w2_, ht_;
  std::vector<unsigned> hPattern_;
  std::vector<float> y_;
};

class EmulatedCudaBackend final : public Backend {
 public:
  EmulatedCudaBackend() {
    device_.name = "CUDA kernels emulated on the CPU";
    device_.subgroupSize = 32;
  }
  std::string_view name() const override { return "cuda-emulated"; }
  const DeviceInfo& device() const override { return device_; }
  bool implements(std::string_view id) const override {
    const std::span<const cuda::GemmInstance> instances = emulatedInstances();
    return std::any_of(instances.begin(), instances.end(),
                       [&](const cuda::GemmInstance& instance) { return instance.row->id == id; });
  }
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override {
    checkMultiplicable(a, b);
    return std::make_unique<EmulatedProblem>(a, b, dtype);
  }
  bool fusesLayer(const KernelInfo& first, const KernelInfo& second, DType dtype) const override {
    return layerFuses(first, second, dtype) && implements(second.id);
  }
  std::unique_ptr<DeviceLayer> uploadLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, DType dtype, bool relu,
                                           const KernelInfo& first, const KernelInfo& second) override {
    if (!fusesLayer(first, second, dtype)) return Backend::uploadLayer(x, w1, w2, dtype, relu, first, second);
    return std::make_unique<EmulatedLayer>(x, w1, w2, dtype, relu, second);
  }

 private:
  DeviceInfo device_;
};

}  // namespace

std::unique_ptr<Backend> makeEmulatedCudaBackend() { return std::make_unique<EmulatedCudaBackend>(); }

const cuda::GemmInstance* findEmulatedInstance(std::string_view id, DType dtype) {
  for (const cuda::GemmInstance& instance : emulatedInstances()) {
    if (instance.row->id == id && instance.dtype == dtype) return &instance;
  }
  return nullptr;
}

std::size_t emulatedInstanceCount() { return emulatedInstances().size(); }

}  // namespace tileskip::testing
