// The teaching mode's model of one block walking its K-blocks: block-wide load skips, warp
// steps that are uniform by construction (warp tiles) or divergent (thread tiles), and its
// agreement with the skip map's block loads; and the tensor cores' steps (mma_walk.hpp).
#include <gtest/gtest.h>

#include "core/view/block_walk.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/problem.hpp"
#include "core/view/mma_walk.hpp"
#include "core/view/skip_map.hpp"

using namespace tileskip;

namespace {

Matrix full(int rows, int cols) { return generate("uniform", Operand::A, rows, cols, 1.0, 3); }

ProblemData problem(int m, int n, int k, double density, std::uint64_t seed) {
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.generator = "segments";
  spec.densityA = spec.densityB = density;
  spec.seed = seed;
  return generateProblem(spec);
}

void zeroRows(Matrix& m, int r0, int r1, int k0, int k1) {
  for (int r = r0; r < r1; ++r)
    for (int k = k0; k < k1; ++k) m(r, k) = 0.0f;
}

}  // namespace

TEST(BlockWalk, UnionByteIsTheOrOverTheTilesARangeTouches) {
  Matrix a = generate("uniform", Operand::A, 70, 16, 0.05, 4);
  Pattern p = buildAPattern(a, 8);
  for (auto [begin, end] : {std::pair{0, 8}, {0, 9}, {5, 23}, {64, 70}, {60, 200}, {30, 30}}) {
    for (int kb = 0; kb < p.kBlocks; ++kb) {
      std::uint8_t expected = 0;
      for (int t = 0; t < p.tiles; ++t) {
        if (begin < end && t * 8 < end && (t + 1) * 8 > begin) expected |= p.at(t, kb);
      }
      EXPECT_EQ(unionByte(p, begin, end, kb), expected) << begin << ".." << end;
    }
  }
}

TEST(BlockWalk, WarpGridsMatchTheCataloguesThreadCounts) {
  ProblemData data = problem(256, 256, 16, 1.0, 1);
  for (const KernelInfo& kernel : twinKernels()) {
    SCOPED_TRACE(kernel.id);
    KernelPatterns patterns = kernelPatterns(kernel, data.a, data.b);
    KBlockStep step = BlockWalk(kernel, patterns, 0, 0).step(0);
    // A warpgroup kernel's walk shows its consumer warpgroups' tiles; its producer warpgroup computes none.
    if (kernel.structure.mapping == ThreadMapping::WarpgroupMmaTiles) {
      EXPECT_EQ(static_cast<int>(step.warps.size() + 1) * kWarpgroupThreads, kernel.tile.threads);
    } else {
      EXPECT_EQ(static_cast<int>(step.warps.size()) * kWarpLanes, kernel.tile.threads);
    }
    // Together the warps cover the block tile exactly once.
    long covered = 0;
    for (const WarpView& w : step.warps) {
      for (const WarpStep& s : w.steps) covered += static_cast<long>(s.rowEnd - s.rowBegin) * (s.colEnd - s.colBegin);
    }
    EXPECT_EQ(covered, static_cast<long>(kernel.tile.BM) * kernel.tile.BN);
    EXPECT_TRUE(step.warpsAgree());  // dense inputs: every warp works
    EXPECT_EQ(step.warpsWith(WarpDecision::Work), static_cast<int>(step.warps.size()));
  }
}

