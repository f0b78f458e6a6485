// The lesson's model (ui/lesson.hpp), without drawing: what each dense view shows is computed
// from the catalogue row's structure and threadOutputs(), and it says what the lesson says: K1's
// warp is uncoalesced in A, K2's in neither; shared memory and register tiles cut loads per FMA;
// a warp tile is 4 x 8 lanes over its sub-tiles; two stages take one barrier. Also the presenter's
// keys, the range checks behind exit 2, and the recorded GPU figures the viewer embeds.
#include <gtest/gtest.h>

#include "core/model/generators.hpp"
#include "core/model/problem.hpp"
#include "ui/lesson.hpp"
#include "ui/live_session.hpp"
#include "ui/recorded_figures.hpp"

using namespace tileskip;
using namespace tileskip::ui;

TEST(Lesson, EachDenseKernelTeachesItsOwnStepAndSkippingKernelsTheWalk) {
  EXPECT_EQ(lessonView(kernelInfo("naive")), TeachView::Coalescing);
  EXPECT_EQ(lessonView(kernelInfo("coalesced")), TeachView::Coalescing);
  EXPECT_EQ(lessonView(kernelInfo("smem")), TeachView::SharedReuse);
  EXPECT_EQ(lessonView(kernelInfo("blocktile1d")), TeachView::Registers);
  EXPECT_EQ(lessonView(kernelInfo("vectorized")), TeachView::Registers);
  EXPECT_EQ(lessonView(kernelInfo("warptile")), TeachView::WarpTile);
  EXPECT_EQ(lessonView(kernelInfo("pipelined")), TeachView::Pipeline);
  EXPECT_EQ(lessonView(kernelInfo("hoisted")), TeachView::Pipeline);
  EXPECT_EQ(lessonView(kernelInfo("mma")), TeachView::Mma);
  EXPECT_EQ(lessonView(kernelInfo("wgmma")), TeachView::Mma);
  for (const KernelInfo& k : twinKernels()) {
    if (k.skips()) {
      EXPECT_EQ(lessonView(k), TeachView::Walk) << k.id;
    }
    EXPECT_FALSE(teachViewProblem(k, lessonView(k))) << k.id;
    EXPECT_FALSE(teachViewProblem(k, TeachView::Walk)) << k.id;
  }
  // Views that cannot describe a kernel say why.
  ASSERT_TRUE(teachViewProblem(kernelInfo("pipelined"), TeachView::Coalescing));
  EXPECT_NE(teachViewProblem(kernelInfo("pipelined"), TeachView::Coalescing)->find("shared memory"), std::string::npos);
  EXPECT_TRUE(teachViewProblem(kernelInfo("blocktile2d"), TeachView::WarpTile));
  // The tensor cores' view: every kernel on them (the skipping ones too), no other.
  for (const KernelInfo& k : kCatalogue) {
    EXPECT_EQ(!teachViewProblem(k, TeachView::Mma), k.usesTensorCores()) << k.id;
  }
  ASSERT_TRUE(teachViewProblem(kernelInfo("pipelined"), TeachView::Mma));
  EXPECT_NE(teachViewProblem(kernelInfo("pipelined"), TeachView::Mma)->find("mma-joint-64x32"), std::string::npos);
  for (std::string_view name : {"walk", "coalescing", "smem", "registers", "warp", "pipeline", "mma"}) {
    ASSERT_TRUE(parseTeachView(name)) << name;
    EXPECT_EQ(teachViewName(*parseTeachView(name)), name);
  }
  EXPECT_FALSE(parseTeachView("slides"));
}

