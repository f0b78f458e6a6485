// The tensor cores' side of a block walk, for the viewer's "mma" view: the steps a tensor-core
// kernel's block runs over K and which warps issue each step's MMAs. It follows the catalogue
// row's structure, as the kernels do:
// - StageRing (K13, S10): a step is one 16-bit MMA deep (tf32 takes two MMAs for it), two K-block
//   slots of a ring stage. A dense row fills the slots with the K-blocks in order; a skipping row
//   with the K-blocks its block needs (the walk's block-wide joint byte), gathered in order per pass
//   of structure.kBlockList K-blocks, so two K-blocks far apart along K can share a step. A warp
//   issues the step's MMAs for its whole warp tile unless its joint byte is zero in both slots: a
//   pattern bit is one rank-1 update, the MMA sixteen, so a warp may multiply a K-block it does not
//   need beside one it does.
// - BulkCopyRing (K14, S11): a step is a whole K-tile (kTileDepth()), which the copy engine copies
//   whole if the block needs any K-block of it; a warpgroup issues the K-tile's warpgroup MMAs
//   unless its joint bytes are zero across the whole K-tile.
// Warps (warpgroups) without outputs in C issue nothing here.
#pragma once

#include <vector>

#include "core/model/mma_layout.hpp"
#include "core/view/block_walk.hpp"

namespace tileskip {

struct MmaStep {
  std::vector<int> kBlocks;  // the K-blocks it multiplies, in slot order; -1: an empty slot at a gathered list's end
  std::vector<bool> issues;  // per warp of the walk (a warpgroup, for WarpgroupMmaTiles): it issues the step's MMAs
  std::vector<int> idleSlots;  // per warp that issues: slots whose K-block is zero for it (or empty), multiplied anyway
  int warpsIssuing() const;
};

struct MmaWalk {
  MmaInstruction instruction;
  int stepDepth = 0;    // K values one step multiplies
  int mmasPerStep = 0;  // instructions a warp (warpgroup) issues for a step it keeps
  int warps = 0;        // warps (warpgroups) of the block with outputs in C
  int denseSteps = 0;   // steps the block would run with nothing skipped: ceil(K / stepDepth)
  std::vector<MmaStep> steps;

  int slotsPerStep() const { return stepDepth / kKBlock; }
  // The step that multiplies `kBlock`, or -1 where the block never loads it.
  int stepOf(int kBlock) const;
  long long mmasIssued() const;  // by the block's warps over the whole walk
  long long denseMmas() const { return static_cast<long long>(denseSteps) * warps * mmasPerStep; }
  // K-block slots the issued MMAs multiply, and those of them zero for the warp that multiplies them.
  long long slotsMultiplied() const;
  long long idleSlotsMultiplied() const;
};

// InputError for a kernel without tensor cores or inputs it does not take.
MmaWalk mmaWalk(const BlockWalk& walk, DType dtype);

}  // namespace tileskip
