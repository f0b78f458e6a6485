// inspect's statistics against a brute-force computation from the matrices themselves, and
// auto's choice where the answer is clear.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/model/generators.hpp"
#include "core/measure/inspect.hpp"
#include "core/model/pattern.hpp"
#include "core/model/problem.hpp"
#include "core/model/reorder.hpp"
#include "fake_backend.hpp"

namespace tileskip {
namespace {

// Whether A's pattern tile holding row `row` (tiles of `rows` rows) has a non-zero at column k;
// every row when rows is 0 (the operand is not inspected: nothing skipped for it).
bool aKeeps(const Matrix& a, int rows, int row, int k) {
  if (rows == 0) return true;
  const int first = row / rows * rows;
  for (int r = first; r < std::min(a.rows(), first + rows); ++r) {
    if (a(r, k) != 0.0f) return true;
  }
  return false;
}

bool bKeeps(const Matrix& b, int cols, int col, int k) {
  if (cols == 0) return true;
  const int first = col / cols * cols;
  for (int c = first; c < std::min(b.cols(), first + cols); ++c) {
    if (b(k, c) != 0.0f) return true;
  }
  return false;
}

// A packed A keeps (row, k) where the square block holding it has a non-zero: a bsr kernel
// multiplies a kept block whole.
bool blockKeeps(const Matrix& a, int block, int row, int k) {
  const int firstK = k / block * block;
  for (int d = firstK; d < std::min(a.cols(), firstK + block); ++d) {
    if (aKeeps(a, block, row, d)) return true;
  }
  return false;
}

struct BruteForce {
  double jointDensity, loadFraction;
  double gathered;  // a compaction kernel's: the share of K it gathers column by column, over the block tiles
};

// Element by element: the rank-1 updates kept for each output, and the share of the (block tile,
// K-block) pairs that the kernel copies.
BruteForce bruteForce(const KernelInfo& kernel, const Matrix& a, const Matrix& b) {
  const int m = a.rows(), n = b.cols(), k = a.cols(), aR = kernel.aGranularity, bC = kernel.bGranularity;
  double kept = 0.0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int d = 0; d < k; ++d) kept += (kernel.readsPackedA() ? blockKeeps(a, aR, i, d) : aKeeps(a, aR, i, d)) && bKeeps(b, bC, j, d);
    }
  }
  // A block tile copies its rows and columns a run of K-blocks deep where one of its outputs keeps
  // a product in the run; a compaction kernel's, each column one of its outputs keeps a product in.
  const int BM = kernel.tile.BM, BN = kernel.tile.BN, kBlocks = (k + 7) / 8, depth = kernel.loadKBlocks();
  double loaded = 0.0, pairs = 0.0, gathered = 0.0;
  for (int bi = 0; bi * BM < m; ++bi) {
    for (int bj = 0; bj * BN < n; ++bj) {
      if (kernel.compacts()) {
        // Its live columns, or a range of BK of them whole where at least wholeRangeColumns are live
        // (N a multiple of 8).
        const int range = kernel.tile.BK, whole = n % 8 == 0 ? kernel.structure.wholeRangeColumns : 0;
        int tileLive = 0, tileGathered = 0;
        for (int from = 0; from < k; from += range) {
          int live = 0;
          for (int d = from; d < std::min(k, from + range); ++d) {
            bool needed = false;
            for (int i = bi * BM; i < std::min(m, (bi + 1) * BM) && !needed; ++i) {
              if (!aKeeps(a, aR, i, d)) continue;
              for (int j = bj * BN; j < std::min(n, (bj + 1) * BN) && !needed; ++j) needed = bKeeps(b, bC, j, d);
            }
            live += needed;
          }
          loaded += whole > 0 && live >= whole ? std::min(k, from + range) - from : live;
          tileGathered += whole > 0 && live >= whole ? 0 : live;
          tileLive += live;
        }
        // A tile with every column live takes the dense path: the model counts it apart.
        if (tileLive < k) gathered += tileGathered;
        pairs += k;
        continue;
      }
      for (int first = 0; first < kBlocks; first += depth) {
        const int runEnd = std::min(kBlocks, first + depth);
        bool needed = false;
        for (int i = bi * BM; i < std::min(m, (bi + 1) * BM) && !needed; ++i) {
          for (int d = first * 8; d < std::min(k, runEnd * 8) && !needed; ++d) {
            if (!aKeeps(a, aR, i, d)) continue;
            for (int j = bj * BN; j < std::min(n, (bj + 1) * BN) && !needed; ++j) needed = bKeeps(b, bC, j, d);
          }
        }
        loaded += needed ? runEnd - first : 0;
      }
      pairs += kBlocks;
    }
  }
  return {kept / (static_cast<double>(m) * n * k), loaded / pairs, gathered / pairs};
}