TEST(BlockWalk, WarpTileKernelsSkipUniformlySubTileBySubTile) {
  // joint-8x32: block 128x128, warps 64x64 walking eight 8-row sub-tiles by two 32-column
  // ones. In K-block 0 only rows 0..7 of A are non-zero; K-block 1 of A is zero in the whole block.
  Matrix a = full(128, 16), b = full(16, 128);
  zeroRows(a, 8, 128, 0, 8);
  zeroRows(a, 0, 128, 8, 16);
  const KernelInfo& kernel = kernelInfo("joint-8x32");
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  BlockWalk walk(kernel, patterns, 0, 0);
  ASSERT_EQ(walk.kBlocks(), 2);
  EXPECT_EQ(walk.warpRows(), 2);
  EXPECT_EQ(walk.warpCols(), 2);

  KBlockStep k0 = walk.step(0);
  EXPECT_FALSE(k0.loadSkipped());
  ASSERT_EQ(k0.warps.size(), 4u);
  const WarpView& top = k0.warps[0];
  ASSERT_EQ(top.steps.size(), 16u);  // 64 rows / 8, times 64 columns / 32
  EXPECT_EQ(top.steps[0].decision(), WarpDecision::Work);  // rows 0..7, columns 0..31
  EXPECT_EQ(top.steps[1].decision(), WarpDecision::Work);  // rows 0..7, columns 32..63
  EXPECT_EQ(top.steps[2].decision(), WarpDecision::Skip);  // rows 8..15
  EXPECT_EQ(top.decision(), WarpDecision::Partial);
  EXPECT_EQ(top.any(), 0xFF);
  EXPECT_EQ(k0.warps[2].decision(), WarpDecision::Skip);  // rows 64..127
  EXPECT_FALSE(k0.warpsAgree());
  for (const WarpView& w : k0.warps) {
    for (const WarpStep& s : w.steps) EXPECT_NE(s.decision(), WarpDecision::Diverge);  // warp-uniform by construction
  }

  KBlockStep k1 = walk.step(1);
  EXPECT_TRUE(k1.loadSkipped());
  EXPECT_EQ(k1.warpsWith(WarpDecision::Skip), 4);
  EXPECT_TRUE(k1.warpsAgree());

  WalkSummary s = walk.summary();
  EXPECT_EQ(s.loaded, 1);
  EXPECT_EQ(s.loadsSkipped, 1);
  EXPECT_EQ(s.disagreements, 1);
  EXPECT_EQ(s.divergentSteps, 0);
  EXPECT_THROW(walk.step(2), InputError);
}

TEST(BlockWalk, ThreadTileKernelsDivergeWhereLanesDisagree) {
  // a-row: 8x8 outputs per thread, 16 threads per row of threads, so warp 0's lanes 0..15 own
  // rows 0..7 and lanes 16..31 own rows 8..15. Rows 8..15 of A are zero in K-block 0.
  Matrix a = full(128, 8), b = full(8, 128);
  zeroRows(a, 8, 16, 0, 8);
  const KernelInfo& kernel = kernelInfo("a-row");
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  KBlockStep step = BlockWalk(kernel, patterns, 0, 0).step(0);
  const WarpStep& lanes = step.warps[0].steps.at(0);
  EXPECT_EQ(lanes.lanes, 32);
  EXPECT_EQ(lanes.laneWorks, 0x0000FFFFu);
  EXPECT_EQ(lanes.decision(), WarpDecision::Diverge);
  EXPECT_EQ(lanes.any, 0xFF);
  EXPECT_EQ(lanes.all, 0x00);
  EXPECT_EQ(step.warps[1].decision(), WarpDecision::Work);
  EXPECT_FALSE(step.loadSkipped());
}

TEST(BlockWalk, ThreadOrderFollowsTheKernel) {
  ProblemData data = problem(64, 64, 8, 1.0, 1);
  // K1's threads walk down a column of C: a warp is 16 rows x 2 columns of its 16 x 16 block.
  const KernelInfo& naive = kernelInfo("naive");
  KernelPatterns np = kernelPatterns(naive, data.a, data.b);
  const WarpView naiveWarp = BlockWalk(naive, np, 0, 0).step(0).warps[0];
  EXPECT_EQ(naiveWarp.rowEnd - naiveWarp.rowBegin, 16);
  EXPECT_EQ(naiveWarp.colEnd - naiveWarp.colBegin, 2);
  // K2 fixes it: neighbouring threads take neighbouring columns, 2 rows x 16 columns.
  const KernelInfo& coalesced = kernelInfo("coalesced");
  KernelPatterns cp = kernelPatterns(coalesced, data.a, data.b);
  const WarpView coalescedWarp = BlockWalk(coalesced, cp, 0, 0).step(0).warps[0];
  EXPECT_EQ(coalescedWarp.rowEnd - coalescedWarp.rowBegin, 2);
  EXPECT_EQ(coalescedWarp.colEnd - coalescedWarp.colBegin, 16);
}

