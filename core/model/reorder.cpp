#include "core/model/reorder.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"

namespace tileskip {

namespace {

using Word = std::uint64_t;

// `count` bitsets of `words` 64-bit words each, stored contiguously.
struct BitRows {
  int count = 0;
  int words = 0;
  std::vector<Word> data;

  BitRows() = default;
  BitRows(int count_, int bits) : count(count_), words(std::max(1, ceilDiv(bits, 64))) {
    data.assign(static_cast<std::size_t>(count) * static_cast<std::size_t>(words), 0);
  }
  Word* row(int i) { return &data[static_cast<std::size_t>(i) * static_cast<std::size_t>(words)]; }
  const Word* row(int i) const { return &data[static_cast<std::size_t>(i) * static_cast<std::size_t>(words)]; }
};

// Key bits are stored most significant first, so comparing words as integers compares the
// bitsets lexicographically by bit index.
void setKeyBit(Word* words, int bit) { words[bit >> 6] |= Word{1} << (63 - (bit & 63)); }

template <typename F>
void forEachSetBit(const Word* words, int count, F&& f) {
  for (int w = 0; w < count; ++w) {
    Word x = words[w];
    while (x != 0) {
      f(w * 64 + std::countr_zero(x));
      x &= x - 1;
    }
  }
}

// std::popcount without a popcnt instruction (the build targets baseline x86-64) is a libgcc
// call; these stay inline.
int popcount64(Word x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

// Bytes of x that are non-zero, as a count.
int nonZeroBytes(Word x) {
  x |= x >> 4;
  x |= x >> 2;
  x |= x >> 1;
  return static_cast<int>(((x & 0x0101010101010101ull) * 0x0101010101010101ull) >> 56);
}

// Bit c of row r: m(r, c) != 0 (so NaN counts as non-zero and -0 as zero, as in the patterns).
BitRows nonZeroRows(const Matrix& m) {
  BitRows sets(m.rows(), m.cols());
  auto cols = static_cast<std::size_t>(m.cols());
  for (int r = 0; r < m.rows(); ++r) {
    const float* row = m.data() + static_cast<std::size_t>(r) * cols;
    Word* out = sets.row(r);
    std::size_t c = 0;
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    for (; c + 64 <= cols; c += 64) {
      Word w = 0;
      for (std::size_t j = 0; j < 64; j += 4) {
        auto bits = static_cast<unsigned>(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(row + c + j), zero)));
        w |= static_cast<Word>(bits) << j;
      }
      out[c / 64] = w;
    }
#endif
    for (; c < cols; ++c) out[c / 64] |= static_cast<Word>(row[c] != 0.0f) << (c % 64);
  }
  return sets;
}

// Bit j of word i moves to bit i of word j.
void transpose64(Word a[64]) {
  Word mask = 0x00000000ffffffffull;
  for (int j = 32; j != 0; j >>= 1, mask ^= mask << j) {
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      Word t = ((a[k] >> j) ^ a[k | j]) & mask;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
  }
}

// The bit matrix transposed: bit r of row c of the result is bit c of row r of `sets`.
BitRows transpose(const BitRows& sets, int columns) {
  BitRows out(columns, sets.count);
  Word block[64];
  for (int r0 = 0; r0 < sets.count; r0 += 64) {
    for (int w = 0; w < sets.words; ++w) {
      for (int i = 0; i < 64; ++i) block[i] = r0 + i < sets.count ? sets.row(r0 + i)[w] : 0;
      transpose64(block);
      for (int i = 0; i < 64 && w * 64 + i < columns; ++i) out.row(w * 64 + i)[r0 / 64] = block[i];
    }
  }
  return out;
}

// Bit k of row r: A[r][k] != 0 (K indices in their original order).
BitRows aRowSets(const Matrix& a) { return nonZeroRows(a); }

// Bit k of column c: B[k][c] != 0.
BitRows bColumnSets(const Matrix& b) { return transpose(nonZeroRows(b), b.cols()); }

// Union of the K-sets of each tile of `granularity` consecutive items of `order`, with the K
// indices renumbered to their new positions (newK[original] = position).
BitRows tileSets(const BitRows& sets, std::span<const int> order, int granularity, std::span<const int> newK, int k) {
  int tiles = ceilDiv(static_cast<int>(order.size()), granularity);
  BitRows unions(tiles, k);
  BitRows out(tiles, k);
  for (std::size_t i = 0; i < order.size(); ++i) {
    Word* u = unions.row(static_cast<int>(i) / granularity);
    const Word* s = sets.row(order[i]);
    for (int w = 0; w < sets.words; ++w) u[w] |= s[w];
  }
  for (int t = 0; t < tiles; ++t) {
    Word* o = out.row(t);
    forEachSetBit(unions.row(t), unions.words, [&](int kk) { o[newK[kk] >> 6] |= Word{1} << (newK[kk] & 63); });
  }
  return out;
}

std::vector<int> inverse(std::span<const int> order) {
  std::vector<int> inv(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) inv[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  return inv;
}


struct Problem {
  int m = 0, n = 0, k = 0;
  int aGranularity = 0, bGranularity = 0;
  BitRows aRows;  // per row of A, its K-set
  BitRows bCols;  // per column of B, its K-set
};

// The cost reorderCost() defines, unnormalised: kept K-block area plus kept rank-1 updates.
double cost(const Problem& p, const Reordering& r) {
  std::vector<int> newK = inverse(r.kOrder);
  BitRows aTiles = tileSets(p.aRows, r.rowOrder, p.aGranularity, newK, p.k);
  BitRows bTiles = tileSets(p.bCols, r.colOrder, p.bGranularity, newK, p.k);
  int lastBlock = (p.k - 1) / kKBlock;
  int lastBlockMissing = kKBlock * (lastBlock + 1) - p.k;  // K indices the last K-block lacks
  double total = 0.0;
  for (int rt = 0; rt < aTiles.count; ++rt) {
    const Word* a = aTiles.row(rt);
    double rows = std::min(p.aGranularity, p.m - rt * p.aGranularity);
    for (int ct = 0; ct < bTiles.count; ++ct) {
      const Word* b = bTiles.row(ct);
      std::int64_t blocks = 0, bits = 0;
      for (int w = 0; w < aTiles.words; ++w) {
        Word joint = a[w] & b[w];
        blocks += nonZeroBytes(joint);
        bits += popcount64(joint);
      }
      std::int64_t blockArea = blocks * kKBlock;
      if (lastBlockMissing > 0 && ((a[lastBlock / 8] & b[lastBlock / 8]) >> (8 * (lastBlock % 8)) & 0xffu) != 0) {
        blockArea -= lastBlockMissing;
      }
      double cols = std::min(p.bGranularity, p.n - ct * p.bGranularity);
      total += rows * cols * static_cast<double>(blockArea + bits);
    }
  }
  return total;
}

// An order of `count` items whose consecutive groups of `groupSize` are the partition: items
// with equal keys fill whole groups first; the rest follow in key order, so items with similar
// keys (a shared prefix) share groups.
std::vector<int> groupByKey(const BitRows& keys, int groupSize) {
  std::vector<int> sorted(static_cast<std::size_t>(keys.count));
  std::iota(sorted.begin(), sorted.end(), 0);
  auto less = [&](int x, int y) {
    const Word* kx = keys.row(x);
    const Word* ky = keys.row(y);
    for (int w = 0; w < keys.words; ++w) {
      if (kx[w] != ky[w]) return kx[w] > ky[w];
    }
    return x < y;
  };
  std::sort(sorted.begin(), sorted.end(), less);
  std::vector<int> order, rest;
  order.reserve(sorted.size());
  auto equal = [&](int x, int y) { return std::equal(keys.row(x), keys.row(x) + keys.words, keys.row(y)); };
  std::size_t start = 0;
  while (start < sorted.size()) {
    std::size_t end = start + 1;
    while (end < sorted.size() && equal(sorted[start], sorted[end])) ++end;
    std::size_t whole = (end - start) / static_cast<std::size_t>(groupSize) * static_cast<std::size_t>(groupSize);
    order.insert(order.end(), sorted.begin() + static_cast<std::ptrdiff_t>(start),
                 sorted.begin() + static_cast<std::ptrdiff_t>(start + whole));
    rest.insert(rest.end(), sorted.begin() + static_cast<std::ptrdiff_t>(start + whole),
                sorted.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

Word reverseBits(Word x) {
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  x = ((x >> 8) & 0x00ff00ff00ff00ffull) | ((x & 0x00ff00ff00ff00ffull) << 8);
  x = ((x >> 16) & 0x0000ffff0000ffffull) | ((x & 0x0000ffff0000ffffull) << 16);
  return (x >> 32) | (x << 32);
}

// Keys over original K indices (the sets themselves, most significant bit first).
BitRows exactKeys(const BitRows& sets) {
  BitRows keys = sets;
  for (Word& w : keys.data) w = reverseBits(w);
  return keys;
}

// Keys over the K-blocks of the current K order: which K-blocks an item touches.
BitRows kBlockKeys(const BitRows& sets, std::span<const int> kOrder, std::span<const int> newK, int k) {
  int kBlocks = ceilDiv(k, kKBlock);
  BitRows keys(sets.count, kBlocks);
  for (int i = 0; i < sets.count; ++i) {
    Word* key = keys.row(i);
    const Word* set = sets.row(i);
    int count = 0;
    for (int w = 0; w < sets.words; ++w) count += popcount64(set[w]);
    if (count * 4 < k) {
      forEachSetBit(set, sets.words, [&](int kk) { setKeyBit(key, newK[static_cast<std::size_t>(kk)] / kKBlock); });
      continue;
    }
    for (int b = 0; b < kBlocks; ++b) {  // dense: look every K index up, without branches
      Word any = 0;
      for (int kk = b * kKBlock; kk < std::min(k, (b + 1) * kKBlock); ++kk) {
        int original = kOrder[static_cast<std::size_t>(kk)];
        any |= set[original >> 6] >> (original & 63);
      }
      key[b >> 6] |= (any & 1) << (63 - (b & 63));
    }
  }
  return keys;
}

// Keys of the K indices: which row tiles of A and column tiles of B they touch.
BitRows kKeys(const Problem& p, const Reordering& r) {
  std::vector<int> identityK(static_cast<std::size_t>(p.k));
  std::iota(identityK.begin(), identityK.end(), 0);
  BitRows aTiles = tileSets(p.aRows, r.rowOrder, p.aGranularity, identityK, p.k);
  BitRows bTiles = tileSets(p.bCols, r.colOrder, p.bGranularity, identityK, p.k);
  BitRows keys(p.k, aTiles.count + bTiles.count);
  for (int t = 0; t < aTiles.count; ++t) {
    forEachSetBit(aTiles.row(t), aTiles.words, [&](int kk) { setKeyBit(keys.row(kk), t); });
  }
  for (int t = 0; t < bTiles.count; ++t) {
    forEachSetBit(bTiles.row(t), bTiles.words, [&](int kk) { setKeyBit(keys.row(kk), aTiles.count + t); });
  }
  return keys;
}

// Descending by weight, ties by index.
std::vector<int> byWeight(const std::vector<double>& weight) {
  std::vector<int> order(weight.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    if (weight[static_cast<std::size_t>(x)] != weight[static_cast<std::size_t>(y)]) {
      return weight[static_cast<std::size_t>(x)] > weight[static_cast<std::size_t>(y)];
    }
    return x < y;
  });
  return order;
}

std::vector<double> setSizes(const BitRows& sets) {
  std::vector<double> sizes(static_cast<std::size_t>(sets.count));
  for (int i = 0; i < sets.count; ++i) {
    int count = 0;
    for (int w = 0; w < sets.words; ++w) count += popcount64(sets.row(i)[w]);
    sizes[static_cast<std::size_t>(i)] = count;
  }
  return sizes;
}

void checkOrder(std::span<const int> order, int extent, const char* what) {
  if (static_cast<std::int64_t>(order.size()) != extent) {
    throw InputError(std::string(what) + " has " + std::to_string(order.size()) + " entries for an extent of " +
                     std::to_string(extent));
  }
  std::vector<char> seen(order.size(), 0);
  for (int i : order) {
    if (i < 0 || i >= extent || seen[static_cast<std::size_t>(i)]) {
      throw InputError(std::string(what) + " is not a permutation of 0.." + std::to_string(extent - 1) +
                       " (entry " + std::to_string(i) + ")");
    }
    seen[static_cast<std::size_t>(i)] = 1;
  }
}

void checkProblem(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  if (a.empty() || b.empty() || a.cols() != b.rows()) {
    throw InputError("reordering needs A M×K and B K×N; got A " + std::to_string(a.rows()) + "×" +
                     std::to_string(a.cols()) + " and B " + std::to_string(b.rows()) + "×" + std::to_string(b.cols()));
  }
  if (aGranularity < 1 || bGranularity < 1) {
    throw InputError("reordering granularities must be at least 1 (got " + std::to_string(aGranularity) + " and " +
                     std::to_string(bGranularity) + ")");
  }
}

Problem makeProblem(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  checkProblem(a, b, aGranularity, bGranularity);
  Problem p;
  p.m = a.rows();
  p.n = b.cols();
  p.k = a.cols();
  p.aGranularity = aGranularity;
  p.bGranularity = bGranularity;
  p.aRows = aRowSets(a);
  p.bCols = bColumnSets(b);
  return p;
}

}  // namespace

bool Reordering::isIdentity() const {
  auto identity = [](const std::vector<int>& order) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] != static_cast<int>(i)) return false;
    }
    return true;
  };
  return identity(rowOrder) && identity(colOrder) && identity(kOrder);
}