TEST(Inspect, StatisticsMatchBruteForceOnOddShapes) {
  const SpeedModel model = SpeedModel::uncalibrated();
  struct Case {
    const char* generator;
    int m, n, k;
    double density;
    int block;
  };
  for (const Case& c : {Case{"segments", 77, 45, 29, 0.5, 8}, Case{"blocks", 150, 131, 70, 0.4, 32},
                        Case{"uniform", 33, 70, 17, 0.1, 8}, Case{"segments", 129, 200, 41, 0.3, 64},
                        // About half of each 64-column range live in 128-row tiles: some copied whole by S15, some gathered.
                        Case{"uniform", 136, 16, 200, 0.005, 8}}) {
    GeneratorOptions options;
    options.block = c.block;
    const Matrix a = generate(c.generator, Operand::A, c.m, c.k, c.density, 3, options);
    const Matrix b = generate(c.generator, Operand::B, c.k, c.n, c.density, 4, options);
    for (const KernelInfo& kernel : twinKernels()) {
      if (!kernel.skips()) continue;
      SCOPED_TRACE(std::string(c.generator) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                   std::to_string(c.k) + " " + std::string(kernel.id));
      const KernelInspection r = inspectKernel(a, b, kernel, model);
      const BruteForce expected = bruteForce(kernel, a, b);
      EXPECT_NEAR(r.jointDensity, expected.jointDensity, 1e-9);
      EXPECT_NEAR(r.idealSpeedup, 1.0 / expected.jointDensity, 1e-6);
      const double loads = kernel.divergent() ? 1.0 : expected.loadFraction;
      EXPECT_NEAR(r.loadBoundSpeedup, 1.0 / loads, 1e-9);
      EXPECT_NEAR(r.loadedFraction, loads, 1e-9);
      EXPECT_EQ(r.aGranularity, kernel.aGranularity);
      EXPECT_EQ(r.bGranularity, kernel.bGranularity);
      // A compaction kernel's partial feature is what it gathers column by column.
      if (kernel.compacts()) EXPECT_NEAR(r.features.partial, expected.gathered, 1e-9);
    }
  }
}

TEST(Inspect, AllZeroOperandLeavesNothingToDo) {
  Matrix a(40, 24), b = generate("uniform", Operand::B, 24, 50, 1.0, 1);
  const KernelInspection r = inspectKernel(a, b, kernelInfo("joint-32x32"), SpeedModel::uncalibrated());
  EXPECT_EQ(r.jointDensity, 0.0);
  EXPECT_TRUE(std::isinf(r.idealSpeedup));
  EXPECT_TRUE(std::isinf(r.loadBoundSpeedup));
  EXPECT_EQ(r.features.denseTiles, 0.0);
  EXPECT_EQ(r.features.loads, 0.0);
}

TEST(Inspect, DenseOperandsTakeTheDensePathEverywhere) {
  const Matrix a = generate("uniform", Operand::A, 256, 256, 1.0, 1), b = generate("uniform", Operand::B, 256, 256, 1.0, 2);
  for (const KernelInfo& kernel : twinKernels()) {
    const KernelInspection r = inspectKernel(a, b, kernel, SpeedModel::uncalibrated());
    EXPECT_EQ(r.features.denseTiles, 1.0) << kernel.id;
    EXPECT_EQ(r.jointDensity, 1.0) << kernel.id;
  }
}

// The twins an fp32 problem may run, as inspect offers them (the 16-bit kernels take other inputs).
std::vector<const KernelInfo*> fp32Twins() {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo& k : twinKernels()) {
    if (k.takes(DType::Fp32)) kernels.push_back(&k);
  }
  return kernels;
}

