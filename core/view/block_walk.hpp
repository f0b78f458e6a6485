// The block walk: a model of one thread block (workgroup) stepping through its K-blocks, for
// the viewer's teaching mode. It follows the catalogue's tile shapes and the pattern
// definitions, not a particular kernel's code:
// - Loads: the block stages A's BM x BK and B's BK x BN tiles unless no warp of the block needs
//   the K-block, i.e. unless the block-wide union (OR of A bytes over the block's row tiles) &
//   (OR of B bytes over its column tiles) is zero. That skip is uniform across the block, the
//   only kind that may jump over a barrier.
// - Warps: a kernel with a warp tile (WM x WN) walks the pattern tiles inside it one after
//   another, every lane reading the same byte, so each check is warp-uniform. A kernel without
//   one gives each thread its outputs by the row's thread mapping (threadOutputs() in
//   core/model/tile_layout.hpp, the kernels' own rule); lanes of one warp read different bytes and, where some
//   skip and others work, the warp diverges.
// An operand a kernel does not inspect has a full pattern (kernelPatterns()), so dense kernels
// walk every K-block with every warp working.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

// OR of a pattern's bytes over the tiles that intersect [begin, end) of its extent (rows for A,
// columns for B) at one K-block: what a block or warp covering those rows or columns must do.
std::uint8_t unionByte(const Pattern& pattern, int begin, int end, int kBlock);

// The thread blocks a kernel launches over an M x N output. A kernel with no tile shape (a
// vendor baseline) counts as one block covering C.
struct BlockGrid {
  int rows = 1, cols = 1;  // block tiles along M and along N
  int BM = 0, BN = 0;      // rows and columns of C one block computes
};
BlockGrid blockGrid(const KernelInfo& kernel, int m, int n);

enum class WarpDecision {
  Idle,     // no output of this warp (or step) lies inside C
  Work,     // every lane computes
  Skip,     // every lane skips: a uniform skip, free
  Partial,  // the warp skips some of its sub-tiles and computes others, each check uniform
  Diverge,  // lanes disagree within one step: the warp runs both paths
};
const char* warpDecisionName(WarpDecision decision);

// One check a warp makes at one K-block: a sub-tile of its warp tile (or, for a kernel
// without warp tiles, the warp's lanes' thread tiles together).
struct WarpStep {
  int rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;  // outputs it covers, in C, clipped to C
  std::uint8_t any = 0;          // OR of the lanes' joint bytes: updates at least one lane does
  std::uint8_t all = 0;          // AND of the lanes' joint bytes: updates every lane does
  int lanes = 0;                 // lanes with outputs inside C
  std::uint32_t laneWorks = 0;   // bit l set: lane l has a non-zero joint byte
  int lanesWorking() const;
  WarpDecision decision() const;
};

struct WarpView {
  int warp = 0, warpRow = 0, warpCol = 0;                   // index, and position in the block's warp grid
  int rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;  // its outputs in C, clipped
  std::vector<WarpStep> steps;
  WarpDecision decision() const;
  std::uint8_t any() const;  // OR over its steps: the warp's joint byte
};

struct KBlockStep {
  int kBlock = 0;
  int kBegin = 0, kEnd = 0;  // K indices of this K-block
  int stage = 0;             // the BK-deep shared-memory stage it belongs to
  std::uint8_t blockA = 0, blockB = 0;  // block-wide unions
  std::uint8_t blockJoint() const { return static_cast<std::uint8_t>(blockA & blockB); }
  bool loadSkipped() const { return blockJoint() == 0; }
  std::vector<WarpView> warps;
  int warpsWith(WarpDecision decision) const;
  // Every warp with outputs in C decides alike (all work, or all skip, ...). When they do not,
  // the block loads the tiles for the warps that need them while the others wait at the barrier.
  bool warpsAgree() const;
};

struct WalkSummary {
  int kBlocks = 0;
  int loaded = 0, loadsSkipped = 0;  // K-blocks whose tiles the block loads / skips
  int disagreements = 0;             // K-blocks where the warps decide differently
  int divergentSteps = 0;            // warp steps whose lanes disagree
};

// The walk refers to `kernel` (a catalogue entry) and `patterns`; both must outlive it.
class BlockWalk {
 public:
  // Throws InputError for a block outside the kernel's grid or patterns that do not match.
  BlockWalk(const KernelInfo& kernel, const KernelPatterns& patterns, int blockRow, int blockCol);

  const KernelInfo& kernel() const { return *kernel_; }
  int kBlocks() const { return patterns_->a.kBlocks; }
  int blockRow() const { return blockRow_; }
  int blockCol() const { return blockCol_; }
  int rowBegin() const { return rowBegin_; }
  int rowEnd() const { return rowEnd_; }
  int colBegin() const { return colBegin_; }
  int colEnd() const { return colEnd_; }
  int warpRows() const { return warpRows_; }  // warps along M and along N in the block
  int warpCols() const { return warpCols_; }
  bool hasWarpTile() const { return kernel_->tile.WM > 0; }

  KBlockStep step(int kBlock) const;
  WalkSummary summary() const;

  // For a kernel without warp tiles: the outputs one lane (thread) of a warp computes, clipped
  // to C; rowBegin == rowEnd when the thread has none.
  struct Outputs {
    int rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;
    bool empty() const { return rowBegin >= rowEnd || colBegin >= colEnd; }
  };
  Outputs laneOutputs(int warp, int lane) const;

 private:
  WarpView warpView(int warp, int kBlock) const;
  WarpStep uniformStep(int rowBegin, int rowEnd, int colBegin, int colEnd, int kBlock) const;
  WarpStep laneStep(int warp, int kBlock) const;

  const KernelInfo* kernel_;
  const KernelPatterns* patterns_;
  int blockRow_, blockCol_;
  int rowBegin_, rowEnd_, colBegin_, colEnd_;
  int warpRows_ = 1, warpCols_ = 1;
  int warps_ = 1;
};

// The block whose walk shows most: it loads some K-blocks and skips others, and its warps
// disagree or diverge somewhere. Looks at every block, or an even sample of at most
// `maxBlocks` of them on big problems. Returns {blockRow, blockCol}.
std::pair<int, int> mostInstructiveBlock(const KernelInfo& kernel, const KernelPatterns& patterns, int maxBlocks = 1024);

}  // namespace tileskip
