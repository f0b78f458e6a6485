#include "core/reference.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace tileskip {

void checkMultiplicable(const Matrix& a, const Matrix& b) {
  if (a.empty() || b.empty()) throw InputError("cannot multiply an empty matrix");
  if (a.cols() != b.rows()) {
    throw InputError("shapes do not agree: A is " + std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                     " and B is " + std::to_string(b.rows()) + "x" + std::to_string(b.cols()) +
                     "; A's columns must equal B's rows");
  }
  checkMatrixShape(a.rows(), b.cols(), "C");
}

void referenceSgemm(const Matrix& a, const Matrix& b, Matrix& c) {
  checkMultiplicable(a, b);
  if (c.rows() != a.rows() || c.cols() != b.cols()) c = Matrix(a.rows(), b.cols());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, a.rows(), b.cols(), a.cols(), 1.0f, a.data(), a.cols(),
              b.data(), b.cols(), 0.0f, c.data(), c.cols());
}

Matrix referenceSgemm(const Matrix& a, const Matrix& b) {
  Matrix c;
  referenceSgemm(a, b, c);
  return c;
}

Matrix referenceExact(const Matrix& a, const Matrix& b) {
  checkMultiplicable(a, b);
  const int m = a.rows(), n = b.cols(), k = a.cols();
  Matrix c(m, n);
  std::vector<double> row(static_cast<std::size_t>(n));
  // i-k-j order streams rows of B, so even the exact reference is cache friendly.
  for (int i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int p = 0; p < k; ++p) {
      double aip = a(i, p);
      if (aip == 0.0) continue;
      const float* bRow = &b.data()[static_cast<std::size_t>(p) * n];
      for (int j = 0; j < n; ++j) row[j] += aip * static_cast<double>(bRow[j]);
    }
    for (int j = 0; j < n; ++j) c(i, j) = static_cast<float>(row[j]);
  }
  // The skip above ignores 0·Inf = NaN; put IEEE semantics back where they matter.
  if (hasNonFinite(a) || hasNonFinite(b)) {
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < k; ++p) {
        if (a(i, p) != 0.0f) continue;
        for (int j = 0; j < n; ++j) {
          if (!std::isfinite(b(p, j))) c(i, j) = std::numeric_limits<float>::quiet_NaN();
        }
      }
    }
  }
  return c;
}

bool hasNonFinite(const Matrix& m) {
  return std::any_of(m.values().begin(), m.values().end(), [](float v) { return !std::isfinite(v); });
}

double errorTolerance(int k) {
  constexpr double kEpsilon = std::numeric_limits<float>::epsilon();
  return 16.0 * kEpsilon * std::sqrt(static_cast<double>(std::max(k, 16)));
}

ErrorReport compareToReference(const Matrix& c, const Matrix& reference, int k, bool inputsNonFinite) {
  if (c.rows() != reference.rows() || c.cols() != reference.cols()) {
    throw InputError("result is " + std::to_string(c.rows()) + "x" + std::to_string(c.cols()) +
                     " but the reference is " + std::to_string(reference.rows()) + "x" +
                     std::to_string(reference.cols()));
  }
  ErrorReport report;
  report.tolerance = errorTolerance(k);
  report.inputsNonFinite = inputsNonFinite;
  double diffSquared = 0.0, refSquared = 0.0, refMax = 0.0;
  std::span<const float> got = c.values(), want = reference.values();
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool gotFinite = std::isfinite(got[i]), wantFinite = std::isfinite(want[i]);
    if (!gotFinite || !wantFinite) {
      bool same = (std::isnan(got[i]) && std::isnan(want[i])) || got[i] == want[i];
      report.mismatchedNonFinite += !same;
      report.nonFiniteWhereReferenceFinite += !same && wantFinite;
      continue;
    }
    double diff = static_cast<double>(got[i]) - static_cast<double>(want[i]);
    diffSquared += diff * diff;
    refSquared += static_cast<double>(want[i]) * want[i];
    refMax = std::max(refMax, std::abs(static_cast<double>(want[i])));
    report.maxAbs = std::max(report.maxAbs, std::abs(diff));
  }
  report.relativeFrobenius = refSquared > 0.0 ? std::sqrt(diffSquared / refSquared) : std::sqrt(diffSquared);
  bool withinTolerance = report.relativeFrobenius <= report.tolerance && report.maxAbs <= report.tolerance * refMax;
  if (refMax == 0.0) withinTolerance = report.maxAbs == 0.0;
  bool mismatchesExplained = inputsNonFinite && report.nonFiniteWhereReferenceFinite == 0;
  report.passed = withinTolerance && (report.mismatchedNonFinite == 0 || mismatchesExplained);
  return report;
}

std::string ErrorReport::summary() const {
  std::ostringstream out;
  out.precision(2);
  out << std::scientific << "rel.frobenius " << relativeFrobenius << ", max-abs " << maxAbs << ", tolerance "
      << tolerance;
  if (mismatchedNonFinite > 0) {
    out << ", " << mismatchedNonFinite << " NaN/Inf mismatches" << (inputsNonFinite ? " (inputs hold NaN/Inf)" : "");
    if (nonFiniteWhereReferenceFinite > 0) out << ", " << nonFiniteWhereReferenceFinite << " where the reference is finite";
  }
  return out.str();
}

NonFiniteCount countNonFinite(const Matrix& m) {
  NonFiniteCount count;
  for (float v : m.values()) {
    count.nan += std::isnan(v);
    count.inf += std::isinf(v);
  }
  return count;
}

std::string NonFiniteCount::describe() const {
  if (total() == 0) return "no NaN or Inf";
  std::string text;
  if (nan > 0) text += std::to_string(nan) + " NaN";
  if (inf > 0) text += std::string(text.empty() ? "" : " and ") + std::to_string(inf) + " Inf";
  return text;
}

}  // namespace tileskip