Recommendation recommendFor(const char* generator, double density, int block, int size = 512) {
  GeneratorOptions options;
  options.block = block;
  const Matrix a = generate(generator, Operand::A, size, size, density, 11, options);
  const Matrix b = generate(generator, Operand::B, size, size, density, 12, options);
  const std::vector<const KernelInfo*> kernels = fp32Twins();
  return inspectProblem(a, b, kernels, SpeedModel::uncalibrated(), summarizeOperand(a, "A"), summarizeOperand(b, "B"))
      .recommendation;
}

TEST(Inspect, UnstructuredZerosStayDense) {
  for (double density : {0.5, 0.1}) {
    const Recommendation r = recommendFor("uniform", density, 32);
    EXPECT_FALSE(r.kernel->skips()) << density << ": " << r.kernel->id << ": " << r.reason;
    EXPECT_NE(r.reason.find("stay dense"), std::string::npos) << r.reason;
  }
}

TEST(Inspect, BlockAlignedZerosPickASkippingKernel) {
  const Recommendation r = recommendFor("blocks", 0.25, 128);
  EXPECT_TRUE(r.kernel->skips()) << r.kernel->id << ": " << r.reason;
  EXPECT_NE(r.reason.find("predicted"), std::string::npos) << r.reason;
}

// The verdict for zeros spread over K (ReLU activations, 90 % of each token's neurons off, a few hot
// ones doing most of the firing) on the H200's 16-bit calibration: as generated, compaction's ranges
// all go whole and it is not enough over cuBLAS, and the verdict says what compaction would do and
// what sorting does; with K sorted by firing (what --reorder does for these zeros), it compacts.
TEST(Inspect, ZerosSpreadOverKAreCompactedOnceSorted) {
  const SpeedModel h200 = *SpeedModel::forInputs("cuda", "NVIDIA H200", true, DType::Bf16);
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo& k : kCatalogue) {
    if (k.takes(DType::Bf16) && !k.runs(VendorRoutine::CusparseCsrSpmm) && k.id != "cpu") kernels.push_back(&k);
  }
  GeneratorOptions options;
  options.skew = 2.5;
  const Matrix a = generate("neurons", Operand::A, 1024, 2048, 0.1, 31, options), b = generate("uniform", Operand::B, 2048, 512, 1.0, 32);
  const Inspection generated = inspectProblem(a, b, kernels, h200, summarizeOperand(a, "A"), summarizeOperand(b, "B"), DType::Bf16);
  EXPECT_TRUE(generated.recommendation.kernel->isVendorGemm()) << generated.recommendation.reason;
  EXPECT_NE(generated.recommendation.reason.find("stay dense"), std::string::npos) << generated.recommendation.reason;
  EXPECT_NE(generated.recommendation.reason.find("; compaction: compact-wgmma-128: 128-row tiles of A need 0."), std::string::npos)
      << generated.recommendation.reason;
  EXPECT_NE(generated.recommendation.reason.find("--reorder"), std::string::npos) << generated.recommendation.reason;

  const std::vector<int> order = firingOrder(a);
  const Matrix sortedA = permuteCols(a, order), sortedB = permuteRows(b, order);
  const Inspection sorted =
      inspectProblem(sortedA, sortedB, kernels, h200, summarizeOperand(sortedA, "A"), summarizeOperand(sortedB, "B"), DType::Bf16);
  ASSERT_TRUE(sorted.recommendation.kernel->compacts()) << sorted.recommendation.reason;
  EXPECT_EQ(sorted.recommendation.reason.rfind("compact: zeros spread over K, ", 0), 0u) << sorted.recommendation.reason;
  EXPECT_NE(sorted.recommendation.reason.find("x cublas)"), std::string::npos) << sorted.recommendation.reason;
}

