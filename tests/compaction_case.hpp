// A problem on which a compaction kernel's answer differs from a dense kernel's, for the tests of
// both backends. B's rows are NaN at K indices no row of A needs (0 x NaN is NaN), and a row
// tile's sum runs over its own live columns: a kernel that multiplies exactly those gets every
// sum exact and finite, a dense kernel gets NaN everywhere, and one that drops a live column gets
// a wrong sum. The even tiles also have ranges of 64 columns three quarters live (elsewhere one
// column in eight is), so a kernel that copies such a range whole, dead columns and all (S15),
// gets NaN in exactly those tiles' rows, and finite sums in the odd tiles, which it gathers.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/model/matrix.hpp"

namespace tileskip::testing {

struct CompactionCase {
  Matrix a, b;
  int tileRows;
};

// Small integers throughout, so fp16 holds every value and fp32 every sum exactly.
inline CompactionCase compactionCase(int m, int n, int k, int tileRows) {
  CompactionCase c{Matrix(m, k), Matrix(k, n), tileRows};
  for (int r = 0; r < m; ++r) {
    const int tile = r / tileRows;
    for (int kk = 0; kk < k; ++kk) {
      const bool fullRange = tile % 2 == 0 && (kk / 64 + tile / 2) % 3 == 0;
      const bool tileNeedsColumn = fullRange ? kk % 4 != 0 : kk % 8 == 1;
      if (tileNeedsColumn && (r + kk) % 3 == 0) c.a(r, kk) = static_cast<float>((r * 5 + kk) % 7 - 3 == 0 ? 1 : (r * 5 + kk) % 7 - 3);
    }
  }
  for (int kk = 0; kk < k; ++kk) {
    for (int col = 0; col < n; ++col) {
      c.b(kk, col) = kk % 12 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>((kk * 3 + col) % 5 - 2);
    }
  }
  return c;
}

// C as compaction defines it: row r sums over the columns some row of its tile has a non-zero in,
// and, where `wholeRangeColumns` > 0, over every column of a range of `rangeColumns` in which the
// tile has at least that many live ones (a range copied whole).
inline std::vector<double> compactedProduct(const CompactionCase& c, int wholeRangeColumns = 0, int rangeColumns = 64) {
  const int m = c.a.rows(), k = c.a.cols(), n = c.b.cols();
  std::vector<double> out(static_cast<std::size_t>(m) * n, 0.0);
  for (int r = 0; r < m; ++r) {
    const int first = r / c.tileRows * c.tileRows, last = std::min(m, first + c.tileRows);
    std::vector<bool> live(static_cast<std::size_t>(k), false);
    for (int kk = 0; kk < k; ++kk) {
      for (int t = first; t < last && !live[kk]; ++t) live[kk] = c.a(t, kk) != 0.0f;
    }
    for (int kk = 0; kk < k; ++kk) {
      const int from = kk / rangeColumns * rangeColumns, to = std::min(k, from + rangeColumns);
      const bool whole = wholeRangeColumns > 0 && std::count(live.begin() + from, live.begin() + to, true) >= wholeRangeColumns;
      if (!live[kk] && !whole) continue;
      for (int col = 0; col < n; ++col) out[static_cast<std::size_t>(r) * n + col] += double{c.a(r, kk)} * c.b(kk, col);
    }
  }
  return out;
}

// How many elements of `got` differ from `expected` (NaN must meet NaN; the sums are exact).
inline int compactionMismatches(const Matrix& got, const std::vector<double>& expected) {
  int wrong = 0;
  for (int r = 0; r < got.rows(); ++r) {
    for (int col = 0; col < got.cols(); ++col) {
      const double want = expected[static_cast<std::size_t>(r) * got.cols() + col];
      const double have = got(r, col);
      wrong += std::isnan(want) ? !std::isnan(have) : !(have == want);
    }
  }
  return wrong;
}

}  // namespace tileskip::testing
