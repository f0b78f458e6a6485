#include "core/view/heatmap.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"

namespace tileskip {

namespace {

// Per-cell sums of value·weight and of weight, filled unit by unit, turned into means at the end.
class CellSums {
 public:
  CellSums(CellAxis rows, CellAxis cols) : rows_(rows), cols_(cols) {
    std::size_t cells = static_cast<std::size_t>(rows.cells) * static_cast<std::size_t>(cols.cells);
    weighted_.assign(cells, 0.0);
    weight_.assign(cells, 0.0);
    colCell_.resize(static_cast<std::size_t>(cols.units));
    for (int c = 0; c < cols.units; ++c) colCell_[static_cast<std::size_t>(c)] = cols.cellOf(c);
  }

  // Adds one unit; rowCell is rows_.cellOf(row), hoisted out of the caller's inner loop.
  void add(int rowCell, int col, double value, double weight) {
    std::size_t cell = static_cast<std::size_t>(rowCell) * cols_.cells + colCell_[static_cast<std::size_t>(col)];
    weighted_[cell] += value * weight;
    weight_[cell] += weight;
  }

  Heatmap finish() && {
    Heatmap map;
    map.rowAxis = rows_;
    map.colAxis = cols_;
    map.values.resize(weight_.size());
    for (std::size_t i = 0; i < weight_.size(); ++i) {
      map.values[i] = weight_[i] > 0.0 ? static_cast<float>(weighted_[i] / weight_[i]) : 0.0f;
    }
    map.weights = std::move(weight_);
    return map;
  }

 private:
  CellAxis rows_, cols_;
  std::vector<double> weighted_, weight_;
  std::vector<int> colCell_;
};

void checkMaxCells(int maxCells) {
  if (maxCells < 1) throw InputError("a heatmap needs at least 1 cell per side, got " + std::to_string(maxCells));
}

}  // namespace

CellAxis CellAxis::of(int units, int maxCells) {
  checkMaxCells(maxCells);
  return {units, std::min(units, maxCells)};
}

int CellAxis::first(int cell) const {
  return static_cast<int>(static_cast<std::int64_t>(cell) * units / cells);
}

int CellAxis::end(int cell) const { return first(cell + 1); }

int CellAxis::cellOf(int unit) const {
  // The largest cell whose first unit is <= unit: cell·S/C <= unit  <=>  cell <= ((unit+1)·C - 1) / S.
  return static_cast<int>((static_cast<std::int64_t>(unit + 1) * cells - 1) / units);
}

double Heatmap::mean() const {
  double weighted = 0.0, total = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    weighted += static_cast<double>(values[i]) * weights[i];
    total += weights[i];
  }
  return total > 0.0 ? weighted / total : 0.0;
}

Heatmap aggregate(std::span<const float> values, int rows, int cols, int maxCells, std::span<const float> rowWeights,
                  std::span<const float> colWeights) {
  if (rows < 1 || cols < 1 || values.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    throw InputError("heatmap source of " + std::to_string(values.size()) + " values is not " + std::to_string(rows) +
                     " x " + std::to_string(cols));
  }
  if ((!rowWeights.empty() && rowWeights.size() != static_cast<std::size_t>(rows)) ||
      (!colWeights.empty() && colWeights.size() != static_cast<std::size_t>(cols))) {
    throw InputError("heatmap weights do not match the source's rows and columns");
  }
  CellAxis rowAxis = CellAxis::of(rows, maxCells);
  CellSums sums(rowAxis, CellAxis::of(cols, maxCells));
  for (int r = 0; r < rows; ++r) {
    double rowWeight = rowWeights.empty() ? 1.0 : rowWeights[static_cast<std::size_t>(r)];
    int rowCell = rowAxis.cellOf(r);
    for (int c = 0; c < cols; ++c) {
      double weight = rowWeight * (colWeights.empty() ? 1.0 : colWeights[static_cast<std::size_t>(c)]);
      sums.add(rowCell, c, values[static_cast<std::size_t>(r) * cols + c], weight);
    }
  }
  return std::move(sums).finish();
}

Heatmap nonZeroHeatmap(const Matrix& matrix, int maxCells) {
  CellAxis rowAxis = CellAxis::of(matrix.rows(), maxCells);
  CellSums sums(rowAxis, CellAxis::of(matrix.cols(), maxCells));
  for (int r = 0; r < matrix.rows(); ++r) {
    int rowCell = rowAxis.cellOf(r);
    const float* row = matrix.data() + static_cast<std::size_t>(r) * matrix.cols();
    for (int c = 0; c < matrix.cols(); ++c) sums.add(rowCell, c, row[c] != 0.0f ? 1.0 : 0.0, 1.0);
  }
  return std::move(sums).finish();
}

Heatmap patternHeatmap(const Pattern& pattern, int maxCells) {
  bool isA = pattern.operand == Operand::A;
  CellAxis tileAxis = CellAxis::of(pattern.tiles, maxCells);
  CellAxis kAxis = CellAxis::of(pattern.kBlocks, maxCells);
  CellAxis rowAxis = isA ? tileAxis : kAxis;
  CellSums sums(rowAxis, isA ? kAxis : tileAxis);
  for (int t = 0; t < pattern.tiles; ++t) {
    for (int kb = 0; kb < pattern.kBlocks; ++kb) {
      int realBits = std::min(kKBlock, pattern.depth - kb * kKBlock);
      double set = std::popcount(pattern.at(t, kb));
      if (isA) {
        sums.add(rowAxis.cellOf(t), kb, set / realBits, realBits);
      } else {
        sums.add(rowAxis.cellOf(kb), t, set / realBits, realBits);
      }
    }
  }
  return std::move(sums).finish();
}

}  // namespace tileskip