// A kernel that skips per thread diverges within its warps, which the model does not see: on
// the H200's calibration it predicts a-row ahead on unstructured pruning, where the lesson measures
// it slower. It is named, never chosen.
TEST(Inspect, ADivergentKernelIsNamedButNeverChosen) {
  const SpeedModel h200 = *SpeedModel::forInputs("cuda", "NVIDIA H200", true, DType::Fp32);
  // Among the tile-skipping kernels: where zeros are this spread out, compaction is ahead of both.
  std::vector<const KernelInfo*> kernels = fp32Twins();
  std::erase_if(kernels, [](const KernelInfo* k) { return k->compacts(); });
  int divergentAhead = 0;
  for (double density : {0.02, 0.05, 0.1, 0.3}) {
    const Matrix a = generate("uniform", Operand::A, 512, 512, density, 21), b = generate("uniform", Operand::B, 512, 512, 1.0, 22);
    const Inspection r = inspectProblem(a, b, kernels, h200, summarizeOperand(a, "A"), summarizeOperand(b, "B"));
    EXPECT_FALSE(r.recommendation.kernel->divergent()) << density << ": " << r.recommendation.reason;
    double chosen = 0.0, divergent = 0.0;
    for (const KernelInspection& k : r.kernels) {
      if (k.kernel == r.recommendation.kernel) chosen = k.predictedSpeedup;
      if (k.kernel->divergent()) divergent = std::max(divergent, k.predictedSpeedup);
    }
    const bool ahead = divergent > kSkipMargin * chosen;
    divergentAhead += ahead;
    EXPECT_EQ(r.recommendation.reason.find("skips per thread") != std::string::npos, ahead) << density << ": " << r.recommendation.reason;
  }
  EXPECT_GT(divergentAhead, 0) << "no case where the model puts a divergent kernel ahead: the test proves nothing";
}

// A verdict names the operand whose tiles it means; where A is this sparse it names CSR SpMM
// (measured by auto where the device has it); 2:4 weights get the hardware that runs them.
TEST(Inspect, VerdictsNameTheOperandCsrAndTwoFour) {
  const Recommendation blocks = recommendFor("blocks", 0.25, 128);
  EXPECT_NE(blocks.reason.find("-row tiles of A and "), std::string::npos) << blocks.reason;
  EXPECT_NE(blocks.reason.find("-column tiles of B"), std::string::npos) << blocks.reason;

  const Matrix sparse = generate("uniform", Operand::A, 256, 256, 0.05, 3), dense = generate("uniform", Operand::B, 256, 256, 1.0, 4);
  std::vector<const KernelInfo*> kernels = fp32Twins();
  const Inspection withoutCsr =
      inspectProblem(sparse, dense, kernels, SpeedModel::uncalibrated(), summarizeOperand(sparse, "A"), summarizeOperand(dense, "B"));
  EXPECT_NE(withoutCsr.recommendation.reason.find(" % zeros, where CSR SpMM (cusparse-csr) can beat any tile: on a CUDA GPU"),
            std::string::npos)
      << withoutCsr.recommendation.reason;
  // A's zeros are the ones that matter here: the reason is about A's tiles, never about a kernel
  // that skips only B's (dense) ones.
  EXPECT_NE(withoutCsr.recommendation.reason.find("tiles of A"), std::string::npos) << withoutCsr.recommendation.reason;
  for (const KernelInfo* k : fp32Twins()) {
    if (k->usesBPattern() && !k->usesAPattern()) {
      EXPECT_EQ(withoutCsr.recommendation.reason.find(std::string(k->id) + " "), std::string::npos) << withoutCsr.recommendation.reason;
    }
  }
  kernels.push_back(&kernelInfo("cusparse-csr"));
  const Inspection withCsr =
      inspectProblem(sparse, dense, kernels, SpeedModel::uncalibrated(), summarizeOperand(sparse, "A"), summarizeOperand(dense, "B"));
  if (!withCsr.recommendation.kernel->runs(VendorRoutine::CusparseCsrSpmm)) {
    EXPECT_NE(withCsr.recommendation.reason.find("auto measures it on a GPU"), std::string::npos) << withCsr.recommendation.reason;
  }
  // In bf16 no pointer to the fp32-only CSR SpMM: the tensor cores' dense product outruns it.
  std::vector<const KernelInfo*> sixteenBit;
  for (const KernelInfo& k : kCatalogue) {
    if (k.takes(DType::Bf16) && !k.isBaseline()) sixteenBit.push_back(&k);
  }
  ASSERT_FALSE(sixteenBit.empty());
  ASSERT_FALSE(kernelInfo("cusparse-csr").takes(DType::Bf16));
  const Inspection bf16 = inspectProblem(sparse, dense, sixteenBit, SpeedModel::uncalibrated(), summarizeOperand(sparse, "A"),
                                         summarizeOperand(dense, "B"), DType::Bf16);
  EXPECT_EQ(bf16.dtype, DType::Bf16);
  EXPECT_EQ(bf16.recommendation.reason.find("CSR"), std::string::npos) << bf16.recommendation.reason;
  const Matrix quarter = generate("uniform", Operand::A, 256, 256, 0.25, 5);
  const Inspection notSparse =
      inspectProblem(quarter, dense, fp32Twins(), SpeedModel::uncalibrated(), summarizeOperand(quarter, "A"), summarizeOperand(dense, "B"));
  EXPECT_EQ(notSparse.recommendation.reason.find("CSR"), std::string::npos) << notSparse.recommendation.reason;

  const Recommendation twoFour = recommendFor("nm", 0.5, 32);
  EXPECT_NE(twoFour.reason.find("A is 2:4 sparse along K"), std::string::npos) << twoFour.reason;
  EXPECT_NE(twoFour.reason.find("cuSPARSELt"), std::string::npos) << twoFour.reason;
  const Recommendation half = recommendFor("uniform", 0.5, 32);
  EXPECT_EQ(half.reason.find("2:4"), std::string::npos) << half.reason;
}

