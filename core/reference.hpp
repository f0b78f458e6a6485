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
  std::size_t mismatchedNonFinite = 0;  // elements where exactly one of C and R is NaN/Inf
  bool inputsNonFinite = false;         // A or B held NaN or Inf
  bool passed = false;

  std::string summary() const;
};

double errorTolerance(int k);

// `inputsNonFinite` says whether A or B held NaN/Inf. Then the skipping kernels legitimately
// differ from the dense reference where 0·Inf = NaN was skipped, so non-finite mismatches are
// counted and reported but do not fail; with finite inputs any NaN/Inf in C fails.
ErrorReport compareToReference(const Matrix& c, const Matrix& reference, int k, bool inputsNonFinite = false);

bool hasNonFinite(const Matrix& m);

}  // namespace tileskip