std::vector<int> firingOrder(const Matrix& a) {
  std::vector<int> fired(static_cast<std::size_t>(a.cols()), 0);
  for (int r = 0; r < a.rows(); ++r) {
    for (int c = 0; c < a.cols(); ++c) fired[static_cast<std::size_t>(c)] += a(r, c) != 0.0f;  // NaN fires, -0 does not
  }
  std::vector<int> order(fired.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return fired[static_cast<std::size_t>(x)] > fired[static_cast<std::size_t>(y)]; });
  return order;
}

Reordering identityReordering(int m, int n, int k) {
  Reordering r;
  r.rowOrder.resize(static_cast<std::size_t>(std::max(0, m)));
  r.colOrder.resize(static_cast<std::size_t>(std::max(0, n)));
  r.kOrder.resize(static_cast<std::size_t>(std::max(0, k)));
  std::iota(r.rowOrder.begin(), r.rowOrder.end(), 0);
  std::iota(r.colOrder.begin(), r.colOrder.end(), 0);
  std::iota(r.kOrder.begin(), r.kOrder.end(), 0);
  return r;
}

void checkReordering(const Reordering& r, int m, int n, int k) {
  checkOrder(r.rowOrder, m, "row order");
  checkOrder(r.colOrder, n, "column order");
  checkOrder(r.kOrder, k, "K order");
}