TEST(Inspect, NarrowBlocksPickAKernelWhoseBlocksFitThem) {
  // 64-wide zero blocks: a 128 x 128 block still loads most K-blocks, a 64 x 64 one does not.
  GeneratorOptions options;
  options.block = 64;
  const Matrix a = generate("blocks", Operand::A, 512, 512, 0.5, 5, options);
  const Matrix b = generate("blocks", Operand::B, 512, 512, 0.5, 6, options);
  const SpeedModel model = SpeedModel::uncalibrated();
  const KernelInspection wide = inspectKernel(a, b, kernelInfo("joint-64x32"), model);
  const KernelInspection fitted = inspectKernel(a, b, kernelInfo("warp-joint-64x64"), model);
  EXPECT_GT(fitted.loadBoundSpeedup, 1.5 * wide.loadBoundSpeedup);
  EXPECT_GT(fitted.predictedSpeedup, wide.predictedSpeedup);
}

// fp16 and bf16 inputs have their own calibration (relative to mma), the H100's standing in on
// another GPU of the same backend; nothing ranks a precision no calibration measured.
TEST(SpeedModel, SixteenBitInputsHaveTheirOwnCalibration) {
  const std::optional<SpeedModel> h100 = SpeedModel::forInputs("cuda", "NVIDIA H100 80GB HBM3", true, DType::Bf16);
  ASSERT_TRUE(h100.has_value());
  EXPECT_TRUE(h100->calibrated());
  EXPECT_NE(h100->name().find("16-bit"), std::string::npos) << h100->name();
  EXPECT_NE(h100->coefficients("wgmma-queue-joint-64x64"), nullptr);
  EXPECT_EQ(h100->coefficients("pipelined"), nullptr) << "an fp32 default is no 16-bit prediction";
  EXPECT_DOUBLE_EQ(h100->predictedSpeedup(kernelInfo("mma"), SkipFeatures{}), 1.0);  // the unit: mma
  EXPECT_GT(h100->predictedSpeedup(kernelInfo("wgmma"), SkipFeatures{}), 2.0);
  // A row the H100's runs never timed comes from the H200's fit, and the name says so.
  EXPECT_NE(h100->coefficients("wgmma-queue-wide-64x64"), nullptr);
  EXPECT_NE(h100->name().find("the H200's"), std::string::npos) << h100->name();
  const std::optional<SpeedModel> h200 = SpeedModel::forInputs("cuda", "NVIDIA H200", true, DType::Fp16);
  ASSERT_TRUE(h200.has_value());
  EXPECT_TRUE(h200->calibrated());
  EXPECT_NE(h200->name().find("H200 CUDA 16-bit"), std::string::npos) << h200->name();
  const std::optional<SpeedModel> a100 = SpeedModel::forInputs("cuda", "NVIDIA A100-SXM4-80GB", true, DType::Fp16);
  ASSERT_TRUE(a100.has_value());
  EXPECT_FALSE(a100->calibrated());
  EXPECT_NE(a100->name().find("stand-in"), std::string::npos) << a100->name();
  EXPECT_FALSE(SpeedModel::forInputs("vulkan", "NVIDIA H100 80GB HBM3", true, DType::Fp16).has_value());
  EXPECT_FALSE(SpeedModel::forInputs("cuda", "NVIDIA H100 80GB HBM3", true, DType::Tf32).has_value());
  EXPECT_FALSE(SpeedModel::forInputs("cuda", "CUDA kernels emulated on the CPU", false, DType::Bf16).has_value());
  EXPECT_EQ(SpeedModel::forInputs("cuda", "NVIDIA H100", true, DType::Fp32)->name(),
            SpeedModel::forDevice("cuda", "NVIDIA H100", true).name());
}

