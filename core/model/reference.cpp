#include "core/model/reference.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <span>
#include <vector>

#include "core/model/error.hpp"

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

namespace {
constexpr double kUnitRoundoff = 0x1p-24;  // fp32: half an ulp of 1
constexpr double kLargestFloat = std::numeric_limits<float>::max();

std::vector<double> toDouble(const Matrix& m, bool absolute) {
  std::vector<double> out(m.values().size());
  std::span<const float> in = m.values();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = absolute ? std::abs(static_cast<double>(in[i])) : in[i];
  return out;
}

void dgemm(int m, int n, int k, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c) {
  c.assign(static_cast<std::size_t>(m) * n, 0.0);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, c.data(), n);
}

// IEEE arithmetic forms 0·Inf = NaN; make sure the reference does, whatever shortcuts the BLAS
// takes around zeros. Visits only the zeros and non-finite values that can form such a product.
void restoreZeroTimesInfinity(const Matrix& a, const Matrix& b, std::vector<double>& c) {
  const int m = a.rows(), k = a.cols(), n = b.cols();
  std::vector<std::vector<int>> nonFiniteInRow(k), zeroInRow(k);
  for (int p = 0; p < k; ++p) {
    for (int j = 0; j < n; ++j) {
      if (!std::isfinite(b(p, j))) nonFiniteInRow[p].push_back(j);
      if (b(p, j) == 0.0f) zeroInRow[p].push_back(j);
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < m; ++i) {
    for (int p = 0; p < k; ++p) {
      float aip = a(i, p);
      if (aip == 0.0f) {
        for (int j : nonFiniteInRow[p]) c[static_cast<std::size_t>(i) * n + j] = nan;
      } else if (!std::isfinite(aip)) {
        for (int j : zeroInRow[p]) c[static_cast<std::size_t>(i) * n + j] = nan;
      }
    }
  }
}
}  // namespace

ReferenceProduct referenceProduct(const Matrix& a, const Matrix& b) {
  checkMultiplicable(a, b);
  ReferenceProduct r;
  r.rows = a.rows();
  r.cols = b.cols();
  r.k = a.cols();
  r.inputsNonFinite = hasNonFinite(a) || hasNonFinite(b);
  // A·B, then |A|·|B| through the same DGEMM, reusing the float64 copies of A and B.
  std::vector<double> a64 = toDouble(a, false), b64 = toDouble(b, false);
  dgemm(r.rows, r.cols, r.k, a64, b64, r.value);
  for (double& v : a64) v = std::abs(v);
  for (double& v : b64) v = std::abs(v);
  dgemm(r.rows, r.cols, r.k, a64, b64, r.magnitude);
  if (r.inputsNonFinite) {
    restoreZeroTimesInfinity(a, b, r.value);
    restoreZeroTimesInfinity(a, b, r.magnitude);
  }
  return r;
}

Matrix ReferenceProduct::rounded() const {
  Matrix c(rows, cols);
  for (std::size_t i = 0; i < value.size(); ++i) c.values()[i] = static_cast<float>(value[i]);
  return c;
}

double errorBoundFactor(int k) { return 2.0 + 1.25 * std::sqrt(static_cast<double>(std::max(k, 1))); }

double errorTolerance(int k) { return errorBoundFactor(k) * kUnitRoundoff; }