TEST(BlockWalk, EdgeBlocksClipToC) {
  ProblemData data = problem(200, 150, 37, 0.5, 1);
  const KernelInfo& kernel = kernelInfo("joint-32x32");
  KernelPatterns patterns = kernelPatterns(kernel, data.a, data.b);
  BlockGrid grid = blockGrid(kernel, 200, 150);
  EXPECT_EQ(grid.rows, 2);
  EXPECT_EQ(grid.cols, 2);
  BlockWalk walk(kernel, patterns, 1, 1);
  EXPECT_EQ(walk.rowEnd(), 200);
  EXPECT_EQ(walk.colEnd(), 150);
  KBlockStep step = walk.step(walk.kBlocks() - 1);
  EXPECT_EQ(step.kEnd, 37);
  // Rows 128..199 and columns 128..149: the warps below row 192 hold only 8 rows; the right
  // column of warps is idle.
  EXPECT_EQ(step.warps[2].rowEnd - step.warps[2].rowBegin, 8);
  EXPECT_EQ(step.warps[1].decision(), WarpDecision::Idle);  // columns 192.. do not exist
  EXPECT_THROW(BlockWalk(kernel, patterns, 2, 0), InputError);
}

// The walk and the skip map's block loads are one model: every block loads exactly the
// K-blocks its walk does not skip, and the warps' bytes together make the block-wide byte.
TEST(BlockWalk, AgreesWithTheSkipMapsBlockLoads) {
  ProblemData data = problem(192, 160, 72, 0.35, 5);
  for (const char* id : {"a-row", "a-warp", "b-group8", "b-warp", "joint-64x32", "joint-32x32", "joint-8x32", "warptile"}) {
    SCOPED_TRACE(id);
    const KernelInfo& kernel = kernelInfo(id);
    KernelPatterns patterns = kernelPatterns(kernel, data.a, data.b);
    BlockLoads loads = blockLoads(kernel, patterns);
    for (int r = 0; r < loads.grid.rows; ++r) {
      for (int c = 0; c < loads.grid.cols; ++c) {
        BlockWalk walk(kernel, patterns, r, c);
        EXPECT_EQ(walk.summary().loaded, loads.loadedKBlocks[static_cast<std::size_t>(r) * loads.grid.cols + c]);
        for (int kb = 0; kb < walk.kBlocks(); ++kb) {
          KBlockStep step = walk.step(kb);
          std::uint8_t warps = 0;
          for (const WarpView& w : step.warps) warps |= w.any();
          ASSERT_EQ(warps, step.blockJoint()) << "block " << r << "," << c << " K-block " << kb;
        }
      }
    }
  }
}

TEST(BlockWalk, MostInstructiveBlockShowsBothLoadsAndSkips) {
  ProblemData data = problem(256, 256, 128, 0.3, 2);
  const KernelInfo& kernel = kernelInfo("joint-8x32");
  KernelPatterns patterns = kernelPatterns(kernel, data.a, data.b);
  auto [r, c] = mostInstructiveBlock(kernel, patterns);
  WalkSummary s = BlockWalk(kernel, patterns, r, c).summary();
  EXPECT_GT(s.loaded, 0);
  EXPECT_GT(s.loadsSkipped, 0);
  EXPECT_GT(s.disagreements, 0);
}

// The tensor cores' side of the walk (core/view/mma_walk.hpp).