Reordering findReordering(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  Problem p = makeProblem(a, b, aGranularity, bGranularity);
  Reordering best = identityReordering(p.m, p.n, p.k);
  double bestCost = cost(p, best);
  auto consider = [&](const Reordering& candidate) {
    double c = cost(p, candidate);
    if (c < bestCost) {
      bestCost = c;
      best = candidate;
    }
  };

  // Signatures: rows and columns with the same exact K-set fill whole tiles (this ignores the
  // K order, so it works from any start), then the K indices group by the tiles they touch,
  // then rows and columns regroup by the K-blocks they touch in the new K order, and again.
  constexpr int kRounds = 3;
  Reordering r = identityReordering(p.m, p.n, p.k);
  for (int round = 0; round < kRounds; ++round) {
    if (round == 0) {
      r.rowOrder = groupByKey(exactKeys(p.aRows), p.aGranularity);
      r.colOrder = groupByKey(exactKeys(p.bCols), p.bGranularity);
    } else {
      std::vector<int> newK = inverse(r.kOrder);
      r.rowOrder = groupByKey(kBlockKeys(p.aRows, r.kOrder, newK, p.k), p.aGranularity);
      r.colOrder = groupByKey(kBlockKeys(p.bCols, r.kOrder, newK, p.k), p.bGranularity);
    }
    r.kOrder = groupByKey(kKeys(p, r), kKBlock);
    consider(r);
  }

  // Counts: dense rows, columns and K indices first, so zeros clustered by row and column (as
  // after a ReLU) gather in the far corner. A K index is weighted by the chance that both its
  // A column and its B row are non-zero.
  Reordering counted;
  counted.rowOrder = byWeight(setSizes(p.aRows));
  counted.colOrder = byWeight(setSizes(p.bCols));
  std::vector<double> kWeight(static_cast<std::size_t>(p.k), 0.0);
  {
    std::vector<double> aCount(static_cast<std::size_t>(p.k), 0.0), bCount(static_cast<std::size_t>(p.k), 0.0);
    for (int i = 0; i < p.m; ++i) forEachSetBit(p.aRows.row(i), p.aRows.words, [&](int kk) { aCount[static_cast<std::size_t>(kk)] += 1; });
    for (int j = 0; j < p.n; ++j) forEachSetBit(p.bCols.row(j), p.bCols.words, [&](int kk) { bCount[static_cast<std::size_t>(kk)] += 1; });
    for (std::size_t kk = 0; kk < kWeight.size(); ++kk) kWeight[kk] = aCount[kk] / p.m * (bCount[kk] / p.n);
  }
  counted.kOrder = byWeight(kWeight);
  consider(counted);
  return best;
}

