// The CUDA backend's kernels (the same .cuh files nvcc compiles) run through the core verify
// suite on the CPU emulator of tests/cuda_emulation: logic, bounds, partial tiles, patterns
// byte for byte, and barrier / warp-collective uniformity, on any machine. The GPU run of
// KernelConformance covers what emulation cannot (the compiler, the hardware, races).
#include <gtest/gtest.h>

// clang-format off
#include "cuda_emulation/cuda_emulation.hpp"
// clang-format on

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "backends/cuda/gemm_instance.cuh"
#include "kernels/pattern_halves.cuh"
#include "core/measure/mlp.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/dtype.hpp"
#include "core/model/generators.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reference.hpp"
#include "core/model/tile_layout.hpp"
#include "core/measure/verify_suite.hpp"
#include "core/process/sanitizers.hpp"
#include "compaction_case.hpp"
#include "cuda_emulation/emulated_cuda_backend.hpp"

using namespace tileskip;

namespace {

std::vector<std::string> twinIds() {
  std::vector<std::string> ids;
  for (const KernelInfo& k : twinKernels()) ids.emplace_back(k.id);
  return ids;
}

// Kernels that break the rules the emulator enforces, to show it catches each.
void barrierInsideABranch(int* out) {
  if (threadIdx.x < 32) __syncthreads();  // threads 32.. never reach it
  out[threadIdx.x] = 1;
}

void barrierAfterAnEarlyExit(int* out) {
  if (threadIdx.x >= 32) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

void collectiveInHalfAWarp(int* out) {
  if (threadIdx.x % 32 < 16) out[threadIdx.x] = static_cast<int>(__ballot_sync(0xFFFFFFFFu, true));
}

void readsSharedMemoryItNeverWrote(float* out) {
  __shared__ float tile[64];
  out[threadIdx.x] = tile[threadIdx.x];
}

}  // namespace

// In tileskip::cuda and a template, as the catalogue's kernels are: GCC keeps its __shared__
// array out of the section the emulator's own arrays are in.
namespace tileskip::cuda {
template <int kSize>
void readsTemplateSharedItNeverWrote(float* out) {
  __shared__ float tile[kSize];
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
  __syncthreads();
  tile[threadIdx.x] = 1.0f;  // what a block that forgot to write would read, were it not refilled
}
}  // namespace tileskip::cuda

namespace {

void uniformKernel(int* out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  const unsigned bits = __ballot_sync(0xFFFFFFFFu, tile[63 - threadIdx.x] % 2 == 0);
  out[threadIdx.x] = static_cast<int>(__shfl_xor_sync(0xFFFFFFFFu, bits, 1));
}

}  // namespace

class EmulatedCudaKernel : public ::testing::TestWithParam<std::string> {};

namespace {

// The verify suite's cases for the emulator. Under AddressSanitizer every switch between the
// emulator's fibers is costly: the whole suite over every twin took 480 of the sanitizer suite's
// 1240 test-seconds. There it runs the quick suite (every adversarial input at one odd shape,
// the partial tiles and K-blocks where bounds go wrong included); the test build runs the whole.
std::vector<VerifyCase> emulatedCases() {
#if defined(TILESKIP_ADDRESS_SANITIZER)
  return verifyCases(true);
#else
  return verifyCases();
#endif
}

}  // namespace

TEST_P(EmulatedCudaKernel, PassesTheVerifySuite) {
  std::unique_ptr<Backend> backend = tileskip::testing::makeEmulatedCudaBackend();
  ASSERT_TRUE(backend->implements(GetParam()));
  std::vector<VerifyResult> results = runVerify(*backend, {&kernelInfo(GetParam())}, emulatedCases());
  ASSERT_FALSE(results.empty());
  for (const VerifyResult& r : results) EXPECT_TRUE(r.passed()) << GetParam() << " " << r.caseName << ": " << r.failure;
}

// Each compaction kernel multiplies, for each tile of its rows, only the columns some row of the
// tile needs (and S15 every column of a range it copies whole): a NaN row of B reaches exactly the
// tiles that multiply its column (compaction_case.hpp), through the 16-byte copies and the copy
// engine's boxes (N a multiple of 8, whatever M: A transposed's rows are padded to whole copies,
// and 70 rows leave a padding) and element by element, and over K longer than one list
// (several passes), in both 16-bit types, and through the fp32 kernel's vector loads and element by
// element.
TEST(EmulatedCudaCompaction, MultipliesOnlyTheColumnsATileNeeds) {
  std::unique_ptr<Backend> backend = tileskip::testing::makeEmulatedCudaBackend();
  int compactions = 0;
  for (const KernelInfo& compact : twinKernels()) {
    if (!compact.compacts()) continue;
    ++compactions;
    for (DType dtype : {DType::Fp32, DType::Fp16, DType::Bf16}) {
      if (!compact.takes(dtype)) continue;
      for (auto [m, n, k] : {std::array{128, 24, 296}, std::array{130, 20, 300}, std::array{70, 16, 4200}, std::array{136, 16, 4200}}) {
        const tileskip::testing::CompactionCase c = tileskip::testing::compactionCase(m, n, k, compact.aGranularity);
        auto problem = backend->upload(c.a, c.b, dtype);
        problem->prepare(compact);
        problem->run(compact);
        const int whole = n % 8 == 0 ? compact.structure.wholeRangeColumns : 0;
        EXPECT_EQ(tileskip::testing::compactionMismatches(problem->downloadC(),
                                                          tileskip::testing::compactedProduct(c, whole, compact.tile.BK)),
                  0)
            << compact.id << " " << dtypeName(dtype) << " " << m << "x" << n << "x" << k;
      }
    }
  }
  EXPECT_GE(compactions, 3);  // S14 on the warps' MMAs, S15 on the warpgroups', S16 on K12's FMAs
}

// The queue kernels take their tiles in groups of row tiles as tall as A's zeros let share L2
// (kernels/parts/warpgroup.cuh's queueGroupRows, from a sample of A's pattern): with A keeping half
// its 128 x 64 blocks, 16 row tiles a group, so 21 row tiles make a whole group and a short one
// (11 for S12's 64-row consumers' 128-row tiles too). Every tile of C is written once, with its own
// products: C starts as NaN, and small whole numbers make every product exact.
TEST(EmulatedCudaQueue, TallGroupsOfRowTilesCoverEveryTileOnce) {
  std::unique_ptr<Backend> backend = tileskip::testing::makeEmulatedCudaBackend();
  const int m = 128 * 21, n = 512, k = 256;
  std::mt19937 rng(31);
  std::bernoulli_distribution keep(0.5);
  std::uniform_int_distribution<int> value(-3, 3);
  Matrix a(m, k), b(k, n);
  for (int rb = 0; rb < m / 128; ++rb) {
    for (int kb = 0; kb < k / 64; ++kb) {
      if (!keep(rng)) continue;
      for (int r = 0; r < 128; ++r) {
        for (int c = 0; c < 64; ++c) a(rb * 128 + r, kb * 64 + c) = static_cast<float>(value(rng));
      }
    }
  }
  for (float& v : b.values()) v = static_cast<float>(value(rng));
  std::vector<double> expected(static_cast<std::size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int p = 0; p < k; ++p) {
      if (a(i, p) == 0.0f) continue;
      for (int j = 0; j < n; ++j) expected[static_cast<std::size_t>(i) * n + j] += static_cast<double>(a(i, p)) * b(p, j);
    }
  }
  int queues = 0;
  for (const KernelInfo& kernel : twinKernels()) {
    if (kernel.structure.scheduling != Scheduling::Persistent || !kernel.usesTensorCores() || kernel.structure.mapping != ThreadMapping::WarpgroupMmaTiles) continue;
    ++queues;
    auto problem = backend->upload(a, b, DType::Bf16);
    problem->prepare(kernel);
    problem->poisonC();
    problem->run(kernel);
    const Matrix c = problem->downloadC();
    int wrong = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) wrong += c(i, j) != static_cast<float>(expected[static_cast<std::size_t>(i) * n + j]);
    }
    EXPECT_EQ(wrong, 0) << kernel.id;
  }
  EXPECT_GE(queues, 2);  // S12 and S13
}

