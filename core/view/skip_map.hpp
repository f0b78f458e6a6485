// The skip map: what a kernel skips on one problem, from the same functions the benchmark uses.
// Compute: per output tile at the kernel's pattern granularities, the fraction of rank-1 updates
//   the joint pattern keeps and the K-blocks skipped whole (computeJointStats, which gives the
//   bench's jointDensity and idealSpeedup).
// Loads: per block tile, the K-blocks whose A and B tiles the block must still load because one
//   of its warps needs them. Skipping FMAs is not skipping loads: with independent patterns a
//   block tile loads nearly every K-block, and memory traffic caps the speedup
//   (docs/teaching.md, "skipping FMAs is not skipping loads").
#pragma once

#include <vector>

#include "core/view/block_walk.hpp"
#include "core/view/heatmap.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

struct BlockLoads {
  BlockGrid grid;
  int kBlocks = 0;
  std::vector<int> loadedKBlocks;  // per block tile, row-major: K-blocks whose block-wide joint byte is non-zero
  double loadFraction = 1.0;       // loaded (block tile, K-block) pairs over all of them
  // 1 / loadFraction: the speedup over the dense kernel that A/B tile traffic alone allows.
  double loadBound() const;
};

BlockLoads blockLoads(const KernelInfo& kernel, const KernelPatterns& patterns);

struct SkipMap {
  JointStats stats;        // the joint statistics at the kernel's granularities
  Heatmap work;            // fraction of rank-1 updates kept per cell of output tiles, weighted by tile area
  Heatmap skippedTiles;    // per cell: fraction of its area in tiles whose joint byte is zero in every K-block
  std::vector<float> kBlockSkipped;  // per K-block: fraction of C's area whose tile skips it whole
  BlockLoads loads;
  Heatmap loadedPerBlock;  // per cell of block tiles: fraction of K-blocks the block loads
};

// Throws InputError when maxCells < 1 or the patterns do not describe one problem.
SkipMap buildSkipMap(const KernelInfo& kernel, const KernelPatterns& patterns, int maxCells);

}  // namespace tileskip
