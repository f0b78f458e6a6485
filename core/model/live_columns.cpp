#include "core/model/live_columns.hpp"

#include <algorithm>
#include <string>

#include "core/model/catalogue.hpp"  // kKBlock
#include "core/model/error.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

int LiveColumns::liveColumns(int tile) const {
  int columns = 0;
  for (int i = offsets[tile]; i < offsets[tile + 1]; ++i) {
    const int first = groupIndex[i] * granularity;
    columns += std::min(granularity, depth - first);
  }
  return columns;
}

double LiveColumns::liveFraction(int tile) const {
  return depth > 0 ? static_cast<double>(liveColumns(tile)) / depth : 0.0;
}

double LiveColumns::meanLiveFraction() const {
  if (extent == 0) return 0.0;
  double weighted = 0.0;
  for (int t = 0; t < rowTiles; ++t) weighted += liveFraction(t) * std::min(rows, extent - t * rows);
  return weighted / extent;
}

double LiveColumns::maxLiveFraction() const {
  double most = 0.0;
  for (int t = 0; t < rowTiles; ++t) most = std::max(most, liveFraction(t));
  return most;
}

std::vector<LiveColumns> findLiveColumns(const Matrix& a, int rows, std::span<const int> granularities) {
  if (rows < 1) throw InputError("a live-column analysis needs row tiles of at least 1 row, not " + std::to_string(rows));
  std::vector<LiveColumns> found;
  for (int granularity : granularities) {
    if (granularity < 1) {
      throw InputError("a live-column analysis needs K-groups of at least 1 column, not " + std::to_string(granularity));
    }
    LiveColumns live;
    live.rows = rows;
    live.granularity = granularity;
    live.depth = a.cols();
    live.extent = a.rows();
    live.rowTiles = (a.rows() + rows - 1) / rows;
    live.groups = (a.cols() + granularity - 1) / granularity;
    live.offsets.reserve(static_cast<std::size_t>(live.rowTiles) + 1);
    live.offsets.push_back(0);
    found.push_back(std::move(live));
  }
  // A's skip pattern at the tile height holds a bit per column of each row tile, set where some
  // row has a non-zero there (NaN counts: a NaN multiplied is not a zero): the live columns.
  const Pattern pattern = buildAPattern(a, rows);
  std::vector<char> column(static_cast<std::size_t>(a.cols()));
  for (int t = 0; t < pattern.tiles; ++t) {
    for (int k = 0; k < a.cols(); ++k) column[static_cast<std::size_t>(k)] = (pattern.at(t, k / kKBlock) >> (k % kKBlock)) & 1u;
    for (LiveColumns& live : found) {
      for (int g = 0; g < live.groups; ++g) {
        const int first = g * live.granularity, end = std::min(a.cols(), first + live.granularity);
        if (std::any_of(column.begin() + first, column.begin() + end, [](char c) { return c != 0; })) live.groupIndex.push_back(g);
      }
      live.offsets.push_back(static_cast<int>(live.groupIndex.size()));
    }
  }
  return found;
}

LiveColumns findLiveColumns(const Matrix& a, int rows, int granularity) {
  const int granularities[] = {granularity};
  return std::move(findLiveColumns(a, rows, granularities).front());
}

}  // namespace tileskip