TEST(Lesson, K1sWarpReadsAUncoalescedAndK2sReadsItAsABroadcast) {
  const int n = 1024, k = 1024;
  std::vector<WarpAccess> naive = warpGlobalAccesses(kernelInfo("naive"), n, n, k, 0, 5);
  ASSERT_EQ(naive.size(), 3u);
  // 16 rows x 2 columns: A in 16 rows, 4 KiB apart; B at 2 neighbouring floats; C in 16 rows.
  EXPECT_EQ(naive[0].addresses, 16);
  EXPECT_EQ(naive[0].sectors, 16);
  EXPECT_EQ(naive[0].transactions, 16);
  EXPECT_EQ(naive[1].addresses, 2);
  EXPECT_EQ(naive[1].sectors, 1);
  EXPECT_EQ(naive[2].sectors, 16);
  EXPECT_EQ(naive[0].laneBytes[1] - naive[0].laneBytes[0], 4LL * k);  // neighbouring lanes: one row apart
  EXPECT_EQ(naive[0].laneBytes[0], 5 * 4);                             // lane 0: A[0][5]

  std::vector<WarpAccess> coalesced = warpGlobalAccesses(kernelInfo("coalesced"), n, n, k, 0, 5);
  EXPECT_EQ(coalesced[0].addresses, 2);  // 2 rows: one address each, shared by 16 lanes
  EXPECT_EQ(coalesced[1].addresses, 16);
  EXPECT_EQ(coalesced[1].sectors, 2);    // 64 consecutive bytes
  EXPECT_DOUBLE_EQ(coalesced[1].efficiency(), 1.0);
  EXPECT_EQ(coalesced[2].sectors, 4);
  EXPECT_LT(coalesced[0].sectors + coalesced[2].sectors, naive[0].sectors + naive[2].sectors);
  // A warp past the matrix's edge has lanes without outputs.
  std::vector<WarpAccess> edge = warpGlobalAccesses(kernelInfo("naive"), 8, 8, 8, 0, 0);
  EXPECT_EQ(edge[0].laneBytes[8], -1);
  EXPECT_EQ(edge[0].addresses, 8);
}

TEST(Lesson, SharedMemoryAndRegisterTilesCutLoadsPerFma) {
  ReuseFigures naive = reuseFigures(kernelInfo("naive"));
  EXPECT_DOUBLE_EQ(naive.globalLoadsPerFma, 2.0);
  EXPECT_EQ(naive.stageFloats, 0);
  ReuseFigures smem = reuseFigures(kernelInfo("smem"));  // 32 x 32 x 32, one output per thread
  EXPECT_DOUBLE_EQ(smem.globalLoadsPerFma, 1.0 / 16.0);
  EXPECT_EQ(smem.aReuse, 32);
  EXPECT_EQ(smem.stageFloats, 2048);
  EXPECT_DOUBLE_EQ(smem.sharedLoadsPerFma, 2.0);
  ReuseFigures column = reuseFigures(kernelInfo("blocktile1d"));  // a column of 8 outputs
  EXPECT_EQ(column.outputsPerThread, 8);
  EXPECT_DOUBLE_EQ(column.sharedLoadsPerFma, 9.0 / 8.0);
  ReuseFigures tile = reuseFigures(kernelInfo("blocktile2d"));  // 8 x 8
  EXPECT_EQ(tile.outputsPerThread, 64);
  EXPECT_DOUBLE_EQ(tile.sharedLoadsPerFma, 0.25);
  ReuseFigures warp = reuseFigures(kernelInfo("warptile"));  // 2 x 2 sub-tiles of 8 x 4
  EXPECT_EQ(warp.threadRows, 16);
  EXPECT_EQ(warp.threadCols, 8);
  EXPECT_DOUBLE_EQ(warp.sharedLoadsPerFma, 24.0 / 128.0);
}