// On a device with a 16-bit calibration, inspect ranks bf16 kernels as it ranks fp32 ones: on
// joint zeros in 128-blocks the skipping tensor-core kernel over cuBLAS, with finite predictions.
TEST(Inspect, RanksSixteenBitKernelsWhereTheDeviceHasTheirCalibration) {
  tileskip::testing::FakeFaults faults;
  faults.deviceName = "NVIDIA H100 80GB HBM3";
  tileskip::testing::FakeBackend cuda(faults, "cuda");
  GeneratorOptions blocks;
  blocks.block = 128;
  Matrix a = generate("blocks", Operand::A, 1024, 1024, 0.25, 3, blocks);
  Matrix b = generate("blocks", Operand::B, 1024, 1024, 0.25, 4, blocks);
  roundMatrix(a, DType::Bf16);
  roundMatrix(b, DType::Bf16);
  const Inspection r = inspectOnBackend(cuda, a, b, "a", "b", DType::Bf16);
  EXPECT_TRUE(r.ranked);
  EXPECT_NE(r.modelName.find("16-bit"), std::string::npos) << r.modelName;
  for (const KernelInspection& k : r.kernels) EXPECT_TRUE(std::isfinite(k.predictedSpeedup)) << k.kernel->id;
  ASSERT_NE(r.recommendation.kernel, nullptr);
  EXPECT_EQ(r.recommendation.kernel->id, "mma-joint-64x32") << r.recommendation.reason;
  const nlohmann::json json = nlohmann::json::parse(inspectionJson(r, cuda));
  for (const auto& k : json["kernels"]) EXPECT_TRUE(k["predicted_speedup"].is_number()) << k["kernel"];
  // The same operands dense: cuBLAS, the fastest dense kernel by the model, and no skip.
  Matrix dense = generate("uniform", Operand::A, 1024, 1024, 1.0, 5);
  roundMatrix(dense, DType::Bf16);
  EXPECT_EQ(inspectOnBackend(cuda, dense, dense, "a", "b", DType::Bf16).recommendation.kernel->id, "cublas");
}

TEST(SpeedModel, FallsBackToTheSameBackendThenToDefaults) {
  EXPECT_TRUE(SpeedModel::forDevice("cuda", "NVIDIA H200", true).calibrated());
  EXPECT_TRUE(SpeedModel::forDevice("vulkan", "NVIDIA H200", true).calibrated());
  EXPECT_NE(SpeedModel::forDevice("cuda", "NVIDIA H100 80GB HBM3", true).name().find("H100 CUDA"), std::string::npos);
  EXPECT_NE(SpeedModel::forDevice("vulkan", "NVIDIA H100 80GB HBM3", true).name().find("H100 Vulkan"), std::string::npos);
  // The H200 keeps its own dense rows and borrows the H100's for the kernels it has none of.
  const SpeedModel h200 = SpeedModel::forDevice("vulkan", "NVIDIA H200", true), h100 = SpeedModel::forDevice("vulkan", "NVIDIA H100", true);
  EXPECT_EQ(h200.coefficients("warp-joint-64x64"), h100.coefficients("warp-joint-64x64"));
  EXPECT_NE(h200.coefficients("hoisted"), h100.coefficients("hoisted"));
  EXPECT_NE(h200.name().find("the H100's"), std::string::npos) << h200.name();
  const SpeedModel other = SpeedModel::forDevice("cuda", "Some Future GPU", true);
  EXPECT_FALSE(other.calibrated());
  EXPECT_NE(other.name().find("Some Future GPU"), std::string::npos) << other.name();
  EXPECT_FALSE(SpeedModel::forDevice("nothing", "none", true).calibrated());
  // A CPU device is nothing like a GPU: it gets the defaults, not another device's calibration.
  EXPECT_EQ(SpeedModel::forDevice("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", false).name(), "uncalibrated defaults");
  // The dense reference is the unit of every prediction.
  EXPECT_DOUBLE_EQ(SpeedModel::uncalibrated().predictedSpeedup(kernelInfo("pipelined"), SkipFeatures{}), 1.0);
}

}  // namespace
}  // namespace tileskip
