#include "core/model/block_sparse.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"

namespace tileskip {

bool isPackedBlockSize(int block) { return std::ranges::find(kPackedBlockSizes, block) != std::end(kPackedBlockSizes); }

std::string packedBlockSizeList() {
  std::string list;
  for (std::size_t i = 0; i < std::size(kPackedBlockSizes); ++i) {
    list += (i == 0 ? "" : i + 1 == std::size(kPackedBlockSizes) ? " or " : ", ") + std::to_string(kPackedBlockSizes[i]);
  }
  return list;
}

namespace {

void requireBlockSize(int block, const std::string& name) {
  if (!isPackedBlockSize(block)) {
    throw InputError(name + ": block size " + std::to_string(block) + " is not one the packed format takes (" +
                     packedBlockSizeList() + ")");
  }
}

int gridSize(int extent, int block) { return ceilDiv(extent, block); }

}  // namespace

BlockSparseMatrix BlockSparseMatrix::fromParts(int rows, int cols, int block, DType dtype, std::vector<std::int32_t> rowPointers,
                                               std::vector<std::int32_t> columnIndices, std::vector<float> values,
                                               const std::string& name) {
  checkMatrixShape(rows, cols, name.c_str());
  requireBlockSize(block, name);
  auto bad = [&](const std::string& what) { throw InputError(name + ": not a valid block-sparse matrix: " + what); };
  const int blockRows = gridSize(rows, block), blockCols = gridSize(cols, block);
  if (rowPointers.size() != static_cast<std::size_t>(blockRows) + 1) {
    bad("its row pointers hold " + std::to_string(rowPointers.size()) + " entries, but " + std::to_string(rows) + " rows in blocks of " +
        std::to_string(block) + " need " + std::to_string(blockRows + 1));
  }
  if (rowPointers.front() != 0) bad("its row pointers start at " + std::to_string(rowPointers.front()) + ", not 0");
  for (int i = 0; i < blockRows; ++i) {
    if (rowPointers[i + 1] < rowPointers[i]) {
      bad("its row pointers fall from " + std::to_string(rowPointers[i]) + " to " + std::to_string(rowPointers[i + 1]) +
          " at block row " + std::to_string(i));
    }
  }
  const std::size_t kept = columnIndices.size();
  if (static_cast<std::size_t>(rowPointers.back()) != kept) {
    bad("its row pointers end at " + std::to_string(rowPointers.back()) + " but it has " + std::to_string(kept) +
        " column indices (one per kept block)");
  }
  const std::size_t perBlock = static_cast<std::size_t>(block) * static_cast<std::size_t>(block);
  if (values.size() != kept * perBlock) {
    bad("it holds " + std::to_string(values.size()) + " values, but " + std::to_string(kept) + " kept blocks of " +
        std::to_string(block) + " x " + std::to_string(block) + " need " + std::to_string(kept * perBlock));
  }
  for (std::size_t e = 0; e < kept; ++e) {
    if (columnIndices[e] < 0 || columnIndices[e] >= blockCols) {
      bad("kept block " + std::to_string(e) + " is at block column " + std::to_string(columnIndices[e]) + ", outside 0 .. " +
          std::to_string(blockCols - 1) + " (" + std::to_string(cols) + " columns in blocks of " + std::to_string(block) + ")");
    }
  }

  BlockSparseMatrix m;
  m.rows_ = rows, m.cols_ = cols, m.block_ = block, m.dtype_ = dtype;
  m.rowPointers_ = std::move(rowPointers);
  m.columnIndices_.resize(kept);
  m.values_.resize(values.size());
  m.blockRowOf_.resize(kept);
  // Each block row's blocks sorted by column, their values moved with them.
  std::vector<std::int32_t> order;
  for (int i = 0; i < blockRows; ++i) {
    const std::int32_t begin = m.rowPointers_[i], end = m.rowPointers_[i + 1];
    order.resize(static_cast<std::size_t>(end - begin));
    std::iota(order.begin(), order.end(), begin);
    std::ranges::stable_sort(order, {}, [&](std::int32_t e) { return columnIndices[e]; });
    for (std::int32_t p = begin; p < end; ++p) {
      const std::int32_t from = order[p - begin];
      if (p > begin && columnIndices[from] == m.columnIndices_[p - 1]) {
        bad("block row " + std::to_string(i) + " keeps block column " + std::to_string(columnIndices[from]) + " twice");
      }
      m.columnIndices_[p] = columnIndices[from];
      m.blockRowOf_[p] = i;
      std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(from * perBlock), perBlock,
                  m.values_.begin() + static_cast<std::ptrdiff_t>(p * perBlock));
    }
  }
  // Rounded to the dtype, and zero past the matrix on the grid's last block row and column.
  for (std::size_t e = 0; e < kept; ++e) {
    const int rowBase = m.blockRowOf_[e] * block, colBase = m.columnIndices_[e] * block;
    float* v = m.values_.data() + e * perBlock;
    for (int r = 0; r < block; ++r) {
      for (int c = 0; c < block; ++c) {
        float& x = v[static_cast<std::size_t>(r) * block + c];
        x = rowBase + r < rows && colBase + c < cols ? roundTo(dtype, x) : 0.0f;
      }
    }
  }
  m.columnPointers_.assign(static_cast<std::size_t>(blockCols) + 1, 0);
  m.buildTransposedIndex();
  return m;
}