ErrorReport compareToReference(const Matrix& c, const ReferenceProduct& reference, StoredOutput stored) {
  if (c.rows() != reference.rows || c.cols() != reference.cols) {
    throw InputError("result is " + std::to_string(c.rows()) + "x" + std::to_string(c.cols()) +
                     " but the reference is " + std::to_string(reference.rows) + "x" +
                     std::to_string(reference.cols));
  }
  ErrorReport report;
  report.k = reference.k;
  report.tolerance = errorTolerance(reference.k);
  report.inputsNonFinite = reference.inputsNonFinite;
  // Flushing subnormals to zero may lose up to FLT_MIN per product and per partial sum.
  const double underflowSlack = 2.0 * reference.k * static_cast<double>(std::numeric_limits<float>::min());
  const double storeRounding = stored.type == DType::Fp32 ? 0.0 : unitRoundoff(stored.type);
  double diffSquared = 0.0, refSquared = 0.0;
  std::span<const float> got = c.values();
  report.elements = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    double want = reference.value[i];
    // A finite float64 product beyond fp32's range is Inf in any fp32 C.
    if (std::isfinite(want) && !std::isfinite(static_cast<float>(want))) want = static_cast<float>(want);
    if (stored.relu && !(want > 0.0) && !std::isnan(want)) want = 0.0;
    bool gotFinite = std::isfinite(got[i]), wantFinite = std::isfinite(want);
    if (!gotFinite || !wantFinite) {
      bool same = (std::isnan(got[i]) && std::isnan(want)) || got[i] == want;
      if (same) continue;
      // The products of a finite element may sum past fp32's range along the way though their
      // float64 sum does not: any fp32 accumulation may then end in Inf or NaN, the host BLAS too.
      if (wantFinite && reference.magnitude[i] > kLargestFloat) {
        ++report.partialSumOverflows;
        continue;
      }
      report.mismatchedNonFinite += 1;
      report.nonFiniteWhereReferenceFinite += wantFinite;
      report.infinityMismatches += std::isinf(want);
      continue;
    }
    double diff = std::abs(static_cast<double>(got[i]) - want);
    double magnitude = reference.magnitude[i];
    double bound = magnitude > 0.0 ? report.tolerance * magnitude + underflowSlack : 0.0;
    bound += storeRounding * (std::abs(static_cast<double>(got[i])) + bound);
    double ratio = diff == 0.0 ? 0.0 : bound > 0.0 ? diff / bound : std::numeric_limits<double>::infinity();
    report.beyondBound += diff > bound;
    if (ratio > report.worstRatio || report.worstRow < 0) {
      report.worstRatio = ratio;
      report.worstRow = static_cast<int>(i / reference.cols);
      report.worstCol = static_cast<int>(i % reference.cols);
      report.worstGot = got[i];
      report.worstWant = want;
      report.worstBound = bound;
    }
    diffSquared += diff * diff;
    refSquared += want * want;
    report.maxAbs = std::max(report.maxAbs, diff);
  }
  report.relativeFrobenius = refSquared > 0.0 ? std::sqrt(diffSquared / refSquared) : std::sqrt(diffSquared);
  // Only a NaN of the reference is explained by NaN/Inf inputs (a skipped 0·Inf); where it is
  // ±Inf, no product of a zero formed it and every kernel must give that Inf.
  bool mismatchesExplained =
      reference.inputsNonFinite && report.nonFiniteWhereReferenceFinite == 0 && report.infinityMismatches == 0;
  report.passed = report.beyondBound == 0 && (report.mismatchedNonFinite == 0 || mismatchesExplained);
  return report;
}

std::string ErrorReport::summary() const {
  auto number = [](const char* format, double v) {
    char text[64];
    std::snprintf(text, sizeof text, format, v);
    return std::string(text);
  };
  std::string out;
  if (beyondBound > 0) {
    out = std::to_string(beyondBound) + " of " + std::to_string(elements) + " elements beyond the bound; worst ";
  } else if (worstRow >= 0) {
    out = "every element within the bound; closest ";
  } else {
    out = "no element both finite and expected finite to compare";
  }
  if (worstRow >= 0) {
    out += "C(" + std::to_string(worstRow) + "," + std::to_string(worstCol) + ") = " + number("%.9g", worstGot) +
           " vs " + number("%.9g", worstWant) + ", off by " + number("%.2e", std::abs(worstGot - worstWant)) + " = " +
           number("%.3g", worstRatio) + " x its bound " + number("%.2e", worstBound) + " (c(K)·u·(|A|·|B|)_ij, c(" +
           std::to_string(k) + ") = " + number("%.4g", errorBoundFactor(k)) + ")";
  }
  out += "; rel.frobenius " + number("%.2e", relativeFrobenius) + ", max-abs " + number("%.2e", maxAbs);
  if (mismatchedNonFinite > 0) {
    out += ", " + std::to_string(mismatchedNonFinite) + " NaN/Inf mismatches" +
           (inputsNonFinite ? " (inputs hold NaN/Inf)" : "");
    if (nonFiniteWhereReferenceFinite > 0) {
      out += ", " + std::to_string(nonFiniteWhereReferenceFinite) + " where the reference is finite";
    }
    if (infinityMismatches > 0) out += ", " + std::to_string(infinityMismatches) + " where the reference is Inf";
  }
  if (partialSumOverflows > 0) {
    out += "; " + std::to_string(partialSumOverflows) +
           " element(s) Inf/NaN where the float64 product is finite but |A|·|B| exceeds fp32's range, so fp32 partial "
           "sums may overflow in any order (the inputs' scale, not the kernel)";
  }
  return out;
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
