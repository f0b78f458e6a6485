// A block-sparse matrix stored packed: the matrix cut into square blocks of one size, only the kept
// blocks' values stored, contiguous, with the index that says where each one lies. It is the form a
// pruned or block-sparse-trained weight has once and for all: the `bsr` kernels read it as it is,
// with no pattern pass per call (an output tile's list of K-blocks is its block row's index).
//
// One buffer of values serves both products of a layer. The kept blocks lie in block-row order
// (row pointers and column indices, BSR), each block row-major; the transposed walk, block column by
// block column, is a second index over the same blocks (column pointers and, for each position of
// that walk, the kept block it reads), so Wᵀ needs no second copy of the values.
//
// Any M x K is packed: the block grid is ceil(M / block) x ceil(K / block) and a block on the last
// row or column of the grid holds zeros where it passes the matrix, so a kernel reads whole blocks.
// Files (core/io/block_sparse_io.hpp) take only shapes the block divides, as SciPy's BSR does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"

namespace tileskip {

// The block sizes of the format: a block is a whole number of K-blocks and of the tensor cores'
// 16-wide steps.
inline constexpr int kPackedBlockSizes[] = {16, 32, 64, 128};
bool isPackedBlockSize(int block);
// "16, 32, 64 or 128", for messages.
std::string packedBlockSizeList();

class BlockSparseMatrix {
 public:
  BlockSparseMatrix() = default;

  // From its parts, checked: `rowPointers` has blockRows() + 1 entries from 0 rising to the number
  // of kept blocks, `columnIndices` one per kept block, each below blockCols() and none twice in a
  // block row, and `values` block x block per kept block. Column indices need not be sorted within
  // a row: they are sorted here, their blocks with them. The values are rounded to `dtype`; those
  // past the matrix on an edge block are set to zero. Throws InputError naming `name` and what is
  // wrong.
  static BlockSparseMatrix fromParts(int rows, int cols, int block, DType dtype, std::vector<std::int32_t> rowPointers,
                                     std::vector<std::int32_t> columnIndices, std::vector<float> values,
                                     const std::string& name);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int block() const { return block_; }
  DType dtype() const { return dtype_; }
  int blockRows() const { return static_cast<int>(rowPointers_.size()) - 1; }
  int blockCols() const { return static_cast<int>(columnPointers_.size()) - 1; }
  int keptBlocks() const { return static_cast<int>(columnIndices_.size()); }
  // Kept blocks over the blocks of the grid.
  double density() const;
  // Values one block holds, and the bytes the kept blocks take in the dtype (what a kernel reads).
  int blockValues() const { return block_ * block_; }
  std::int64_t valueBytes() const;

  // Block-row order: the kept blocks of block row i are rowPointers()[i] .. rowPointers()[i + 1] - 1,
  // at block columns columnIndices() (ascending); blockRowOf() is each kept block's block row.
  std::span<const std::int32_t> rowPointers() const { return rowPointers_; }
  std::span<const std::int32_t> columnIndices() const { return columnIndices_; }
  std::span<const std::int32_t> blockRowOf() const { return blockRowOf_; }
  // The transposed walk: the kept blocks of block column j are, in block-row order, the blocks
  // transposedBlocks()[columnPointers()[j] .. columnPointers()[j + 1] - 1].
  std::span<const std::int32_t> columnPointers() const { return columnPointers_; }
  std::span<const std::int32_t> transposedBlocks() const { return transposedBlocks_; }

  // Every kept block's values, block after block in block-row order, each row-major: value (r, c)
  // of kept block b is values()[b * blockValues() + r * block() + c]. They are fp32 numbers the
  // dtype represents exactly (its 16-bit words: halfWords()).
  std::span<const float> values() const { return values_; }
  std::span<const float> blockValuesOf(int keptBlock) const;
  // The values as 16-bit words of an fp16 or bf16 matrix, in the same order.
  std::vector<std::uint16_t> halfWords() const;

  // The index as the bsr kernels read it on a device, one array: the row pointers (blockRows() + 1
  // of them), then the column indices (keptBlocks()).
  std::vector<std::int32_t> packedIndexWords() const;

  // The dense matrix (zeros outside the kept blocks).
  Matrix toDense() const;
  // The block mask, blockRows() x blockCols(), row-major: 1 where a block is kept.
  std::vector<std::uint8_t> blockMask() const;

  bool operator==(const BlockSparseMatrix&) const = default;

 private:
  void buildTransposedIndex();

  int rows_ = 0, cols_ = 0, block_ = 0;
  DType dtype_ = DType::Fp32;
  std::vector<std::int32_t> rowPointers_{0}, columnIndices_, blockRowOf_;
  std::vector<std::int32_t> columnPointers_{0}, transposedBlocks_;
  std::vector<float> values_;
};

// How a streaming bsr kernel (Scheduling::SplitBlocks) shares a packed matrix's kept blocks out:
// in units of consecutive kept blocks of one block row, about the same number in each, so that a
// few long block rows do not leave most of a device idle, and every kept block is read once. A
// block row split into several units sums their partial products in the units' order, whichever
// finishes last doing it: the result does not depend on the order they run in. A block row that
// keeps nothing is one unit of no blocks (it stores zeros).
struct BlockStreamPlan {
  static constexpr int kWordsPerUnit = 6;
  // Per unit: its block row, its first kept block, its kept blocks, its partial slot (-1 for a block
  // row's only unit, which stores C itself), and its block row's first slot and units.
  std::vector<std::int32_t> words;
  int units = 0;
  int slots = 0;  // partial products a launch keeps (per column tile)
};

// About `targetUnits` units (at least one per block row), none of more than the blocks a
// `targetUnits` split gives each.
BlockStreamPlan planBlockStream(const BlockSparseMatrix& m, int targetUnits);

// Packs `dense` (values `dtype` represents, as a problem's operands are) in blocks of `block`,
// keeping every block with a non-zero in it (NaN counts as one). InputError for a block size the
// format does not take.
BlockSparseMatrix packBlocks(const Matrix& dense, int block, DType dtype);

// Packs the blocks `mask` keeps (blockRows x blockCols, row-major, non-zero: kept), zeros and
// all, and leaves the others out whatever they hold: a trained topology, fixed whatever its values
// become. InputError when the mask is not of the block grid's size.
BlockSparseMatrix packMaskedBlocks(const Matrix& dense, std::span<const std::uint8_t> mask, int block, DType dtype);

}  // namespace tileskip