TEST(Lesson, AWarpTilesLanesFormAFourByEightGridOverEachSubTile) {
  const KernelInfo& kernel = kernelInfo("warptile");
  std::vector<LaneTile> lanes = warpLanes(kernel, 1);  // warp 1: columns 64..127 of the block
  ASSERT_EQ(lanes.size(), 32u);
  for (const LaneTile& l : lanes) {
    ASSERT_EQ(l.rects.size(), 4u);  // 2 x 2 sub-tiles
    EXPECT_EQ(l.rects[0].rows, kernel.tile.TM);
    EXPECT_EQ(l.rects[0].cols, kernel.tile.TN);
    EXPECT_GE(l.rects[0].col, 64);
  }
  // Lane 9 is row 1, column 1 of the lane grid.
  EXPECT_EQ(lanes[9].rects[0].row - lanes[0].rects[0].row, kernel.tile.TM);
  EXPECT_EQ(lanes[9].rects[0].col - lanes[0].rects[0].col, kernel.tile.TN);
}

TEST(Lesson, TwoStagesOverlapTheLoadsWithTheFmasAndNeedOneBarrier) {
  std::vector<PipelineSlot> one = pipelineTimeline(1, 6), two = pipelineTimeline(2, 6);
  EXPECT_DOUBLE_EQ(one.back().computeEnd, 12.0);
  EXPECT_DOUBLE_EQ(two.back().computeEnd, 7.0);
  for (std::size_t t = 1; t < two.size(); ++t) {
    EXPECT_DOUBLE_EQ(two[t].loadBegin, two[t - 1].computeBegin) << "K-tile " << t << " loads while the previous computes";
    EXPECT_NE(two[t].buffer, two[t - 1].buffer);
  }
  EXPECT_EQ(barriersPerKTile(1), 2);
  EXPECT_EQ(barriersPerKTile(2), 1);
  // K11 (BK = 8): K-block 3 is K-tile 3, buffer 1 of 2; K3 (BK = 32): K-block 5 is K-tile 1 of one stage.
  StageLabel pipelined = stageLabel(kernelInfo("pipelined"), 3);
  EXPECT_EQ(pipelined.kTile, 3);
  EXPECT_EQ(pipelined.buffer, 1);
  EXPECT_EQ(pipelined.stages, 2);
  StageLabel smem = stageLabel(kernelInfo("smem"), 5);
  EXPECT_EQ(smem.kTile, 1);
  EXPECT_EQ(smem.stages, 1);
  EXPECT_EQ(stageLabel(kernelInfo("naive"), 5).stages, 0);
}

TEST(Lesson, PresenterKeysStepTheWalkAndStopAtItsEnds) {
  EXPECT_EQ(steppedKBlock(3, 10, PresenterKey::PageDown), 4);
  EXPECT_EQ(steppedKBlock(3, 10, PresenterKey::Space), 4);
  EXPECT_EQ(steppedKBlock(3, 10, PresenterKey::Right), 4);
  EXPECT_EQ(steppedKBlock(3, 10, PresenterKey::PageUp), 2);
  EXPECT_EQ(steppedKBlock(3, 10, PresenterKey::Left), 2);
  EXPECT_EQ(steppedKBlock(9, 10, PresenterKey::PageDown), 9);
  EXPECT_EQ(steppedKBlock(0, 10, PresenterKey::PageUp), 0);
  EXPECT_EQ(steppedKBlock(4, 10, PresenterKey::Home), 0);
  EXPECT_EQ(steppedKBlock(4, 10, PresenterKey::End), 9);
  EXPECT_EQ(presenterKeyOf("pagedown"), PresenterKey::PageDown);
  EXPECT_EQ(presenterKeyOf("Space"), PresenterKey::Space);
  EXPECT_FALSE(presenterKeyOf("F5"));
}

