// A packed block-sparse matrix (core/model/block_sparse.hpp) in a file: SciPy's .npz layout for a
// BSR matrix, so scipy.sparse.load_npz reads what tileskip writes and tileskip reads what
// scipy.sparse.save_npz writes. The arrays (docs/formats.md):
//   format   b"bsr"
//   shape    int64 [rows, cols]
//   data     the kept blocks, [kept, block, block], float32 (fp32 and bf16 values) or float16
//   indices  int32 [kept]: each kept block's block column, block row by block row
//   indptr   int32 [rows / block + 1]: where each block row's blocks start in data and indices
//   dtype    b"fp32", b"fp16" or b"bf16" (tileskip's own; SciPy ignores it): the values' precision
// Without `dtype` the precision is data's (float16: fp16, else fp32; float64 is converted, with a
// note). The block must be square and one the format takes, and divide both dimensions.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/io/npz_io.hpp"
#include "core/model/block_sparse.hpp"

namespace tileskip {

// Whether `path` names a packed matrix file (.npz), not a dense one.
bool isPackedMatrixPath(const std::filesystem::path& path);

// InputError naming the file and what is wrong with it: not a BSR archive, a field missing or of
// the wrong type or length, a block that is not square, not a size the format takes or that does
// not divide the shape, indices out of range or twice in a row, values that `dtype` does not hold.
// Column indices out of order within a row are sorted. `info` gets a note of what converting the
// values did, as for a dense file.
BlockSparseMatrix readBlockSparse(const std::filesystem::path& path, MatrixReadInfo* info = nullptr);
BlockSparseMatrix blockSparseFromNpz(const NpzArrays& arrays, const std::string& name, MatrixReadInfo* info = nullptr);

// The arrays above for `m`; InputError where the block does not divide its shape (SciPy's BSR cannot
// hold partial blocks).
NpzArrays blockSparseToNpz(const BlockSparseMatrix& m);
void writeBlockSparse(const std::filesystem::path& path, const BlockSparseMatrix& m);

}  // namespace tileskip
