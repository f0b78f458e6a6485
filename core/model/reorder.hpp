// Reordering: permutations of A's rows, B's columns and the shared K index that gather zeros
// into the tiles and K-blocks the skipping kernels can skip.
//
// C = A·B is invariant under one permutation of K applied to A's columns and B's rows together;
// C's rows follow A's rows and C's columns follow B's columns. So with A' = A[rowOrder][:, kOrder]
// and B' = B[kOrder][:, colOrder], C' = A'·B' holds C[rowOrder[i]][colOrder[j]] at (i, j), and
// restoreC() puts every element back: a pure permutation, nothing recomputed. The values equal
// the unreordered product's up to the order of the K summation (a kernel that sums K in a
// different order rounds differently), not bit for bit.
//
// What the heuristic optimises: the joint pattern of A' at row granularity R and B' at column
// granularity G. Only which rows share a row tile, which columns share a column tile and which
// K indices share a K-block matter (the order of the tiles does not), so it builds those
// partitions: rows with the same non-zero signature fill whole tiles first, the rest are
// clustered by a sort on their signatures; the K indices are then grouped by the row and column
// tiles they touch; a few rounds alternate. A second candidate sorts by non-zero counts (which
// suits ReLU-like zeros, clustered by row and column). The candidate with the fewest kept
// (tile, K-block) pairs and rank-1 updates wins, and the identity wins unless beaten, so a
// reordering never makes the patterns at (R, G) worse by that measure. Unstructured random
// zeros below ~95 % sparsity leave nothing to gather: expect no gain there.
#pragma once

#include <span>
#include <vector>

#include "core/model/matrix.hpp"

namespace tileskip {

// Each order maps a new position to an original index: row i of A' is row rowOrder[i] of A.
struct Reordering {
  std::vector<int> rowOrder;  // M: A's rows, and C's rows
  std::vector<int> colOrder;  // N: B's columns, and C's columns
  std::vector<int> kOrder;    // K: A's columns and B's rows

  bool isIdentity() const;
};

// The identity reordering of an M×K · K×N problem.
Reordering identityReordering(int m, int n, int k);

// Finds a reordering for the joint pattern at (aGranularity, bGranularity). Throws
// InputError unless A is M×K and B is K×N and both granularities are at least 1.
Reordering findReordering(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity);

// out row i = m's row order[i]; out column j = m's column order[j]. Throw InputError unless
// order is a permutation of m's rows (columns).
Matrix permuteRows(const Matrix& m, std::span<const int> order);
Matrix permuteCols(const Matrix& m, std::span<const int> order);

// A' = A[rowOrder][:, kOrder] and B' = B[kOrder][:, colOrder].
struct ReorderedProblem {
  Matrix a, b;
};
ReorderedProblem applyReordering(const Matrix& a, const Matrix& b, const Reordering& r);

// C in the original order from C' = A'·B': C[rowOrder[i]][colOrder[j]] = C'[i][j]. Exact (a
// permutation of the elements). Throws InputError unless C' is rowOrder.size() × colOrder.size().
Matrix restoreC(const Matrix& cPermuted, const Reordering& r);

// K in the order of how many of A's rows have a non-zero in each column, most first (ties in K
// order): for ReLU activations, the neurons the most tokens fire, first. It leaves every row tile's
// count of live columns as it is but clusters them: the hot neurons share K-groups and the cold
// ones leave theirs dead, which is what a compaction kernel that copies well-filled ranges whole
// and gathers the others' columns gains from.
std::vector<int> firingOrder(const Matrix& a);

// Throws InputError unless the three orders are permutations of 0..M-1, 0..N-1 and 0..K-1.
void checkReordering(const Reordering& r, int m, int n, int k);

// The measure findReordering() minimises, over M·N·K: the mean of the joint density at
// K-block level (a (tile, K-block) pair counts 8 K indices, or the block's real size, when its
// joint byte is non-zero) and at bit level (JointStats::jointDensity). 1 for dense operands.
double reorderCost(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity);

}  // namespace tileskip
