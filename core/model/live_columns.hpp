// K-compaction's view of A: the sparsity trained models have (ReLU activations, cold neurons) is
// spread over K, not gathered in blocks. A K column of a 64-row tile is all zero with probability
// s^64 when each value is zero with probability s, so tile skipping finds almost nothing there; what
// such zeros leave is that many columns are zero in every row of a tile. A compaction kernel lists,
// per row tile, the K-groups (runs of `granularity` columns) in which some row of the tile has a
// non-zero, gathers those columns of A and rows of B into dense tiles and multiplies only them.
// The fraction of K it gathers is the tile's live fraction: the bound of what compaction can save,
// and what `tileskip inspect` reports. The single columns are the set bits of A's skip pattern at
// the tile height (core/model/pattern.hpp keeps a bit per K index of each row tile), so a kernel
// can list them from the pattern the skipping kernels already build.
#pragma once

#include <span>
#include <vector>

#include "core/model/matrix.hpp"

namespace tileskip {

// Row tile heights and K-group widths the analysis reports: the tensor cores' 64- and 128-row tiles,
// and gathers of single columns, of a 16-byte read of 16-bit values (8) and of an MMA's K-step (16).
inline constexpr int kCompactionRows[] = {64, 128};
inline constexpr int kCompactionGranularities[] = {1, 8, 16};

struct LiveColumns {
  int rows = 0;         // rows per row tile (the last tile may have fewer)
  int granularity = 0;  // columns per K-group (the last group may have fewer)
  int depth = 0;        // K
  int extent = 0;       // M
  int rowTiles = 0, groups = 0;
  // Tile t's live groups, in ascending K: groupIndex[offsets[t] .. offsets[t + 1]).
  std::vector<int> offsets;
  std::vector<int> groupIndex;

  // Columns tile t gathers: its live groups' columns that lie inside K.
  int liveColumns(int tile) const;
  // liveColumns(tile) / K; 0 for K = 0.
  double liveFraction(int tile) const;
  // The fraction of A's rows x K a compaction kernel multiplies: each tile's live fraction
  // weighted by its rows.
  double meanLiveFraction() const;
  // The largest of any tile: what the slowest tile of a launch gathers.
  double maxLiveFraction() const;
};

// Throws InputError unless rows and granularity are at least 1.
LiveColumns findLiveColumns(const Matrix& a, int rows, int granularity);
// The same at several K-group widths, reading A once.
std::vector<LiveColumns> findLiveColumns(const Matrix& a, int rows, std::span<const int> granularities);

}  // namespace tileskip
