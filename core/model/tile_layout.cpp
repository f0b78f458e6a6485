#include "core/model/tile_layout.hpp"

#include <algorithm>

#include "core/model/error.hpp"
#include "core/model/mma_layout.hpp"

namespace tileskip {

namespace {

std::string shapeText(const TileShape& t) {
  return "BM=" + std::to_string(t.BM) + " BN=" + std::to_string(t.BN) + " BK=" + std::to_string(t.BK) +
         " WM=" + std::to_string(t.WM) + " WN=" + std::to_string(t.WN) + " TM=" + std::to_string(t.TM) +
         " TN=" + std::to_string(t.TN) + " threads=" + std::to_string(t.threads);
}

// Lane `lane`'s accumulators of the 16 x 8 MMA tile at (row, col), as rectangles of the two
// neighbouring columns each row of its fragment holds (mmaFragment's C, the same for every input).
void appendAccumulatorPairs(std::vector<OutputRect>& rects, int row, int col, int lane) {
  const std::vector<FragmentValue> values = mmaFragment(DType::Fp16, MmaOperand::C, lane);
  for (std::size_t i = 0; i + 1 < values.size(); i += 2) rects.push_back({row + values[i].row, col + values[i].col, 1, 2});
}

}  // namespace

std::string tileNotation(const TileShape& t) {
  auto pair = [](int a, int b) { return std::to_string(a) + "x" + std::to_string(b); };
  return pair(t.BM, t.BN) + "x" + std::to_string(t.BK) + "/" + pair(t.WM, t.WN) + "/" + pair(t.TM, t.TN) + "/" +
         std::to_string(t.threads);
}

std::optional<TileShape> parseTileNotation(std::string_view text) {
  // Fields in order, each followed by the separator the notation puts after it.
  int TileShape::*fields[] = {&TileShape::BM, &TileShape::BN, &TileShape::BK, &TileShape::WM,
                              &TileShape::WN, &TileShape::TM, &TileShape::TN, &TileShape::threads};
  constexpr char kAfter[] = {'x', 'x', '/', 'x', '/', 'x', '/', '\0'};
  TileShape tile;
  std::size_t at = 0;
  for (std::size_t f = 0; f < std::size(fields); ++f) {
    std::size_t start = at;
    long value = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && value <= 1'000'000) value = value * 10 + (text[at++] - '0');
    if (at == start || value > 1'000'000) return std::nullopt;
    tile.*fields[f] = static_cast<int>(value);
    if (kAfter[f] == '\0') break;
    if (at == text.size() || text[at] != kAfter[f]) return std::nullopt;
    ++at;
  }
  if (at != text.size()) return std::nullopt;
  return tile;
}

WarpLayout warpLayout(const KernelInfo& kernel) {
  if (const char* why = warpLayoutProblem(kernel)) {
    throw InputError("kernel '" + std::string(kernel.id) + "' (" + shapeText(kernel.tile) + "): " + why);
  }
  return warpLayoutOf(kernel.tile);
}

