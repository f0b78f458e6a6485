// The CPU reference and the one error measure every backend is checked with.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"

namespace tileskip {

// C = A·B through OpenBLAS cblas_sgemm: the fast reference, and the `cpu` baseline.
void referenceSgemm(const Matrix& a, const Matrix& b, Matrix& c);
Matrix referenceSgemm(const Matrix& a, const Matrix& b);

// C = A·B accumulated in float64, rounded once to float: the exact reference for small checks.
Matrix referenceExact(const Matrix& a, const Matrix& b);

// Throws InputError unless A is M×K and B is K×N.
void checkMultiplicable(const Matrix& a, const Matrix& b);

// The product a kernel's C is checked against, both in float64 through OpenBLAS DGEMM: A·B
// itself, and |A|·|B|, which the error bound scales with element by element. float64 leaves
// the reference's own rounding (about K·2^-53 relative to |A|·|B|) far below fp32's.
struct ReferenceProduct {
  int rows = 0, cols = 0, k = 0;
  std::vector<double> value;      // A·B, row-major
  std::vector<double> magnitude;  // |A|·|B|, row-major
  bool inputsNonFinite = false;   // A or B held NaN or Inf
  double at(int i, int j) const { return value[static_cast<std::size_t>(i) * cols + j]; }
  double magnitudeAt(int i, int j) const { return magnitude[static_cast<std::size_t>(i) * cols + j]; }
  Matrix rounded() const;  // A·B rounded once to fp32
};
ReferenceProduct referenceProduct(const Matrix& a, const Matrix& b);

// The pass rule, element by element over the finite elements of C:
//   |C_ij - R_ij| <= c(K) · u · (|A|·|B|)_ij + 2K · FLT_MIN   (the last term only where (|A|·|B|)_ij > 0)
// with R the float64 product, u = 2^-24 the fp32 unit roundoff and c(K) = errorBoundFactor(K)
// = 2 + 1.25·sqrt(K). docs/testing.md ("The error measure") derives c(K): it holds for any
// fp32 summation order with room to spare, yet a single dropped rank-1 update a_ip·b_pj of
// average size is caught up to K of about 60 000 (one product of ones at K = 52 230). Where
// |A|·|B| is zero, C must be exactly zero. Relative Frobenius and max-abs errors are reported.
struct ErrorReport {
  double relativeFrobenius = 0.0;
  double maxAbs = 0.0;
  double tolerance = 0.0;    // c(K)·u: the bound's factor on (|A|·|B|)_ij
  double worstRatio = 0.0;   // max over finite elements of |C_ij - R_ij| / bound_ij (> 1 fails)
  std::size_t beyondBound = 0;  // finite elements whose error exceeds their bound
  std::size_t elements = 0;
  int worstRow = -1, worstCol = -1;  // the element of worstRatio
  double worstGot = 0.0, worstWant = 0.0, worstBound = 0.0;
  int k = 0;
  std::size_t mismatchedNonFinite = 0;  // elements where C and R differ and one of them is NaN/Inf
  std::size_t nonFiniteWhereReferenceFinite = 0;  // of those, where R is finite: never explained by skipping
  std::size_t infinityMismatches = 0;  // of those, where R is ±Inf: no skipped 0·Inf explains them either
  // Elements NaN/Inf in C where R is finite but (|A|·|B|)_ij exceeds fp32's range: partial sums in
  // fp32 may overflow whatever the order, so these pass (and are reported).
  std::size_t partialSumOverflows = 0;
  bool inputsNonFinite = false;         // A or B held NaN or Inf
  bool passed = false;

  // Names the worst element and by how much it misses (or keeps) its bound.
  std::string summary() const;
};

double errorBoundFactor(int k);  // c(K) = 2 + 1.25·sqrt(K)
double errorTolerance(int k);    // c(K)·u

// `reference.inputsNonFinite` says whether A or B held NaN/Inf. Then the skipping kernels
// legitimately differ from the dense reference where it formed 0·Inf = NaN and they skipped
// that product, so mismatches where the reference is NaN are counted and reported but do not
// fail. Where the reference is ±Inf, C must be the same Inf (a 0·Inf would have made it NaN). A
// NaN/Inf in C where the reference is finite is no skipped product (an unwritten element, say)
// and fails, as does any non-finite mismatch when the inputs are finite, except where the
// element's |A|·|B| exceeds fp32's range: its fp32 partial sums may overflow in any order
// (partialSumOverflows).
// How the C under comparison was stored: as every kernel computes it (fp32), or (an MLP layer's
// hidden activations H, written by the first GEMM's epilogue) through a ReLU and then rounded once
// to a 16-bit type. The reference goes through the ReLU too, and each bound widens by that one
// rounding: bound_ij + u_type · (|C_ij| + bound_ij), u_type the type's unit roundoff.
struct StoredOutput {
  bool relu = false;
  DType type = DType::Fp32;
};
ErrorReport compareToReference(const Matrix& c, const ReferenceProduct& reference, StoredOutput stored = {});

bool hasNonFinite(const Matrix& m);

struct NonFiniteCount {
  std::size_t nan = 0, inf = 0;
  std::size_t total() const { return nan + inf; }
  std::string describe() const;  // "2 NaN and 1 Inf", "no NaN or Inf"
};
NonFiniteCount countNonFinite(const Matrix& m);

}  // namespace tileskip
