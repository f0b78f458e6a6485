// The warp lane grid both twins derive from a tile shape, and the shape checks a backend runs
// before it builds a kernel from a shape that is not the catalogue's.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/tile_layout.hpp"

using namespace tileskip;

TEST(TileLayout, EveryCatalogueTwinHasAConsistentShape) {
  for (const KernelInfo& k : twinKernels()) {
    EXPECT_EQ(tileShapeProblem(k), std::nullopt) << k.id;
    if (k.tile.WM == 0) continue;
    WarpLayout w = warpLayout(k);
    EXPECT_EQ(w.laneRows * w.laneCols, kWarpLanes) << k.id;
    EXPECT_EQ(w.iterM * w.subM, k.tile.WM) << k.id;
    EXPECT_EQ(w.iterN * w.subN, k.tile.WN) << k.id;
  }
}

TEST(TileLayout, PicksTheSquarestLaneFootprint) {
  // warptile: 64x64 per warp with 8x4 per sub-tile step: 8 x 16 outputs per lane, not 32 x 4.
  WarpLayout w = warpLayout(kernelInfo("warptile"));
  EXPECT_EQ(w.laneCols, 4);
  EXPECT_EQ(w.iterM * kernelInfo("warptile").tile.TM, 8);
  EXPECT_EQ(w.iterN * kernelInfo("warptile").tile.TN, 16);
  // b-warp and joint-64x32: 64x32 warp tiles, an 8 x 8 footprint.
  EXPECT_EQ(warpLayout(kernelInfo("b-warp")).laneCols, 4);
  EXPECT_EQ(warpLayout(kernelInfo("joint-64x32")).laneCols, 4);
}

TEST(TileLayout, SubTilesFollowAFinerAPattern) {
  // joint-8x32: the A-pattern is at 8 rows inside a 32-row warp tile, so a sub-tile is 8 rows
  // and the warp walks 4 of them, one pattern byte each.
  WarpLayout w = warpLayout(kernelInfo("joint-8x32"));
  EXPECT_EQ(w.subM, 8);
  EXPECT_EQ(w.iterM, 4);
  EXPECT_EQ(w.subN, 32);
}

TEST(TileLayout, RefusesShapesThatDoNotTile) {
  KernelInfo k = kernelInfo("warptile");
  k.tile.threads = 256;  // 4 warp tiles but 8 warps
  std::optional<std::string> why = tileShapeProblem(k);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("threads = 32"), std::string::npos) << *why;

  KernelInfo skipping = kernelInfo("joint-32x32");
  skipping.tile.BK = 12;
  ASSERT_TRUE(tileShapeProblem(skipping).has_value());

  KernelInfo noLanes = kernelInfo("joint-8x32");
  noLanes.tile.TM = 16;  // 32 rows per warp cannot hold 8-row sub-tiles of 16-row lanes
  EXPECT_THROW(warpLayout(noLanes), InputError);
  EXPECT_TRUE(tileShapeProblem(noLanes).has_value());
}