TEST(MmaWalk, DenseRowsMultiplyEveryKBlockInOrderAndPadTheLastStep) {
  Matrix a = full(128, 100), b = full(100, 256);  // K = 100: 13 K-blocks, the last one 4 deep
  {
    const KernelInfo& kernel = kernelInfo("mma");
    KernelPatterns patterns = kernelPatterns(kernel, a, b);
    BlockWalk walk(kernel, patterns, 0, 0);
    MmaWalk w = mmaWalk(walk, DType::Fp16);
    EXPECT_EQ(w.stepDepth, 16);
    EXPECT_EQ(w.mmasPerStep, 16);  // 64 x 32: 4 x 4 MMA tiles
    EXPECT_EQ(w.warps, 8);
    ASSERT_EQ(w.steps.size(), 7u);
    EXPECT_EQ(w.denseSteps, 7);
    for (std::size_t s = 0; s < 6; ++s) EXPECT_EQ(w.steps[s].kBlocks, (std::vector<int>{2 * static_cast<int>(s), 2 * static_cast<int>(s) + 1}));
    EXPECT_EQ(w.steps[6].kBlocks, (std::vector<int>{12, -1}));
    EXPECT_EQ(w.mmasIssued(), w.denseMmas());
    EXPECT_EQ(w.mmasIssued(), 7 * 8 * 16);
    EXPECT_EQ(w.slotsMultiplied(), 7 * 8 * 2);
    EXPECT_EQ(w.idleSlotsMultiplied(), 8);  // the empty slot of the last step, in every warp
    EXPECT_EQ(w.stepOf(12), 6);
    // tf32: the same 16-deep steps, two m16n8k8 each.
    MmaWalk tf32 = mmaWalk(walk, DType::Tf32);
    EXPECT_EQ(tf32.instruction.k, 8);
    EXPECT_EQ(tf32.mmasPerStep, 32);
    EXPECT_EQ(tf32.steps.size(), 7u);
  }
  {
    const KernelInfo& kernel = kernelInfo("wgmma");
    KernelPatterns patterns = kernelPatterns(kernel, a, b);
    BlockWalk walk(kernel, patterns, 0, 0);
    MmaWalk w = mmaWalk(walk, DType::Bf16);
    EXPECT_EQ(w.warps, 2);  // consumer warpgroups
    EXPECT_EQ(w.stepDepth, 64);
    EXPECT_EQ(w.mmasPerStep, 4);
    ASSERT_EQ(w.steps.size(), 2u);
    EXPECT_EQ(w.steps[1].kBlocks, (std::vector<int>{8, 9, 10, 11, 12, -1, -1, -1}));
    MmaWalk tf32 = mmaWalk(walk, DType::Tf32);  // a K-tile of 32 words: 4 K-blocks, four k8 instructions
    EXPECT_EQ(tf32.stepDepth, 32);
    EXPECT_EQ(tf32.mmasPerStep, 4);
    EXPECT_EQ(tf32.steps.size(), 4u);
  }
  EXPECT_THROW(mmaWalk(BlockWalk(kernelInfo("pipelined"), kernelPatterns(kernelInfo("pipelined"), a, b), 0, 0), DType::Fp32),
               InputError);
}