// An MLP layer fused on the CUDA backend's kernels (core/measure/mlp.hpp, kernels/layer_first_gemm.cuh):
// K14's epilogue applies the activation and writes H transposed with its 128-row pattern, S15
// compacts by it. Whole numbers small enough for both 16-bit types, so H and Y are exact: H spread
// out by a bias row of W1 against a column of ones in X, as a ReLU layer's; rows and hidden units
// that end inside a tile, and rows not 16-byte aligned (element copies) beside aligned ones (the
// copy engine).
TEST(EmulatedCudaLayer, TheFirstGemmWritesHAndItsPatternForTheCompactionKernel) {
  std::unique_ptr<Backend> backend = tileskip::testing::makeEmulatedCudaBackend();
  const KernelInfo& first = kernelInfo(kLayerFirstGemm);
  const KernelInfo& second = kernelInfo("compact-wgmma-128");
  auto whole = [](int rows, int cols, std::uint64_t seed) {
    Matrix m = generate("uniform", Operand::A, rows, cols, 1.0, seed);
    for (float& v : m.values()) v = std::nearbyint(2.0f * v);
    return m;
  };
  for (DType dtype : {DType::Bf16, DType::Fp16}) {
    EXPECT_TRUE(backend->fusesLayer(first, second, dtype));
    for (auto [m, d, f, n] : {std::array{130, 40, 300, 24}, std::array{256, 33, 200, 20}}) {
      Matrix x = whole(m, d, 1), w1 = whole(d, f, 2);
      const Matrix w2 = whole(f, n, 3);
      for (int i = 0; i < m; ++i) x(i, d - 1) = 1.0f;
      // Neurons that fire less and less often, and every eleventh never: whole 128-row tiles of
      // columns dead, which the pattern must leave clear.
      for (int j = 0; j < f; ++j) w1(d - 1, j) = j % 11 == 0 ? -128.0f : -static_cast<float>(j % 7);
      for (bool relu : {true, false}) {
        const std::string where = std::string(dtypeName(dtype)) + (relu ? " relu " : " none ") + std::to_string(m) + "x" +
                                  std::to_string(d) + "x" + std::to_string(f) + "x" + std::to_string(n);
        Matrix h = referenceExact(x, w1);
        if (relu) applyActivation(h, Activation::Relu);
        const Matrix y = referenceExact(h, w2);

        std::unique_ptr<DeviceLayer> layer = backend->uploadLayer(x, w1, w2, dtype, relu, first, second);
        layer->run();
        const Matrix hDevice = layer->downloadH();
        EXPECT_EQ(std::memcmp(hDevice.data(), h.data(), h.bytes()), 0) << where;
        EXPECT_EQ(layer->downloadHPattern().bits, buildAPattern(h, second.aGranularity).bits) << where;
        const Matrix yDevice = layer->downloadY();
        EXPECT_EQ(std::memcmp(yDevice.data(), y.data(), y.bytes()), 0) << where;
        if (relu) {
          EXPECT_GT(h.nonZeroFraction(), 0.05) << where;
          EXPECT_LT(h.nonZeroFraction(), 0.6) << where;
          EXPECT_LT(buildAPattern(h, second.aGranularity).density(), 0.95) << where;
        }

        // The same through the layer use case: fused, verified, exact.
        MlpRequest request;
        request.x = x, request.w1 = w1, request.w2 = w2;
        request.dtype = dtype;
        request.activation = relu ? Activation::Relu : Activation::None;
        request.first = &first;
        request.second = &second;
        request.repeat = 2;
        MlpResult result = runMlp([&]() -> Backend& { return *backend; }, std::move(request));
        EXPECT_TRUE(result.layer.fused) << where;
        EXPECT_EQ(result.layer.second.prepareMs, 0.0) << where;
        EXPECT_TRUE(result.layer.first.verification && result.layer.first.verification->passed) << where;
        EXPECT_TRUE(result.layer.second.verification && result.layer.second.verification->passed) << where;
        EXPECT_EQ(std::memcmp(result.y.data(), y.data(), y.bytes()), 0) << where;
        EXPECT_DOUBLE_EQ(result.hiddenDensity, h.nonZeroFraction()) << where;

        // Fused with the neurons sorted by firing: the same Y (whole numbers: any order of the sum).
        MlpRequest sorted;
        sorted.x = x, sorted.w1 = w1, sorted.w2 = w2;
        sorted.dtype = dtype;
        sorted.activation = request.activation;
        sorted.first = &first;
        sorted.second = &second;
        sorted.reorder = true;
        MlpResult resorted = runMlp([&]() -> Backend& { return *backend; }, std::move(sorted));
        EXPECT_TRUE(resorted.layer.fused) << where;
        EXPECT_EQ(std::memcmp(resorted.y.data(), y.data(), y.bytes()), 0) << where;
        ASSERT_EQ(resorted.notes.size(), 1u) << where;
        EXPECT_EQ(resorted.notes[0].rfind("H·W2: sorted the neurons (W1's columns, W2's rows) by how many tokens fire each", 0), 0u)
            << resorted.notes[0];
      }
    }
  }
  // An H past fp16's range is the inputs' fault, said as such, verified or not.
  {
    Matrix x(128, 16), w1(16, 64), w2(64, 8);
    for (float& v : x.values()) v = 256.0f;
    for (float& v : w1.values()) v = 32.0f;  // X·W1 = 131072 > 65504
    MlpRequest request;
    request.x = x, request.w1 = w1, request.w2 = w2;
    request.dtype = DType::Fp16;
    request.first = &first;
    request.second = &second;
    request.verify = false;
    try {
      runMlp([&]() -> Backend& { return *backend; }, std::move(request));
      ADD_FAILURE() << "an H of Inf passed";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("where X and W1 are finite: its values pass fp16's largest finite value, 65504"),
                std::string::npos)
          << e.what();
    }
  }
  // Anything else runs as two multiplies.
  EXPECT_FALSE(backend->fusesLayer(first, kernelInfo("compact-mma-64"), DType::Bf16));  // its tiles are 64 rows
  EXPECT_FALSE(backend->fusesLayer(kernelInfo("mma"), second, DType::Bf16));
  EXPECT_FALSE(backend->fusesLayer(first, second, DType::Tf32));
  EXPECT_THROW(backend->uploadLayer(Matrix(4, 4), Matrix(4, 4), Matrix(4, 4), DType::Bf16, true, kernelInfo("mma"), second),
               InputError);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, EmulatedCudaKernel, ::testing::ValuesIn(twinIds()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The instance table is generated from the catalogue: every twin row in every dtype it takes, and
// nothing else, each instance pointing at the catalogue's own row.
TEST(CudaInstanceTable, HoldsEveryTwinRowInEveryDTypeItTakes) {
  std::size_t expected = 0;
  for (const KernelInfo& kernel : twinKernels()) {
    for (DType dtype : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
      if (!kernel.takes(dtype)) continue;
      ++expected;
      const cuda::GemmInstance* instance = tileskip::testing::findEmulatedInstance(kernel.id, dtype);
      ASSERT_NE(instance, nullptr) << kernel.id << " " << dtypeName(dtype);
      EXPECT_EQ(instance->row, &kernel) << kernel.id;
    }
  }
  EXPECT_EQ(tileskip::testing::emulatedInstanceCount(), expected);
}

// The 16-bit pattern builders give the host's patterns of the rounded values byte for byte, on
// shapes with partial row and column tiles, and on values that test the zero test itself: -0
// (zero), NaN and the smallest subnormal (not zero), a single non-zero, all zeros, dense.
TEST(CudaPatternKernels, FromHalvesEqualTheHostPatternsAtEveryGranularity) {
  struct Shape {
    int m, n, k;
  };
  auto adversarial = [](Matrix& x, int seed) {
    const float tiny = std::ldexp(1.0f, -24);  // fp16's smallest subnormal; bf16 holds it too
    const float specials[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), tiny, -tiny};
    for (int i = 0; i < 4; ++i) {
      const std::size_t at = (static_cast<std::size_t>(seed) * 7919u + static_cast<std::size_t>(i) * 104729u) % x.values().size();
      x.data()[at] = specials[i];
    }
  };
  // Under AddressSanitizer every fiber switch is costly and the largest shape took most of the
  // sanitizer suite's minute here; the smaller ones have every partial row tile and K-block.
  std::vector<Shape> shapes = {Shape{1, 8, 8}, Shape{67, 264, 136}, Shape{130, 72, 256}};
#if !defined(TILESKIP_ADDRESS_SANITIZER)
  shapes.push_back(Shape{200, 520, 264});
#endif
  for (DType dtype : {DType::Bf16, DType::Fp16}) {
    for (Shape s : shapes) {
      for (const char* content : {"blocks", "single", "zero", "dense"}) {
        GeneratorOptions options;
        options.block = 8;
        Matrix a = std::string(content) == "dense" ? generate("uniform", Operand::A, s.m, s.k, 1.0, 5)
                                                   : generate("segments", Operand::A, s.m, s.k, 0.3, 5, options);
        Matrix b = std::string(content) == "dense" ? generate("uniform", Operand::B, s.k, s.n, 1.0, 6)
                                                   : generate("segments", Operand::B, s.k, s.n, 0.3, 6, options);
        if (std::string(content) == "single" || std::string(content) == "zero") {
          std::fill(a.data(), a.data() + a.values().size(), 0.0f);
          std::fill(b.data(), b.data() + b.values().size(), 0.0f);
        }
        if (std::string(content) == "single") {
          a(s.m - 1, s.k - 1) = 1.0f;
          b(s.k - 1, s.n - 1) = -1.0f;
        }
        if (std::string(content) == "blocks") adversarial(a, 1), adversarial(b, 2);
        std::vector<std::uint16_t> aHalf, bHalf;
        for (float x : a.values()) aHalf.push_back(halfBits(dtype, x));
        for (float x : b.values()) bHalf.push_back(halfBits(dtype, x));
        // The host's patterns of what the 16-bit copies hold (the subnormal stays non-zero in both).
        Matrix aRounded(s.m, s.k), bRounded(s.k, s.n);
        for (std::size_t i = 0; i < aHalf.size(); ++i) aRounded.data()[i] = fromHalfBits(dtype, aHalf[i]);
        for (std::size_t i = 0; i < bHalf.size(); ++i) bRounded.data()[i] = fromHalfBits(dtype, bHalf[i]);
        const std::string where = std::string(dtypeName(dtype)) + " " + content + " " + std::to_string(s.m) + "x" +
                                  std::to_string(s.n) + "x" + std::to_string(s.k);
        ASSERT_TRUE(cuda::halvesPatternShape(s.k, s.n, 8)) << where;
        // One launch builds A's pattern, B's, or both (A's blocks first): each against the host's.
        auto build = [&](int rows, int cols, std::vector<std::uint8_t>* aPattern, std::vector<std::uint8_t>* bPattern) {
          const cuda::HalvesPatternGrid grid = cuda::halvesPatternGrid(s.m, s.k, s.n, rows, aPattern != nullptr, bPattern != nullptr);
          emu::launch(static_cast<unsigned>(grid.blocks()), cuda::kPatternThreads, [&] {
            cuda::halvesPatternKernel(cols)(aHalf.data(), bHalf.data(), s.m, s.k, s.n, rows, grid,
                                            aPattern != nullptr ? aPattern->data() : nullptr,
                                            bPattern != nullptr ? bPattern->data() : nullptr);
          });
        };
        for (int g : {1, 5, 8, 16, 64, 128}) {
          std::vector<std::uint8_t> pattern(patternBytes(s.m, s.k, g), 0xAB);  // garbage: every byte must be written
          build(g, 8, &pattern, nullptr);
          EXPECT_EQ(pattern, buildAPattern(aRounded, g).bits) << "A at " << g << ", " << where;
        }
        for (int g : {8, 16, 32, 64}) {
          std::vector<std::uint8_t> pattern(patternBytes(s.n, s.k, g), 0xAB);
          build(1, g, nullptr, &pattern);
          EXPECT_EQ(pattern, buildBPattern(bRounded, g).bits) << "B at " << g << ", " << where;
        }
        std::vector<std::uint8_t> aPattern(patternBytes(s.m, s.k, 64), 0xAB), bPattern(patternBytes(s.n, s.k, 64), 0xAB);
        build(64, 64, &aPattern, &bPattern);
        EXPECT_EQ(aPattern, buildAPattern(aRounded, 64).bits) << "A beside B, " << where;
        EXPECT_EQ(bPattern, buildBPattern(bRounded, 64).bits) << "B beside A, " << where;
      }
    }
  }
  // Rows that do not start on 16 bytes go to the fp32 builders.
  EXPECT_FALSE(cuda::halvesPatternShape(12, 64, 8));
  EXPECT_FALSE(cuda::halvesPatternShape(64, 60, 8));
  EXPECT_FALSE(cuda::halvesPatternShape(64, 64, 128));
}