void BlockSparseMatrix::buildTransposedIndex() {
  // A counting sort of the kept blocks by column: stable, so each column's blocks stay in block-row order.
  std::ranges::fill(columnPointers_, 0);
  for (std::int32_t column : columnIndices_) ++columnPointers_[static_cast<std::size_t>(column) + 1];
  std::partial_sum(columnPointers_.begin(), columnPointers_.end(), columnPointers_.begin());
  transposedBlocks_.resize(columnIndices_.size());
  std::vector<std::int32_t> next(columnPointers_.begin(), columnPointers_.end() - 1);
  for (std::size_t e = 0; e < columnIndices_.size(); ++e) transposedBlocks_[next[columnIndices_[e]]++] = static_cast<std::int32_t>(e);
}

double BlockSparseMatrix::density() const {
  const double blocks = static_cast<double>(blockRows()) * static_cast<double>(blockCols());
  return blocks > 0 ? keptBlocks() / blocks : 0.0;
}

std::int64_t BlockSparseMatrix::valueBytes() const {
  const std::int64_t width = dtype_ == DType::Fp16 || dtype_ == DType::Bf16 ? 2 : 4;
  return static_cast<std::int64_t>(values_.size()) * width;
}

std::span<const float> BlockSparseMatrix::blockValuesOf(int keptBlock) const {
  return std::span<const float>(values_).subspan(static_cast<std::size_t>(keptBlock) * blockValues(), blockValues());
}

std::vector<std::uint16_t> BlockSparseMatrix::halfWords() const {
  std::vector<std::uint16_t> words(values_.size());
  std::ranges::transform(values_, words.begin(), [&](float x) { return halfBits(dtype_, x); });
  return words;
}

std::vector<std::int32_t> BlockSparseMatrix::packedIndexWords() const {
  std::vector<std::int32_t> words(rowPointers_.begin(), rowPointers_.end());
  words.insert(words.end(), columnIndices_.begin(), columnIndices_.end());
  return words;
}

Matrix BlockSparseMatrix::toDense() const {
  Matrix dense(rows_, cols_);
  for (int e = 0; e < keptBlocks(); ++e) {
    const int rowBase = blockRowOf_[e] * block_, colBase = columnIndices_[e] * block_;
    const std::span<const float> v = blockValuesOf(e);
    for (int r = 0; r < block_ && rowBase + r < rows_; ++r) {
      for (int c = 0; c < block_ && colBase + c < cols_; ++c) dense(rowBase + r, colBase + c) = v[static_cast<std::size_t>(r) * block_ + c];
    }
  }
  return dense;
}

