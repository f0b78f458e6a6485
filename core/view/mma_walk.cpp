#include "core/view/mma_walk.hpp"

#include <algorithm>

#include "core/model/integer_math.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip {

int MmaStep::warpsIssuing() const { return static_cast<int>(std::count(issues.begin(), issues.end(), true)); }

int MmaWalk::stepOf(int kBlock) const {
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const std::vector<int>& kb = steps[s].kBlocks;
    if (std::find(kb.begin(), kb.end(), kBlock) != kb.end()) return static_cast<int>(s);
  }
  return -1;
}

long long MmaWalk::mmasIssued() const {
  long long issued = 0;
  for (const MmaStep& s : steps) issued += static_cast<long long>(s.warpsIssuing()) * mmasPerStep;
  return issued;
}

long long MmaWalk::slotsMultiplied() const {
  long long slots = 0;
  for (const MmaStep& s : steps) slots += static_cast<long long>(s.warpsIssuing()) * slotsPerStep();
  return slots;
}

long long MmaWalk::idleSlotsMultiplied() const {
  long long idle = 0;
  for (const MmaStep& s : steps) {
    for (int n : s.idleSlots) idle += n;
  }
  return idle;
}

MmaWalk mmaWalk(const BlockWalk& walk, DType dtype) {
  const KernelInfo& kernel = walk.kernel();
  MmaWalk w;
  w.instruction = mmaInstruction(kernel, dtype);  // throws for a kernel without tensor cores
  const bool wholeKTiles = kernel.needsHopper();
  // A warp's step is one 16-bit MMA deep (K13, S10: tf32 issues two for it), a warpgroup's a K-tile.
  w.stepDepth = wholeKTiles ? kernel.kTileDepth(dtype) : mmaInstruction(kernel, DType::Fp16).k;
  const int perTile = wholeKTiles ? 1 : (kernel.tile.WM / kMmaTileRows) * (kernel.tile.WN / kMmaTileCols);
  w.mmasPerStep = perTile * (w.stepDepth / w.instruction.k);
  const int kBlocks = walk.kBlocks(), slots = w.slotsPerStep();
  w.denseSteps = ceilDiv(kBlocks, slots);

  // Every K-block's step of the walk: which warps have outputs in C, and each one's joint byte.
  std::vector<KBlockStep> at;
  at.reserve(static_cast<std::size_t>(kBlocks));
  for (int kb = 0; kb < kBlocks; ++kb) at.push_back(walk.step(kb));
  const std::size_t warps = at.empty() ? 0 : at.front().warps.size();
  std::vector<bool> inC(warps, false);
  for (std::size_t i = 0; i < warps && !at.empty(); ++i) inC[i] = !at.front().warps[i].steps.empty();
  w.warps = static_cast<int>(std::count(inC.begin(), inC.end(), true));
  auto needs = [&](std::size_t warp, int kb) { return kb >= 0 && at[static_cast<std::size_t>(kb)].warps[warp].any() != 0; };

  // The slots in the order the block fills them: every K-block, or the gathered ones per pass.
  std::vector<int> order;
  if (wholeKTiles || !kernel.skips()) {
    for (int kb = 0; kb < w.denseSteps * slots; ++kb) order.push_back(kb < kBlocks ? kb : -1);
  } else {
    const int pass = kernel.structure.kBlockList;
    for (int first = 0; first < kBlocks; first += pass) {
      std::size_t begin = order.size();
      for (int kb = first; kb < std::min(kBlocks, first + pass); ++kb) {
        if (!at[static_cast<std::size_t>(kb)].loadSkipped()) order.push_back(kb);
      }
      while ((order.size() - begin) % static_cast<std::size_t>(slots) != 0) order.push_back(-1);
    }
  }
  for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(slots)) {
    MmaStep step;
    step.kBlocks.assign(order.begin() + static_cast<std::ptrdiff_t>(first),
                        order.begin() + static_cast<std::ptrdiff_t>(first) + slots);
    // The copy engine skips a K-tile only where the whole block needs none of it.
    if (wholeKTiles && kernel.skips() &&
        std::none_of(step.kBlocks.begin(), step.kBlocks.end(), [&](int kb) { return kb >= 0 && !at[static_cast<std::size_t>(kb)].loadSkipped(); })) {
      continue;
    }
    step.issues.assign(warps, false);
    step.idleSlots.assign(warps, 0);
    for (std::size_t warp = 0; warp < warps; ++warp) {
      if (!inC[warp]) continue;
      const int needed = static_cast<int>(std::count_if(step.kBlocks.begin(), step.kBlocks.end(), [&](int kb) { return needs(warp, kb); }));
      step.issues[warp] = needed > 0;
      if (needed > 0) step.idleSlots[warp] = slots - needed;
    }
    w.steps.push_back(std::move(step));
  }
  return w;
}

}  // namespace tileskip
