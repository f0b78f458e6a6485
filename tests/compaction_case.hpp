// A problem on which a compaction kernel's answer differs from a dense kernel's, for the tests of
// both backends: B's rows at some K indices are NaN, and each 64-row tile of A has columns of its
// own that none of its rows needs. A kernel that multiplies only the columns some row of a row's
// tile needs gets NaN exactly where such a column meets a NaN row of B (0 x NaN is NaN), and a
// finite sum everywhere else: a dense kernel gets NaN in every column of C fed by a NaN row, and a
// kernel that leaves out a needed column gets a finite number where NaN belongs.
#pragma once

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
      const bool tileNeedsColumn = (kk * 7 + tile * 3) % 4 != 0;
      if (tileNeedsColumn && (r + kk) % 3 == 0) c.a(r, kk) = static_cast<float>((r * 5 + kk) % 7 - 3 == 0 ? 1 : (r * 5 + kk) % 7 - 3);
    }
  }
  for (int kk = 0; kk < k; ++kk) {
    for (int col = 0; col < n; ++col) {
      c.b(kk, col) = kk % 5 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>((kk * 3 + col) % 5 - 2);
    }
  }
  return c;
}

// C as compaction defines it: row r sums over the columns some row of its tile has a non-zero in.
inline std::vector<double> compactedProduct(const CompactionCase& c) {
  const int m = c.a.rows(), k = c.a.cols(), n = c.b.cols();
  std::vector<double> out(static_cast<std::size_t>(m) * n, 0.0);
  for (int r = 0; r < m; ++r) {
    const int first = r / c.tileRows * c.tileRows, last = std::min(m, first + c.tileRows);
    for (int kk = 0; kk < k; ++kk) {
      bool live = false;
      for (int t = first; t < last && !live; ++t) live = c.a(t, kk) != 0.0f;
      if (!live) continue;
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
