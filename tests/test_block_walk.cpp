// The teaching mode's model of one block walking its K-blocks: block-wide load skips, warp
// steps that are uniform by construction (warp tiles) or divergent (thread tiles), and its
// agreement with the skip map's block loads.
#include <gtest/gtest.h>

#include "core/view/block_walk.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/problem.hpp"
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
