#include "core/view/skip_map.hpp"

#include <limits>

namespace tileskip {

double BlockLoads::loadBound() const {
  return loadFraction > 0.0 ? 1.0 / loadFraction : std::numeric_limits<double>::infinity();
}

BlockLoads blockLoads(const KernelInfo& kernel, const KernelPatterns& patterns) {
  const Pattern& a = patterns.a;
  const Pattern& b = patterns.b;
  BlockLoads loads;
  loads.grid = blockGrid(kernel, a.extent, b.extent);
  loads.kBlocks = a.kBlocks;
  loads.loadedKBlocks.assign(static_cast<std::size_t>(loads.grid.rows) * loads.grid.cols, 0);
  // The block-wide unions of each block row and block column, once per K-block.
  std::vector<std::uint8_t> rowUnion(static_cast<std::size_t>(loads.grid.rows));
  std::vector<std::uint8_t> colUnion(static_cast<std::size_t>(loads.grid.cols));
  long loaded = 0;
  for (int kb = 0; kb < a.kBlocks; ++kb) {
    for (int r = 0; r < loads.grid.rows; ++r) {
      rowUnion[static_cast<std::size_t>(r)] = unionByte(a, r * loads.grid.BM, (r + 1) * loads.grid.BM, kb);
    }
    for (int c = 0; c < loads.grid.cols; ++c) {
      colUnion[static_cast<std::size_t>(c)] = unionByte(b, c * loads.grid.BN, (c + 1) * loads.grid.BN, kb);
    }
    for (int r = 0; r < loads.grid.rows; ++r) {
      for (int c = 0; c < loads.grid.cols; ++c) {
        if ((rowUnion[static_cast<std::size_t>(r)] & colUnion[static_cast<std::size_t>(c)]) != 0) {
          loads.loadedKBlocks[static_cast<std::size_t>(r) * loads.grid.cols + c] += 1;
          loaded += 1;
        }
      }
    }
  }
  double pairs = static_cast<double>(loads.loadedKBlocks.size()) * a.kBlocks;
  loads.loadFraction = pairs > 0.0 ? static_cast<double>(loaded) / pairs : 1.0;
  return loads;
}

SkipMap buildSkipMap(const KernelInfo& kernel, const KernelPatterns& patterns, int maxCells) {
  const Pattern& a = patterns.a;
  const Pattern& b = patterns.b;
  SkipMap map;
  map.stats = computeJointStats(a, b);
  const JointStats& s = map.stats;

  std::vector<float> rowArea(static_cast<std::size_t>(s.rowTiles)), colArea(static_cast<std::size_t>(s.colTiles));
  for (int rt = 0; rt < s.rowTiles; ++rt) rowArea[static_cast<std::size_t>(rt)] = static_cast<float>(a.tileExtent(rt));
  for (int ct = 0; ct < s.colTiles; ++ct) colArea[static_cast<std::size_t>(ct)] = static_cast<float>(b.tileExtent(ct));
  map.work = aggregate(s.workMap, s.rowTiles, s.colTiles, maxCells, rowArea, colArea);

  std::vector<float> fullySkipped(s.workMap.size());
  for (std::size_t i = 0; i < s.workMap.size(); ++i) fullySkipped[i] = s.skippedKBlocks[i] == a.kBlocks ? 1.0f : 0.0f;
  map.skippedTiles = aggregate(fullySkipped, s.rowTiles, s.colTiles, maxCells, rowArea, colArea);

  // Per K-block, the area of C whose tile's joint byte is zero there.
  std::vector<double> skippedArea(static_cast<std::size_t>(a.kBlocks), 0.0);
  for (int rt = 0; rt < s.rowTiles; ++rt) {
    for (int ct = 0; ct < s.colTiles; ++ct) {
      double area = static_cast<double>(rowArea[static_cast<std::size_t>(rt)]) * colArea[static_cast<std::size_t>(ct)];
      for (int kb = 0; kb < a.kBlocks; ++kb) {
        if (jointPattern(a, b, rt, ct, kb) == 0) skippedArea[static_cast<std::size_t>(kb)] += area;
      }
    }
  }
  map.kBlockSkipped.resize(skippedArea.size());
  double outputArea = static_cast<double>(s.m) * s.n;
  for (std::size_t kb = 0; kb < skippedArea.size(); ++kb) map.kBlockSkipped[kb] = static_cast<float>(skippedArea[kb] / outputArea);

  map.loads = blockLoads(kernel, patterns);
  std::vector<float> loadedFraction(map.loads.loadedKBlocks.size());
  for (std::size_t i = 0; i < loadedFraction.size(); ++i) {
    loadedFraction[i] = static_cast<float>(map.loads.loadedKBlocks[i]) / static_cast<float>(a.kBlocks);
  }
  map.loadedPerBlock = aggregate(loadedFraction, map.loads.grid.rows, map.loads.grid.cols, maxCells);
  return map;
}

}  // namespace tileskip