double reorderCost(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  Problem p = makeProblem(a, b, aGranularity, bGranularity);
  return cost(p, identityReordering(p.m, p.n, p.k)) / (2.0 * p.m * static_cast<double>(p.n) * p.k);
}

namespace {

// out(i, j) = m(rowOrder[i], colOrder[j]), in one pass.
Matrix permute(const Matrix& m, std::span<const int> rowOrder, std::span<const int> colOrder) {
  Matrix out(m.rows(), m.cols());
  auto cols = static_cast<std::size_t>(m.cols());
  for (int i = 0; i < m.rows(); ++i) {
    const float* in = m.data() + static_cast<std::size_t>(rowOrder[static_cast<std::size_t>(i)]) * cols;
    float* o = out.data() + static_cast<std::size_t>(i) * cols;
    for (std::size_t j = 0; j < cols; ++j) o[j] = in[colOrder[j]];
  }
  return out;
}

std::vector<int> identityOrder(int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

}  // namespace

Matrix permuteRows(const Matrix& m, std::span<const int> order) {
  checkOrder(order, m.rows(), "row order");
  Matrix out(m.rows(), m.cols());
  auto cols = static_cast<std::size_t>(m.cols());
  for (int i = 0; i < m.rows(); ++i) {
    std::copy_n(m.data() + static_cast<std::size_t>(order[static_cast<std::size_t>(i)]) * cols, cols,
                out.data() + static_cast<std::size_t>(i) * cols);
  }
  return out;
}

Matrix permuteCols(const Matrix& m, std::span<const int> order) {
  checkOrder(order, m.cols(), "column order");
  return permute(m, identityOrder(m.rows()), order);
}

ReorderedProblem applyReordering(const Matrix& a, const Matrix& b, const Reordering& r) {
  checkProblem(a, b, 1, 1);
  checkReordering(r, a.rows(), b.cols(), a.cols());
  return {permute(a, r.rowOrder, r.kOrder), permute(b, r.kOrder, r.colOrder)};
}

Matrix restoreC(const Matrix& cPermuted, const Reordering& r) {
  if (static_cast<std::size_t>(cPermuted.rows()) != r.rowOrder.size() ||
      static_cast<std::size_t>(cPermuted.cols()) != r.colOrder.size()) {
    throw InputError("restoreC: C' is " + std::to_string(cPermuted.rows()) + "×" + std::to_string(cPermuted.cols()) +
                     " but the reordering is for " + std::to_string(r.rowOrder.size()) + "×" +
                     std::to_string(r.colOrder.size()));
  }
  checkOrder(r.rowOrder, cPermuted.rows(), "row order");
  checkOrder(r.colOrder, cPermuted.cols(), "column order");
  Matrix c(cPermuted.rows(), cPermuted.cols());
  auto cols = static_cast<std::size_t>(c.cols());
  for (int i = 0; i < c.rows(); ++i) {
    const float* in = cPermuted.data() + static_cast<std::size_t>(i) * cols;
    float* out = c.data() + static_cast<std::size_t>(r.rowOrder[static_cast<std::size_t>(i)]) * cols;
    for (std::size_t j = 0; j < cols; ++j) out[r.colOrder[j]] = in[j];
  }
  return c;
}

}  // namespace tileskip