std::vector<std::uint8_t> BlockSparseMatrix::blockMask() const {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(blockRows()) * blockCols(), 0);
  for (int e = 0; e < keptBlocks(); ++e) mask[static_cast<std::size_t>(blockRowOf_[e]) * blockCols() + columnIndices_[e]] = 1;
  return mask;
}

BlockStreamPlan planBlockStream(const BlockSparseMatrix& m, int targetUnits) {
  BlockStreamPlan plan;
  const int perUnit = std::max(1, ceilDiv(m.keptBlocks(), std::max(1, targetUnits)));
  for (int row = 0; row < m.blockRows(); ++row) {
    const int first = m.rowPointers()[row], kept = m.rowPointers()[row + 1] - first;
    const int units = std::max(1, ceilDiv(kept, perUnit));
    const int firstSlot = units > 1 ? plan.slots : -1;
    for (int u = 0; u < units; ++u) {
      // Sizes that differ by one at most: unit u takes blocks [kept·u/units, kept·(u+1)/units).
      const int begin = static_cast<int>(static_cast<long long>(kept) * u / units);
      const int end = static_cast<int>(static_cast<long long>(kept) * (u + 1) / units);
      plan.words.insert(plan.words.end(), {row, first + begin, end - begin, units > 1 ? firstSlot + u : -1, firstSlot, units});
    }
    if (units > 1) plan.slots += units;
    plan.units += units;
  }
  return plan;
}

namespace {

BlockSparseMatrix packWhere(const Matrix& dense, int block, DType dtype, const auto& keeps) {
  requireBlockSize(block, "packing");
  const int blockRows = gridSize(dense.rows(), block), blockCols = gridSize(dense.cols(), block);
  std::vector<std::int32_t> rowPointers{0}, columnIndices;
  std::vector<float> values;
  const std::size_t perBlock = static_cast<std::size_t>(block) * block;
  for (int i = 0; i < blockRows; ++i) {
    for (int j = 0; j < blockCols; ++j) {
      if (!keeps(i, j)) continue;
      columnIndices.push_back(j);
      values.resize(values.size() + perBlock, 0.0f);
      float* v = values.data() + values.size() - perBlock;
      for (int r = 0; r < block && i * block + r < dense.rows(); ++r) {
        for (int c = 0; c < block && j * block + c < dense.cols(); ++c) v[static_cast<std::size_t>(r) * block + c] = dense(i * block + r, j * block + c);
      }
    }
    rowPointers.push_back(static_cast<std::int32_t>(columnIndices.size()));
  }
  return BlockSparseMatrix::fromParts(dense.rows(), dense.cols(), block, dtype, std::move(rowPointers), std::move(columnIndices),
                                      std::move(values), "the packed matrix");
}

}  // namespace

BlockSparseMatrix packBlocks(const Matrix& dense, int block, DType dtype) {
  requireBlockSize(block, "packing");
  return packWhere(dense, block, dtype, [&](int i, int j) {
    for (int r = i * block; r < std::min(dense.rows(), (i + 1) * block); ++r) {
      for (int c = j * block; c < std::min(dense.cols(), (j + 1) * block); ++c) {
        if (dense(r, c) != 0.0f) return true;  // NaN too
      }
    }
    return false;
  });
}

BlockSparseMatrix packMaskedBlocks(const Matrix& dense, std::span<const std::uint8_t> mask, int block, DType dtype) {
  requireBlockSize(block, "packing");
  const int blockCols = gridSize(dense.cols(), block);
  const std::size_t blocks = static_cast<std::size_t>(gridSize(dense.rows(), block)) * blockCols;
  if (mask.size() != blocks) {
    throw InputError("the block mask holds " + std::to_string(mask.size()) + " entries, but a " + std::to_string(dense.rows()) + " x " +
                     std::to_string(dense.cols()) + " matrix in blocks of " + std::to_string(block) + " has " + std::to_string(blocks));
  }
  return packWhere(dense, block, dtype, [&](int i, int j) { return mask[static_cast<std::size_t>(i) * blockCols + j] != 0; });
}

}  // namespace tileskip
