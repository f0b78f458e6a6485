#include "core/view/block_walk.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip {

namespace {

// Rows or columns [begin, begin + size) clipped to [0, limit).
std::pair<int, int> clipped(int begin, int size, int limit) { return {std::min(begin, limit), std::min(begin + size, limit)}; }

}  // namespace

std::uint8_t unionByte(const Pattern& pattern, int begin, int end, int kBlock) {
  begin = std::max(begin, 0);
  end = std::min(end, pattern.extent);
  std::uint8_t byte = 0;
  if (begin >= end) return byte;
  for (int t = begin / pattern.granularity; t <= (end - 1) / pattern.granularity; ++t) byte |= pattern.at(t, kBlock);
  return byte;
}

BlockGrid blockGrid(const KernelInfo& kernel, int m, int n) {
  BlockGrid grid;
  grid.BM = kernel.tile.BM > 0 ? kernel.tile.BM : m;
  grid.BN = kernel.tile.BN > 0 ? kernel.tile.BN : n;
  grid.rows = ceilDiv(m, grid.BM);
  grid.cols = ceilDiv(n, grid.BN);
  return grid;
}

const char* warpDecisionName(WarpDecision decision) {
  switch (decision) {
    case WarpDecision::Idle: return "idle";
    case WarpDecision::Work: return "works";
    case WarpDecision::Skip: return "skips";
    case WarpDecision::Partial: return "skips some sub-tiles";
    case WarpDecision::Diverge: return "diverges";
  }
  return "?";
}

int WarpStep::lanesWorking() const { return std::popcount(laneWorks); }

WarpDecision WarpStep::decision() const {
  if (lanes == 0) return WarpDecision::Idle;
  int working = lanesWorking();
  if (working == 0) return WarpDecision::Skip;
  return working == lanes ? WarpDecision::Work : WarpDecision::Diverge;
}

WarpDecision WarpView::decision() const {
  bool works = false, skips = false;
  for (const WarpStep& step : steps) {
    switch (step.decision()) {
      case WarpDecision::Diverge: return WarpDecision::Diverge;
      case WarpDecision::Work: works = true; break;
      case WarpDecision::Skip: skips = true; break;
      default: break;
    }
  }
  if (works && skips) return WarpDecision::Partial;
  if (works) return WarpDecision::Work;
  return skips ? WarpDecision::Skip : WarpDecision::Idle;
}

std::uint8_t WarpView::any() const {
  std::uint8_t byte = 0;
  for (const WarpStep& step : steps) byte |= step.any;
  return byte;
}

int KBlockStep::warpsWith(WarpDecision decision) const {
  return static_cast<int>(std::count_if(warps.begin(), warps.end(), [&](const WarpView& w) { return w.decision() == decision; }));
}

bool KBlockStep::warpsAgree() const {
  bool seen = false;
  WarpDecision first = WarpDecision::Idle;
  for (const WarpView& warp : warps) {
    WarpDecision d = warp.decision();
    if (d == WarpDecision::Idle) continue;
    if (seen && d != first) return false;
    seen = true;
    first = d;
  }
  return true;
}

BlockWalk::BlockWalk(const KernelInfo& kernel, const KernelPatterns& patterns, int blockRow, int blockCol)
    : kernel_(&kernel), patterns_(&patterns), blockRow_(blockRow), blockCol_(blockCol) {
  const Pattern& a = patterns.a;
  const Pattern& b = patterns.b;
  if (a.operand != Operand::A || b.operand != Operand::B || a.depth != b.depth) {
    throw InputError("a block walk needs an A-pattern and a B-pattern of the same K");
  }
  BlockGrid grid = blockGrid(kernel, a.extent, b.extent);
  if (blockRow < 0 || blockRow >= grid.rows || blockCol < 0 || blockCol >= grid.cols) {
    throw InputError("block (" + std::to_string(blockRow) + ", " + std::to_string(blockCol) + ") is outside the " +
                     std::to_string(grid.rows) + " x " + std::to_string(grid.cols) + " blocks of kernel " +
                     std::string(kernel.id));
  }
  std::tie(rowBegin_, rowEnd_) = clipped(blockRow * grid.BM, grid.BM, a.extent);
  std::tie(colBegin_, colEnd_) = clipped(blockCol * grid.BN, grid.BN, b.extent);
  const TileShape& t = kernel.tile;
  if (t.WM > 0) {
    warpRows_ = t.BM / t.WM;
    warpCols_ = t.BN / t.WN;
    warps_ = warpRows_ * warpCols_;
  } else if (t.BM > 0) {
    warps_ = ceilDiv(t.threads, kWarpLanes);
  }
}

