// Heatmaps: a matrix, a pattern or a per-tile map aggregated into at most a few hundred cells
// per side, so that a viewer draws a 4096x4096 matrix as ~128x128 rectangles and every cell
// still holds an exact figure (a fraction in [0, 1]) that a test can check against the source.
#pragma once

#include <span>
#include <vector>

#include "core/model/matrix.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

// The source units of one axis (elements, tiles or K-blocks) split into consecutive cells:
// cell i covers [i·S/C, (i+1)·S/C) in integer arithmetic, so cells differ by at most one unit.
struct CellAxis {
  int units = 0;  // S: source units along this axis
  int cells = 0;  // C: min(S, maxCells)

  static CellAxis of(int units, int maxCells);
  int first(int cell) const;       // first source unit of a cell
  int end(int cell) const;         // one past its last source unit
  int cellOf(int unit) const;      // the cell a source unit falls in
};

struct Heatmap {
  CellAxis rowAxis, colAxis;
  std::vector<float> values;   // per cell, row-major, each in [0, 1]
  std::vector<double> weights;  // per cell: the total weight of the source units it covers

  int rows() const { return rowAxis.cells; }
  int cols() const { return colAxis.cells; }
  float at(int row, int col) const { return values[index(row, col)]; }
  // The weighted mean over every cell: equal to the source's own weighted mean.
  double mean() const;

 private:
  std::size_t index(int row, int col) const { return static_cast<std::size_t>(row) * colAxis.cells + col; }
};

// Weighted mean of `values` (rows x cols, row-major) over each cell. A unit's weight is
// rowWeights[r] · colWeights[c] (1 where a span is empty), so a map of per-tile fractions
// weighted by tile area keeps its area-weighted mean exactly.
Heatmap aggregate(std::span<const float> values, int rows, int cols, int maxCells,
                  std::span<const float> rowWeights = {}, std::span<const float> colWeights = {});

// Fraction of non-zero elements per cell; rows and columns are the matrix's.
Heatmap nonZeroHeatmap(const Matrix& matrix, int maxCells);

// Fraction of a pattern's real bits set per cell (a partial last K-block has fewer real bits).
// Laid out like its operand: A-pattern rows = row tiles, columns = K-blocks; B-pattern
// rows = K-blocks, columns = column tiles.
Heatmap patternHeatmap(const Pattern& pattern, int maxCells);

}  // namespace tileskip
