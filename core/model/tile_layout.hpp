// How a warp-tiled kernel (WM, WN > 0 in its catalogue entry) spreads its warp tile over the 32
// lanes of a warp. Both twins of a kernel use this one rule, so a CUDA and a GLSL kernel of the
// same id put the same outputs in the same lane, and a pattern tile never straddles a sub-tile.
//
// The 32 lanes form a 4 x 8 grid (lane / 8, lane % 8) over a sub-tile of (4·TM) x (8·TN)
// outputs; the warp walks iterM x iterN such sub-tiles (WMITER, WNITER in the kernels), so each
// lane holds (iterM·TM) x (iterN·TN) accumulators. With TN = 4 a quarter-warp's 128-bit reads of
// B cover 128 consecutive bytes of shared memory, and with TM = 2 (joint-8x32) a sub-tile is
// 8 rows: one A-pattern tile.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/model/shape_rules.hpp"

namespace tileskip {

// The layout of the kernel's warp tile. Throws InputError for a kernel without a warp tile, a
// warp tile the sub-tiles do not divide, or a pattern tile finer than the warp tile that a
// sub-tile would straddle (a sub-tile must read one pattern byte): warpLayoutProblem's rules.
WarpLayout warpLayout(const KernelInfo& kernel);

// Outputs a thread owns, relative to its block tile's origin.
struct OutputRect {
  int row = 0, col = 0, rows = 0, cols = 0;
};

// The outputs thread `thread` (0 .. threads - 1) of a block computes, by the row's thread
// mapping: one rectangle, or for a warp tile one per sub-tile its warp walks. The one rule of
// each mapping: both twins follow it, the teaching model draws it, and LaneMap.* probes the
// CUDA kernels (in emulation) and the GLSL kernels (on the Vulkan device) against it.
//   OutputDownColumns: row t % BM, column t / BM.       OutputAlongRows: row t / BN, column t % BN.
//   ColumnOfOutputs:   rows (t / BN)·TM .., column t % BN.
//   ThreadTile:        rows (t / (BN/TN))·TM .., columns (t % (BN/TN))·TN ...
//   WarpTile:          warp w = t / 32 at (w / (BN/WN), w % (BN/WN)) in the block's warp grid;
//                      lane l = t % 32 at (l / 8, l % 8) in each of its sub-tiles (warpLayout()).
//   MmaTiles:          warps as WarpTile; lane l holds rows l/4 and l/4 + 8, columns 2(l%4) and
//                      2(l%4) + 1 of each 16 x 8 MMA tile of its warp tile.
//   WarpgroupMmaTiles: warpgroup 0 (threads 0-127) none; warpgroup c + 1 the c-th WM x WN tile of
//                      the block's grid of them, its warp w rows 16w .. as MmaTiles' fragments.
std::vector<OutputRect> threadOutputs(const KernelInfo& kernel, int thread);

// The thread that owns each output of a block tile by threadOutputs(), BM x BN row-major; -1
// where no thread does. Throws InputError where two threads would own one output.
std::vector<int> outputOwners(const KernelInfo& kernel);

// A tile shape in one word, "BMxBNxBK/WMxWN/TMxTN/threads" (pipelined: "128x128x8/64x64/8x4/128";
// a kernel without a warp tile has 0x0 there), for overrides and reports.
std::string tileNotation(const TileShape& tile);
// The shape of such a word; nothing when it is not one (every field a decimal number).
std::optional<TileShape> parseTileNotation(std::string_view text);

// shapeProblem() (core/model/shape_rules.hpp) said with the tile's numbers and the kernel's id, or
// nothing when the shape can be built. Backends call it before building a kernel from a shape that
// may not come from the catalogue.
std::optional<std::string> tileShapeProblem(const KernelInfo& kernel);

}  // namespace tileskip