WarpStep BlockWalk::uniformStep(int rowBegin, int rowEnd, int colBegin, int colEnd, int kBlock) const {
  WarpStep step;
  step.rowBegin = rowBegin;
  step.rowEnd = rowEnd;
  step.colBegin = colBegin;
  step.colEnd = colEnd;
  step.any = step.all = static_cast<std::uint8_t>(unionByte(patterns_->a, rowBegin, rowEnd, kBlock) &
                                                  unionByte(patterns_->b, colBegin, colEnd, kBlock));
  step.lanes = kWarpLanes;
  step.laneWorks = step.any != 0 ? ~0u : 0u;
  return step;
}

BlockWalk::Outputs BlockWalk::laneOutputs(int warp, int lane) const {
  Outputs o;
  if (kernel_->hasWarpTile() || kernel_->tile.BM == 0) return o;
  // The kernels' own rule (threadOutputs): threads run along N, as coalescing wants, except in
  // K1, whose lesson is neighbouring threads walking down a column of C.
  std::vector<OutputRect> rects = threadOutputs(*kernel_, warp * kWarpLanes + lane);
  if (rects.empty()) return o;
  // The rectangle around a thread's outputs: one block of them, or a row strip's rows BM / TM apart.
  int row0 = rects.front().row, row1 = row0, col0 = rects.front().col, col1 = col0;
  for (const OutputRect& r : rects) {
    row0 = std::min(row0, r.row), row1 = std::max(row1, r.row + r.rows);
    col0 = std::min(col0, r.col), col1 = std::max(col1, r.col + r.cols);
  }
  std::tie(o.rowBegin, o.rowEnd) = clipped(rowBegin_ + row0, row1 - row0, rowEnd_);
  std::tie(o.colBegin, o.colEnd) = clipped(colBegin_ + col0, col1 - col0, colEnd_);
  return o;
}

WarpStep BlockWalk::laneStep(int warp, int kBlock) const {
  WarpStep step;
  step.rowBegin = rowEnd_;
  step.colBegin = colEnd_;
  step.rowEnd = rowBegin_;
  step.colEnd = colBegin_;
  step.all = 0xFF;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    Outputs o = laneOutputs(warp, lane);
    if (o.empty()) continue;
    auto [r0, r1, c0, c1] = o;
    auto joint = static_cast<std::uint8_t>(unionByte(patterns_->a, r0, r1, kBlock) & unionByte(patterns_->b, c0, c1, kBlock));
    step.any |= joint;
    step.all &= joint;
    step.lanes += 1;
    if (joint != 0) step.laneWorks |= 1u << lane;
    step.rowBegin = std::min(step.rowBegin, r0);
    step.rowEnd = std::max(step.rowEnd, r1);
    step.colBegin = std::min(step.colBegin, c0);
    step.colEnd = std::max(step.colEnd, c1);
  }
  if (step.lanes == 0) step = WarpStep{};
  return step;
}

