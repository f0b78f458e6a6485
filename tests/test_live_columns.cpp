#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/live_columns.hpp"

using namespace tileskip;

namespace {

std::vector<int> groupsOf(const LiveColumns& live, int tile) {
  return {live.groupIndex.begin() + live.offsets[tile], live.groupIndex.begin() + live.offsets[tile + 1]};
}

}  // namespace

// None live, all live: the two ends, at odd M and K (a partial row tile and a partial K-group).
TEST(LiveColumns, AllZeroKeepsNothingAndDenseKeepsEverything) {
  Matrix zeros(100, 77);
  zeros.fill(0.0f);
  Matrix dense(100, 77);
  dense.fill(1.0f);
  for (int rows : kCompactionRows) {
    for (int g : kCompactionGranularities) {
      const LiveColumns none = findLiveColumns(zeros, rows, g);
      EXPECT_EQ(none.rowTiles, (100 + rows - 1) / rows);
      EXPECT_TRUE(none.groupIndex.empty());
      EXPECT_EQ(none.meanLiveFraction(), 0.0);
      EXPECT_EQ(none.maxLiveFraction(), 0.0);
      const LiveColumns all = findLiveColumns(dense, rows, g);
      EXPECT_EQ(all.groups, (77 + g - 1) / g);
      for (int t = 0; t < all.rowTiles; ++t) {
        EXPECT_EQ(static_cast<int>(groupsOf(all, t).size()), all.groups) << rows << " x " << g;
        EXPECT_EQ(all.liveColumns(t), 77) << "a partial last group counts only the columns inside K";
      }
      EXPECT_DOUBLE_EQ(all.meanLiveFraction(), 1.0);
    }
  }
}

// One non-zero lives in one tile and one group; in the last, partial group it counts only the
// columns K has; the mean weights each tile by its rows.
TEST(LiveColumns, ASingleNonZeroLivesInItsTileAndGroupOnly) {
  Matrix a(100, 77);
  a.fill(0.0f);
  a(70, 37) = -2.0f;
  const LiveColumns live = findLiveColumns(a, 64, 8);
  EXPECT_TRUE(groupsOf(live, 0).empty());
  EXPECT_EQ(groupsOf(live, 1), std::vector<int>{4});
  EXPECT_EQ(live.liveColumns(1), 8);
  EXPECT_NEAR(live.meanLiveFraction(), 8.0 / 77.0 * 36.0 / 100.0, 1e-12);
  EXPECT_NEAR(live.maxLiveFraction(), 8.0 / 77.0, 1e-12);

  a(70, 37) = 0.0f;
  a(3, 76) = 1.0f;  // K's last column: group 9 holds columns 72-76
  const LiveColumns tail = findLiveColumns(a, 64, 8);
  EXPECT_EQ(groupsOf(tail, 0), std::vector<int>{9});
  EXPECT_EQ(tail.liveColumns(0), 5);
  const LiveColumns single = findLiveColumns(a, 64, 1);
  EXPECT_EQ(groupsOf(single, 0), std::vector<int>{76});

  a(3, 76) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(findLiveColumns(a, 64, 1).liveColumns(0), 1) << "a NaN is not a zero";
  a(3, 76) = -0.0f;
  EXPECT_EQ(findLiveColumns(a, 64, 1).liveColumns(0), 0) << "-0 is a zero";
}

// Spread-out zeros: a column of a row tile of R rows is dead with probability s^R, so a tile
// skip finds nothing while single-column compaction keeps 1 - s^R; wider groups keep more.
TEST(LiveColumns, SpreadOutZerosLeaveColumnsDeadInWholeTiles) {
  const double density = 0.01;
  const Matrix a = generate("uniform", Operand::A, 1024, 2048, density, 3);
  const int granularities[] = {1, 8, 16};
  for (int rows : kCompactionRows) {
    const std::vector<LiveColumns> live = findLiveColumns(a, rows, granularities);
    ASSERT_EQ(live.size(), 3u);
    const double expected = 1.0 - std::pow(1.0 - density, rows);
    EXPECT_NEAR(live[0].meanLiveFraction(), expected, 0.02) << rows;
    EXPECT_NEAR(live[1].meanLiveFraction(), 1.0 - std::pow(1.0 - density, 8 * rows), 0.02) << rows;
    EXPECT_LT(live[0].meanLiveFraction(), live[1].meanLiveFraction());
    EXPECT_LE(live[1].meanLiveFraction(), live[2].meanLiveFraction());
    // The several widths read at once equal each asked alone.
    for (std::size_t i = 0; i < live.size(); ++i) {
      const LiveColumns alone = findLiveColumns(a, rows, granularities[i]);
      EXPECT_EQ(alone.groupIndex, live[i].groupIndex);
      EXPECT_EQ(alone.offsets, live[i].offsets);
    }
  }
}

TEST(LiveColumns, RefusesEmptyTilesAndGroups) {
  Matrix a(4, 4);
  EXPECT_THROW(findLiveColumns(a, 0, 8), InputError);
  EXPECT_THROW(findLiveColumns(a, 64, 0), InputError);
  EXPECT_THROW(findLiveColumns(a, 64, -1), InputError);
  EXPECT_THROW(findLiveColumns(a, 0, std::span<const int>{}), InputError) << "refused with no group width to check either";
}