TEST(CudaEmulator, RunsAUniformKernel) {
  std::vector<int> out(64, -1);
  emu::launch(1, 64, [&] { uniformKernel(out.data()); });
  // Lane l of warp w gets the ballot of lane l^1: bit j set where tile[63 - (32w + j)] is even.
  for (int t = 0; t < 64; ++t) {
    unsigned expected = 0;
    for (int j = 0; j < 32; ++j) expected |= ((63 - ((t / 32) * 32 + j)) % 2 == 0 ? 1u : 0u) << j;
    EXPECT_EQ(static_cast<unsigned>(out[t]), expected) << t;
  }
}

TEST(CudaEmulator, CatchesABarrierNotAllThreadsReach) {
  std::vector<int> out(64);
  EXPECT_THROW(emu::launch(1, 64, [&] { barrierInsideABranch(out.data()); }), std::logic_error);
  EXPECT_THROW(emu::launch(1, 64, [&] { barrierAfterAnEarlyExit(out.data()); }), std::logic_error);
}

TEST(CudaEmulator, CatchesACollectiveNotAllLanesReach) {
  std::vector<int> out(64);
  EXPECT_THROW(emu::launch(1, 64, [&] { collectiveInHalfAWarp(out.data()); }), std::logic_error);
}

TEST(CudaEmulator, SharedMemoryStartsAsNaN) {
  std::vector<float> out(64, 0.0f);
  emu::launch(2, 64, [&] { readsSharedMemoryItNeverWrote(out.data()); });
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(CudaEmulator, ATemplatedKernelsSharedMemoryStartsEachBlockAsNaN) {
  // Each block reads its array before writing ones to it: the second block must see NaN again.
  std::vector<float> out(2 * 64, 0.0f);
  emu::launch(2, 64, [&] { cuda::readsTemplateSharedItNeverWrote<64>(out.data()); });
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_TRUE(std::isnan(out[i])) << "output " << i << " = " << out[i];
}

// The CUDA twins' real kernels put each output in the thread that threadOutputs() names (the
// one rule per thread mapping the GLSL twins and the teaching model follow too). One block,
// one K-block of ones: the emulator runs one thread at a time, so the outputs that appear
// between two hand-overs are that thread's stores; each is cleared again, so an output a second
// thread stores shows up as well. The patterns clear one depth of every K-block, so the skipping
// kernels run their skipping path. (A warp-uniform block tile with nothing to skip runs K11's
// loop in K11's lane arrangement where the warp tile allows it (kernels/warp_uniform_skip.cuh, DenseTile):
// for joint-8x32 that path alone maps lanes as K11 does, and its GLSL twin does not. Known,
// kept for S7's dense-path speed; see docs/adding-a-kernel.md.)
TEST(LaneMap, CudaKernelsInEmulationPutEachOutputWhereTheCatalogueSays) {
  for (const KernelInfo& kernel : twinKernels()) {
    // Every instance: a tensor-core kernel's 16-bit one, and its tf32 one where it has one.
    for (DType dtype : {DType::Fp32, DType::Fp16, DType::Tf32}) {
      if (!kernel.takes(dtype) || (dtype == DType::Fp32) == kernel.usesTensorCores()) continue;
      const cuda::GemmInstance* instance = tileskip::testing::findEmulatedInstance(kernel.id, dtype);
      ASSERT_NE(instance, nullptr) << kernel.id;
      const TileShape& t = kernel.tile;
      const int m = t.BM, n = t.BN, k = kKBlock;
      std::vector<float> a(static_cast<std::size_t>(m) * k, 1.0f), b(static_cast<std::size_t>(k) * n, 1.0f);
      std::vector<float> c(static_cast<std::size_t>(m) * n, std::nanf(""));
      // The tensor-core kernels read A and B as 16-bit words (ones, exactly), tf32 B transposed (ones too).
      const std::vector<std::uint16_t> aHalf(a.size(), halfBits(DType::Fp16, 1.0f)), bHalf(b.size(), halfBits(DType::Fp16, 1.0f));
      std::vector<std::uint8_t> aPattern(patternBytes(m, k, std::max(kernel.aGranularity, 1)), 0x7F);
      std::vector<std::uint8_t> bPattern(patternBytes(n, k, std::max(kernel.bGranularity, 1)), 0x7F);
      unsigned tileQueue[2] = {0u, 0u};
      std::vector<int> stored(c.size(), -1);
      int twice = 0;
      // A compaction kernel reads A transposed: all ones as well, the same values as A.
      cuda::GemmOperands op{.a = a.data(), .b = b.data(), .c = c.data(), .dtype = dtype, .aHalf = aHalf.data(),
                            .bHalf = bHalf.data(), .bTransposed = b.data(), .aHalfTransposed = aHalf.data(),
                            .aTransposed = a.data(), .m = m, .n = n, .k = k, .aPattern = aPattern.data(),
                            .bPattern = bPattern.data(), .tileQueue = tileQueue};
      // A bsr kernel reads A packed: its one block row, of ones, kept.
      Matrix ones(m, k);
      ones.fill(1.0f);
      const BlockSparseMatrix packed =
          kernel.readsPackedA() ? packBlocks(ones, kernel.packedBlock(), kernel.usesTensorCores() ? DType::Fp16 : DType::Fp32) : BlockSparseMatrix{};
      const std::vector<std::int32_t> packedIndex = packed.packedIndexWords();
      op.packedValues = packed.values().data();
      op.packedIndex = packedIndex.data();
      op.packedBlockRows = packed.blockRows();
      op.packedKeptBlocks = packed.keptBlocks();
      const std::vector<std::uint16_t> packedWords = kernel.usesTensorCores() ? packed.halfWords() : std::vector<std::uint16_t>{};
      if (kernel.usesTensorCores()) op.packedValues = packedWords.data();
      // A streaming one its plan: the block row as one unit, which stores C itself.
      const BlockStreamPlan plan = kernel.readsPackedA() ? planBlockStream(packed, 1) : BlockStreamPlan{};
      unsigned counter = 0u;
      op.streamUnits = plan.words.data();
      op.streamUnitCount = plan.units;
      op.streamCounters = &counter;
      emu::launch(
          1, static_cast<unsigned>(t.threads), [&] { instance->call(op); },
          [&](unsigned thread) {
            for (std::size_t i = 0; i < c.size(); ++i) {
              if (std::isnan(c[i])) continue;
              twice += stored[i] >= 0;
              stored[i] = static_cast<int>(thread);
              c[i] = std::nanf("");
            }
          });
      const std::string name = std::string(kernel.id) + " (" + std::string(dtypeName(dtype)) + ")";
      EXPECT_EQ(twice, 0) << name << ": outputs stored by more than one thread";
      const std::vector<int> owners = outputOwners(kernel);
      int wrong = 0;
      for (std::size_t i = 0; i < owners.size(); ++i) {
        if (stored[i] == owners[i]) continue;
        if (wrong++ == 0) {
          ADD_FAILURE() << name << ": output (" << i / n << ", " << i % n << ") stored by thread " << stored[i]
                        << ", the catalogue's rule gives it to thread " << owners[i];
        }
      }
      EXPECT_EQ(wrong, 0) << name;
    }
  }
}