TEST(Lesson, OutOfRangeTeachingSettingsNameTheValidRange) {
  const KernelInfo& kernel = kernelInfo("joint-8x32");  // 128 x 128 blocks
  EXPECT_FALSE(teachBlockProblem(kernel, 512, 512, {3, 3}));
  auto block = teachBlockProblem(kernel, 512, 512, {99, 99});
  ASSERT_TRUE(block);
  EXPECT_NE(block->find("ROW 0..3, COL 0..3"), std::string::npos) << *block;
  EXPECT_TRUE(teachBlockProblem(kernel, 512, 640, {0, 5}));
  EXPECT_FALSE(teachBlockProblem(kernel, 512, 640, {0, 4}));
  EXPECT_FALSE(teachKBlockProblem(512, 63));
  auto kBlock = teachKBlockProblem(512, 64);
  ASSERT_TRUE(kBlock);
  EXPECT_NE(kBlock->find("0..63"), std::string::npos) << *kBlock;
  EXPECT_FALSE(tileProblem(kernel, 512, 512, {63, 15}));  // 8 x 32 pattern tiles
  EXPECT_TRUE(tileProblem(kernel, 512, 512, {64, 0}));
}

namespace {

// A 256^3 problem, both operands at density 0.5 with zeros of `granularity`.
ProblemSpec halfEmpty(const char* generator, int granularity, DType dtype = DType::Fp32) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 256;
  spec.generator = generator;
  spec.densityA = spec.densityB = 0.5;
  spec.options.block = granularity;
  spec.dtype = dtype;
  return spec;
}

}  // namespace

TEST(Lesson, FactsCarryTheFiguresTheDocQuotes) {
  ProblemSpec spec = halfEmpty("segments", 8);
  ProblemData data = generateProblem(spec);
  const KernelInfo& kernel = kernelInfo("a-row");
  auto analysis = analyseProblem(spec, data, kernel, 8);
  nlohmann::json facts = lessonFacts(*analysis, analysis->teachBlock, -1, TeachView::Walk);
  EXPECT_EQ(facts["kernel"], "a-row");
  EXPECT_NEAR(facts["skip_map"]["joint_density"].get<double>(), analysis->skipMap.stats.jointDensity, 1e-12);
  EXPECT_EQ(facts["teach"]["warp_rows"], 16);   // 8 x 8 thread tiles, 16 lanes along N
  EXPECT_EQ(facts["teach"]["warp_cols"], 128);
  EXPECT_GT(facts["teach"]["walk"]["divergent_steps"].get<int>(), 0);
  // The default K-block is the first where warps diverge or disagree.
  BlockWalk walk(kernel, analysis->kernelPatterns, analysis->teachBlock.first, analysis->teachBlock.second);
  EXPECT_EQ(facts["teach"]["kblock"].get<int>(), firstInstructiveKBlock(walk));
  EXPECT_FALSE(facts["dense"].contains("coalescing"));  // a-row stages its operands
}