std::vector<OutputRect> threadOutputs(const KernelInfo& kernel, int thread) {
  const TileShape& t = kernel.tile;
  if (thread < 0 || thread >= t.threads) return {};
  switch (kernel.structure.mapping) {
    case ThreadMapping::None: return {};
    case ThreadMapping::OutputDownColumns: return {{thread % t.BM, thread / t.BM, 1, 1}};
    case ThreadMapping::OutputAlongRows: return {{thread / t.BN, thread % t.BN, 1, 1}};
    case ThreadMapping::ColumnOfOutputs: return {{(thread / t.BN) * t.TM, thread % t.BN, t.TM, 1}};
    case ThreadMapping::ThreadTile: {
      const int threadCols = t.BN / t.TN;
      return {{(thread / threadCols) * t.TM, (thread % threadCols) * t.TN, t.TM, t.TN}};
    }
    case ThreadMapping::WarpTile: {
      const WarpLayout w = warpLayout(kernel);
      const int warp = thread / kWarpLanes, lane = thread % kWarpLanes;
      const int warpRow = (warp / (t.BN / t.WN)) * t.WM, warpCol = (warp % (t.BN / t.WN)) * t.WN;
      const int laneRow = lane / w.laneCols, laneCol = lane % w.laneCols;
      std::vector<OutputRect> rects;
      for (int im = 0; im < w.iterM; ++im) {
        for (int in = 0; in < w.iterN; ++in) {
          rects.push_back({warpRow + im * w.subM + laneRow * t.TM, warpCol + in * w.subN + laneCol * t.TN, t.TM, t.TN});
        }
      }
      return rects;
    }
    case ThreadMapping::MmaTiles: {
      // Warps in the block's warp grid as above; in each 16 x 8 MMA tile of its warp tile, a lane
      // holds the accumulators of mma_layout.hpp's C fragment: the PTX ISA's mma.m16n8k16 and K13's GLSL twin.
      const int warp = thread / kWarpLanes, lane = thread % kWarpLanes;
      const int warpRow = (warp / (t.BN / t.WN)) * t.WM, warpCol = (warp % (t.BN / t.WN)) * t.WN;
      std::vector<OutputRect> rects;
      for (int i = 0; i < t.WM / kMmaTileRows; ++i) {
        for (int j = 0; j < t.WN / kMmaTileCols; ++j) {
          appendAccumulatorPairs(rects, warpRow + i * kMmaTileRows, warpCol + j * kMmaTileCols, lane);
        }
      }
      return rects;
    }
    case ThreadMapping::RowStrips: {
      const int rowThreads = t.BM / t.TM;
      std::vector<OutputRect> rects;
      for (int i = 0; i < t.TM; ++i) rects.push_back({thread % rowThreads + rowThreads * i, (thread / rowThreads) * t.TN, 1, t.TN});
      return rects;
    }
    case ThreadMapping::WarpgroupMmaTiles: {
      // The producer warpgroup owns nothing; consumer warpgroup c = t / 128 - 1 owns the WM x WN
      // tile c of the block's grid of them, its warp w the rows 16w .. 16w + 15 in MmaTiles'
      // fragments: the accumulator layout of the PTX ISA's wgmma.m64nNk16 and of K14.
      const int warpgroup = thread / kWarpgroupThreads - 1;
      if (warpgroup < 0) return {};
      const int warp = (thread % kWarpgroupThreads) / kWarpLanes, lane = thread % kWarpLanes;
      const int groupRow = (warpgroup / (t.BN / t.WN)) * t.WM, groupCol = (warpgroup % (t.BN / t.WN)) * t.WN;
      std::vector<OutputRect> rects;
      for (int j = 0; j < t.WN / kMmaTileCols; ++j) {
        appendAccumulatorPairs(rects, groupRow + warp * kMmaTileRows, groupCol + j * kMmaTileCols, lane);
      }
      return rects;
    }
  }
  return {};
}

std::vector<int> outputOwners(const KernelInfo& kernel) {
  const TileShape& t = kernel.tile;
  std::vector<int> owners(static_cast<std::size_t>(std::max(t.BM, 0)) * static_cast<std::size_t>(std::max(t.BN, 0)), -1);
  for (int thread = 0; thread < t.threads; ++thread) {
    for (const OutputRect& r : threadOutputs(kernel, thread)) {
      for (int row = r.row; row < r.row + r.rows; ++row) {
        for (int col = r.col; col < r.col + r.cols; ++col) {
          int& owner = owners.at(static_cast<std::size_t>(row) * static_cast<std::size_t>(t.BN) + static_cast<std::size_t>(col));
          if (owner >= 0) {
            throw InputError("kernel '" + std::string(kernel.id) + "': threads " + std::to_string(owner) + " and " +
                             std::to_string(thread) + " would both own output (" + std::to_string(row) + ", " +
                             std::to_string(col) + ")");
          }
          owner = thread;
        }
      }
    }
  }
  return owners;
}

std::optional<std::string> tileShapeProblem(const KernelInfo& kernel) {
  const char* why = shapeProblem(kernel);
  if (why == nullptr) return std::nullopt;
  return "tile " + shapeText(kernel.tile) + " does not fit kernel '" + std::string(kernel.id) + "': " + why;
}

}  // namespace tileskip
