// How a warp-tiled kernel (WM, WN > 0 in its catalogue entry) spreads its warp tile over the 32
// lanes of a warp. Both twins of a kernel use this one rule, so a CUDA and a GLSL kernel of the
// same id put the same outputs in the same lane, and a pattern tile never straddles a sub-tile.
//
// The 32 lanes form a laneRows x laneCols grid over a sub-tile of (laneRows·TM) x (laneCols·TN)
// outputs; the warp walks iterM x iterN such sub-tiles (WMITER, WNITER in the kernels), so each
// lane holds (iterM·TM) x (iterN·TN) accumulators.
#pragma once

#include <optional>
#include <string>

#include "core/catalogue.hpp"

namespace tileskip {

inline constexpr int kWarpLanes = 32;  // a "warp" of GLSL kernels too, whatever the subgroup size

struct WarpLayout {
  int laneRows = 0, laneCols = 0;
  int subM = 0, subN = 0;    // sub-tile: laneRows·TM x laneCols·TN
  int iterM = 0, iterN = 0;  // WMITER, WNITER
};

// Among the lane grids that tile the warp tile exactly, and whose sub-tiles do not cut a pattern
// tile finer than the warp tile (joint-8x32: 8-row sub-tiles, one A-pattern byte each), the one
// whose per-lane footprint is closest to square (fewest shared-memory loads per FMA); on a tie,
// the wider footprint (longer vector loads of B, longer stores of C). Throws InputError for a
// kernel without a warp tile or a warp tile no lane grid fits.
WarpLayout warpLayout(const KernelInfo& kernel);

// Why a tile shape cannot work for this kernel's structure (thread counts that do not match the
// tile, tiles that do not divide), or nothing when it is consistent. Backends call it before
// building a kernel from a shape that may not come from the catalogue.
std::optional<std::string> tileShapeProblem(const KernelInfo& kernel);

}  // namespace tileskip
