// Skip patterns, the definitions the kernels, the speed model and the viewer share.
//   A-pattern at row granularity R: one byte per (row tile, K-block); bit j is set iff some
//     A[r][8·kb + j] != 0 for a row r of that tile.
//   B-pattern at column granularity G: one byte per (column tile, K-block); bit j is set iff
//     some B[8·kb + j][c] != 0 for a column c of that tile.
//   Joint pattern of an output tile: a_pat & b_pat; a cleared bit is a rank-1 update a kernel
//     may skip.
// Partial last tiles and K-blocks count only their real rows, columns and K indices.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/model/generators.hpp"
#include "core/model/matrix.hpp"

namespace tileskip {

// Granularities the catalogue uses; any positive granularity is accepted.
inline constexpr int kPatternGranularities[] = {8, 32, 64};

struct Pattern {
  Operand operand = Operand::A;
  int granularity = 0;  // rows per tile (A) or columns per tile (B)
  int extent = 0;       // M (A) or N (B): the dimension the tiles cut
  int depth = 0;        // K
  int tiles = 0;        // ceil(extent / granularity)
  int kBlocks = 0;      // ceil(depth / 8)
  std::vector<std::uint8_t> bits;  // [tile][kBlock], tile-major: one tile's K-blocks are contiguous

  std::uint8_t at(int tile, int kBlock) const {
    return bits[static_cast<std::size_t>(tile) * static_cast<std::size_t>(kBlocks) + static_cast<std::size_t>(kBlock)];
  }
  // Rows (A) or columns (B) of this tile that exist: granularity, or fewer for the last tile.
  int tileExtent(int tile) const;
  // Fraction of the pattern's real bits (tiles x K, not tiles x 8·kBlocks) that are set.
  double density() const;
};

Pattern buildAPattern(const Matrix& a, int aGranularity);
Pattern buildBPattern(const Matrix& b, int bGranularity);

// A pattern with every real bit set: what a kernel that does not inspect this operand sees.
Pattern fullPattern(Operand operand, int extent, int depth, int granularity);

// The number of pattern bytes a pattern of this shape has (for device buffer sizes).
std::size_t patternBytes(int extent, int depth, int granularity);

// Joint statistics of the output tiles an A-pattern and a B-pattern define together.
struct JointStats {
  int rowTiles = 0, colTiles = 0;
  int aGranularity = 0, bGranularity = 0;
  int m = 0, n = 0, k = 0;
  // Per output tile (row-major, rowTiles x colTiles): fraction of its K rank-1 updates that the
  // joint pattern keeps, i.e. popcount(a_pat & b_pat over all K-blocks) / K.
  std::vector<float> workMap;
  // Per output tile: K-blocks whose joint byte is zero (skipped whole).
  std::vector<int> skippedKBlocks;
  // Kept rank-1 updates weighted by each tile's real area, over M·N·K: the fraction of the dense
  // FLOPs a kernel at these granularities must do.
  double jointDensity = 1.0;
  // Fraction of (output tile, K-block) pairs whose joint byte is zero.
  double skippedKBlockFraction = 0.0;

  float work(int rowTile, int colTile) const { return workMap[static_cast<std::size_t>(rowTile) * colTiles + colTile]; }
  // 1 / jointDensity; infinite when nothing is kept.
  double idealSpeedup() const;
};

// Throws InputError when the patterns do not describe the same K.
JointStats computeJointStats(const Pattern& a, const Pattern& b);

// The A- and B-pattern a kernel reads: at the kernel's granularities, with a full pattern
// standing in for an operand the kernel does not inspect (dense kernels keep everything).
// Granularity 32 stands in where the kernel has none.
struct KernelPatterns {
  Pattern a, b;
};
KernelPatterns kernelPatterns(const KernelInfo& kernel, const Matrix& a, const Matrix& b);

// The work a kernel does on this problem: joint statistics of kernelPatterns().
JointStats kernelWork(const KernelInfo& kernel, const Matrix& a, const Matrix& b);

// The joint byte of one output tile and K-block.
inline std::uint8_t jointPattern(const Pattern& a, const Pattern& b, int rowTile, int colTile, int kBlock) {
  return static_cast<std::uint8_t>(a.at(rowTile, kBlock) & b.at(colTile, kBlock));
}

}  // namespace tileskip