TEST(Lesson, FactsOfATensorCoreKernelCountItsFragmentsAndTheMmasItsBlockIssues) {
  ProblemSpec spec = halfEmpty("blocks", 64, DType::Fp16);
  ProblemData data = generateProblem(spec);
  auto facts = [&](std::string_view id) {
    auto analysis = analyseProblem(spec, data, kernelInfo(id), 64);
    return lessonFacts(*analysis, analysis->teachBlock, -1, TeachView::Mma);
  };
  nlohmann::json dense = facts("mma");
  EXPECT_EQ(dense["dense"]["mma"]["instruction"], "16x8x16");
  EXPECT_EQ(dense["dense"]["mma"]["fragments"]["a"]["values_per_lane"], 8);
  EXPECT_EQ(dense["dense"]["mma"]["fragments"]["a"]["registers_per_lane"], 4);
  EXPECT_EQ(dense["dense"]["mma"]["fragments"]["b"]["registers_per_lane"], 2);
  EXPECT_EQ(dense["dense"]["mma"]["fragments"]["c"]["values_per_lane"], 4);
  EXPECT_EQ(dense["dense"]["mma"]["mmas_per_step"], 16);  // a 64 x 32 warp tile: 4 x 4 tiles of 16 x 8
  EXPECT_EQ(dense["teach"]["mma"]["mmas_issued"], dense["teach"]["mma"]["dense_mmas"]);
  EXPECT_EQ(dense["teach"]["mma"]["steps"], 16);  // K = 256, 16 deep a step
  // S10 on half-empty 64 x 64 blocks: fewer steps and MMAs than dense, and never one more.
  nlohmann::json skipping = facts("mma-joint-64x32");
  EXPECT_LT(skipping["teach"]["mma"]["mmas_issued"].get<long long>(), skipping["teach"]["mma"]["dense_mmas"].get<long long>());
  EXPECT_LE(skipping["teach"]["mma"]["steps"].get<int>(), 16);
  // A warpgroup MMA reads A and B from shared memory: only C is in the lanes' registers, 4 per 16 x 8 tile of 256 columns.
  nlohmann::json hopper = facts("wgmma");
  EXPECT_EQ(hopper["dense"]["mma"]["instruction"], "64x256x16");
  EXPECT_EQ(hopper["dense"]["mma"]["fragments"]["a"]["values_per_lane"], 0);
  EXPECT_EQ(hopper["dense"]["mma"]["fragments"]["c"]["values_per_lane"], 128);
  EXPECT_EQ(hopper["dense"]["mma"]["mmas_per_step"], 4);  // a 64-deep K-tile in 16-deep instructions
  // A kernel on FMAs has no such figures.
  spec.dtype = DType::Fp32;
  auto analysis = analyseProblem(spec, generateProblem(spec), kernelInfo("pipelined"), 64);
  EXPECT_FALSE(lessonFacts(*analysis, {0, 0}, 0, TeachView::Pipeline)["dense"].contains("mma"));
}

TEST(RecordedFigures, TheEmbeddedLadderNamesItsDeviceDateAndRecord) {
  const RecordedFigures& f = recordedFigures();
  EXPECT_EQ(f.device, "NVIDIA H200");
  EXPECT_EQ(f.date.size(), 10u);
  EXPECT_EQ(f.source.rfind("bench/results/", 0), 0u);
  EXPECT_EQ(f.size, 4096);
  std::vector<RecordedKernel> cuda = f.of("cuda");
  ASSERT_GE(cuda.size(), 10u);
  EXPECT_EQ(cuda.front().kernel, "naive");  // catalogue order, the dense ladder to K12, then cuBLAS
  EXPECT_EQ(cuda[cuda.size() - 2].kernel, "hoisted");
  EXPECT_EQ(cuda.back().kernel, "cublas");
  // Numbers come from the catalogue, never from the record: K10 is warptile whatever a record said.
  for (const RecordedKernel& k : cuda) {
    EXPECT_EQ(k.label(), k.kernel == "cublas" ? std::string("cuBLAS") : std::string(kernelInfo(k.kernel).number)) << k.kernel;
  }
  // The tensor-core rungs in their own precision, beside cuBLAS in it.
  std::vector<RecordedKernel> bf16 = f.of("cuda", "bf16");
  ASSERT_EQ(bf16.size(), 3u);
  EXPECT_EQ(bf16[0].kernel, "mma");
  EXPECT_EQ(bf16[1].kernel, "wgmma");
  EXPECT_EQ(bf16[2].kernel, "cublas");
  EXPECT_LT(bf16[0].gflops, bf16[1].gflops);
  // On the GPU the ladder reads the right way where lavapipe's does not: K1 < K2 < K3 < K5 < K11.
  auto gflops = [&](std::string_view id) {
    for (const RecordedKernel& k : cuda) {
      if (k.kernel == id) return k.gflops;
    }
    return 0.0;
  };
  EXPECT_LT(gflops("naive"), gflops("coalesced"));
  EXPECT_LT(gflops("coalesced"), gflops("smem"));
  EXPECT_LT(gflops("smem"), gflops("blocktile2d"));
  EXPECT_LT(gflops("blocktile2d"), gflops("pipelined"));
  for (const RecordedKernel& k : f.kernels) EXPECT_NE(findKernelInfo(k.kernel), nullptr) << k.kernel;
}