WarpView BlockWalk::warpView(int warp, int kBlock) const {
  const TileShape& t = kernel_->tile;
  WarpView view;
  view.warp = warp;
  if (t.BM == 0) {  // a vendor baseline: the whole block as one uniform step
    view.rowBegin = rowBegin_;
    view.rowEnd = rowEnd_;
    view.colBegin = colBegin_;
    view.colEnd = colEnd_;
    view.steps.push_back(uniformStep(rowBegin_, rowEnd_, colBegin_, colEnd_, kBlock));
    return view;
  }
  if (t.WM == 0) {
    view.warpRow = warp;
    WarpStep step = laneStep(warp, kBlock);
    view.rowBegin = step.rowBegin;
    view.rowEnd = step.rowEnd;
    view.colBegin = step.colBegin;
    view.colEnd = step.colEnd;
    if (step.lanes > 0) view.steps.push_back(step);
    return view;
  }
  view.warpRow = warp / warpCols_;
  view.warpCol = warp % warpCols_;
  std::tie(view.rowBegin, view.rowEnd) = clipped(rowBegin_ + view.warpRow * t.WM, t.WM, rowEnd_);
  std::tie(view.colBegin, view.colEnd) = clipped(colBegin_ + view.warpCol * t.WN, t.WN, colEnd_);
  // The warp walks the pattern tiles inside its warp tile, one check per tile, along the
  // dimensions the kernel inspects; a pattern tile as large as the warp tile is one check.
  int rowChunk = kernel_->usesAPattern() ? std::min(kernel_->aGranularity, t.WM) : t.WM;
  int colChunk = kernel_->usesBPattern() ? std::min(kernel_->bGranularity, t.WN) : t.WN;
  for (int r = view.rowBegin; r < view.rowEnd; r += rowChunk) {
    for (int c = view.colBegin; c < view.colEnd; c += colChunk) {
      view.steps.push_back(uniformStep(r, std::min(r + rowChunk, view.rowEnd), c, std::min(c + colChunk, view.colEnd), kBlock));
    }
  }
  return view;
}

KBlockStep BlockWalk::step(int kBlock) const {
  if (kBlock < 0 || kBlock >= kBlocks()) {
    throw InputError("K-block " + std::to_string(kBlock) + " is outside 0.." + std::to_string(kBlocks() - 1));
  }
  KBlockStep s;
  s.kBlock = kBlock;
  s.kBegin = kBlock * kKBlock;
  s.kEnd = std::min(s.kBegin + kKBlock, patterns_->a.depth);
  int bk = kernel_->tile.BK;
  s.stage = bk >= kKBlock ? s.kBegin / bk : kBlock;
  s.blockA = unionByte(patterns_->a, rowBegin_, rowEnd_, kBlock);
  s.blockB = unionByte(patterns_->b, colBegin_, colEnd_, kBlock);
  s.warps.reserve(static_cast<std::size_t>(warps_));
  for (int w = 0; w < warps_; ++w) s.warps.push_back(warpView(w, kBlock));
  return s;
}

WalkSummary BlockWalk::summary() const {
  WalkSummary sum;
  sum.kBlocks = kBlocks();
  for (int kb = 0; kb < kBlocks(); ++kb) {
    KBlockStep s = step(kb);
    if (s.loadSkipped()) {
      sum.loadsSkipped += 1;
    } else {
      sum.loaded += 1;
    }
    if (!s.warpsAgree()) sum.disagreements += 1;
    for (const WarpView& w : s.warps) {
      for (const WarpStep& ws : w.steps) sum.divergentSteps += ws.decision() == WarpDecision::Diverge;
    }
  }
  return sum;
}

std::pair<int, int> mostInstructiveBlock(const KernelInfo& kernel, const KernelPatterns& patterns, int maxBlocks) {
  BlockGrid grid = blockGrid(kernel, patterns.a.extent, patterns.b.extent);
  // An even sample: every `stride`-th block along each side, at most maxBlocks in all.
  int stride = 1;
  while (ceilDiv(grid.rows, stride) * ceilDiv(grid.cols, stride) > std::max(maxBlocks, 1)) ++stride;
  std::pair<int, int> best{0, 0};
  long bestScore = -1;
  for (int r = 0; r < grid.rows; r += stride) {
    for (int c = 0; c < grid.cols; c += stride) {
      WalkSummary s = BlockWalk(kernel, patterns, r, c).summary();
      long score = 4L * std::min(s.loaded, s.loadsSkipped) + 2L * s.disagreements + s.divergentSteps;
      if (score > bestScore) {
        bestScore = score;
        best = {r, c};
      }
    }
  }
  return best;
}

}  // namespace tileskip
