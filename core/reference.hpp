// The CPU reference and the one error measure every backend is checked with.
#pragma once

#include <cstddef>
#include <string>

#include "core/matrix.hpp"

namespace tileskip {

// C = A·B through OpenBLAS cblas_sgemm: the fast reference, and the `cpu` baseline.
void referenceSgemm(const Matrix& a, const Matrix& b, Matrix& c);
Matrix referenceSgemm(const Matrix& a, const Matrix& b);

// C = A·B accumulated in float64, rounded once to float: the exact reference for small checks.
Matrix referenceExact(const Matrix& a, const Matrix& b);

// Throws InputError unless A is M×K and B is K×N.
void checkMultiplicable(const Matrix& a, const Matrix& b);

// Relative Frobenius error ||C - R||_F / ||R||_F and max-abs error max|C - R|, with the pass
// rule: relative Frobenius <= tolerance and max-abs <= tolerance · max|R|. The tolerance grows
// with sqrt(K), the expected growth of rounding error in a K-term fp32 dot product: correct fp32
// kernels pass with room to spare, TF32 arithmetic or a single dropped product do not.
struct ErrorReport {
  double relativeFrobenius = 0.0;
  double maxAbs = 0.0;
  double tolerance = 0.0;
  std::size_t mismatchedNonFinite = 0;  // elements where C and R differ and one of them is NaN/Inf
  std::size_t nonFiniteWhereReferenceFinite = 0;  // of those, where R is finite: never explained by skipping
  bool inputsNonFinite = false;         // A or B held NaN or Inf
  bool passed = false;

  std::string summary() const;
};

double errorTolerance(int k);

// `inputsNonFinite` says whether A or B held NaN/Inf. Then the skipping kernels legitimately
// differ from the dense reference where it formed 0·Inf = NaN and they skipped that product,
// so mismatches where the reference is NaN/Inf are counted and reported but do not fail. A
// NaN/Inf in C where the reference is finite is no skipped product (an unwritten element,
// say) and always fails, as does any non-finite mismatch when the inputs are finite.
ErrorReport compareToReference(const Matrix& c, const Matrix& reference, int k, bool inputsNonFinite = false);

bool hasNonFinite(const Matrix& m);

struct NonFiniteCount {
  std::size_t nan = 0, inf = 0;
  std::size_t total() const { return nan + inf; }
  std::string describe() const;  // "2 NaN and 1 Inf", "no NaN or Inf"
};
NonFiniteCount countNonFinite(const Matrix& m);

}  // namespace tileskip