TEST(MmaWalk, TheWarpMmaRowPairsTheGatheredKBlocksAndAWarpIssuesForEitherSlot) {
  // mma-joint-64x32: block 128 x 128, warps 64 x 32 in a 2 x 4 grid, one A-pattern tile of 64
  // rows and one B-pattern tile of 32 columns each. K = 64: 8 K-blocks.
  Matrix a = full(128, 64), b = full(64, 128);
  zeroRows(a, 0, 128, 8, 24);   // K-blocks 1 and 2: no warp needs them
  zeroRows(a, 0, 64, 24, 32);   // K-block 3: not the upper warps (0..3)
  zeroRows(a, 64, 128, 32, 48); // K-blocks 4 and 5: not the lower warps (4..7)
  const KernelInfo& kernel = kernelInfo("mma-joint-64x32");
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  BlockWalk walk(kernel, patterns, 0, 0);
  MmaWalk w = mmaWalk(walk, DType::Bf16);
  ASSERT_EQ(w.steps.size(), 3u);  // gathered 0, 3, 4, 5, 6, 7
  EXPECT_EQ(w.steps[0].kBlocks, (std::vector<int>{0, 3}));
  EXPECT_EQ(w.steps[1].kBlocks, (std::vector<int>{4, 5}));
  EXPECT_EQ(w.steps[2].kBlocks, (std::vector<int>{6, 7}));
  EXPECT_EQ(w.stepOf(1), -1);
  EXPECT_EQ(w.stepOf(3), 0);
  for (int warp = 0; warp < 8; ++warp) {
    const bool upper = warp < 4;
    // Step 0: K-block 0 is needed by all, so every warp issues; the upper ones multiply K-block 3 in vain.
    EXPECT_TRUE(w.steps[0].issues[static_cast<std::size_t>(warp)]);
    EXPECT_EQ(w.steps[0].idleSlots[static_cast<std::size_t>(warp)], upper ? 1 : 0);
    // Step 1: only the upper warps need either K-block.
    EXPECT_EQ(w.steps[1].issues[static_cast<std::size_t>(warp)], upper) << warp;
    EXPECT_TRUE(w.steps[2].issues[static_cast<std::size_t>(warp)]);
  }
  EXPECT_EQ(w.mmasIssued(), (8 + 4 + 8) * 16);
  EXPECT_EQ(w.denseMmas(), 4 * 8 * 16);
  EXPECT_EQ(w.idleSlotsMultiplied(), 4);
}

TEST(MmaWalk, AGatheredListStartsItsStepsAfreshEveryPass) {
  // K = 8200: 1025 K-blocks, one more than a pass of mma-joint-64x32 gathers, so the second pass
  // holds K-block 1024 alone in a step.
  const KernelInfo& kernel = kernelInfo("mma-joint-64x32");
  ASSERT_EQ(kernel.structure.kBlockList, 1024);
  Matrix a = full(64, 8200), b = full(8200, 32);
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  MmaWalk w = mmaWalk(BlockWalk(kernel, patterns, 0, 0), DType::Fp16);
  ASSERT_EQ(w.steps.size(), 513u);
  EXPECT_EQ(w.steps.back().kBlocks, (std::vector<int>{1024, -1}));
  EXPECT_EQ(w.warps, 1);  // a 64 x 32 problem: one warp of the block has outputs
}

TEST(MmaWalk, TheWarpgroupRowCopiesWholeKTilesAndAWarpgroupSkipsOnlyAnEmptyOne) {
  // wgmma-joint-64x64: block 128 x 256, consumer warpgroups of 64 rows. K = 192: three K-tiles of 8 K-blocks.
  Matrix a = full(128, 192), b = full(192, 256);
  zeroRows(a, 0, 128, 0, 56);    // K-tile 0: only K-block 7 is needed,
  zeroRows(a, 64, 128, 56, 64);  // and only by warpgroup 0
  zeroRows(a, 0, 128, 64, 128);  // K-tile 1: nobody's
  const KernelInfo& kernel = kernelInfo("wgmma-joint-64x64");
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  MmaWalk w = mmaWalk(BlockWalk(kernel, patterns, 0, 0), DType::Bf16);
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].kBlocks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(w.steps[0].issues, (std::vector<bool>{true, false}));
  EXPECT_EQ(w.steps[0].idleSlots[0], 7);  // the copy engine copies, and the MMAs multiply, the whole K-tile
  EXPECT_EQ(w.steps[1].kBlocks.front(), 16);
  EXPECT_EQ(w.stepOf(8), -1);
  EXPECT_EQ(w.mmasIssued(), (1 + 2) * 4);
  EXPECT_EQ(w.denseMmas(), 3 * 2 * 4);
}
