#include "core/io/block_sparse_io.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/model/error.hpp"

namespace tileskip {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InputError(name + ": not a block-sparse (BSR) matrix file: " + what);
}

const NpyArray& field(const NpzArrays& arrays, const std::string& key, const std::string& name) {
  auto it = arrays.find(key);
  if (it == arrays.end()) fail(name, "it has no '" + key + "' array (SciPy's save_npz of a bsr_matrix writes format, shape, data, indices, indptr)");
  return it->second;
}

std::vector<std::int32_t> indexArray(const NpyArray& array, const std::string& key, const std::string& name, std::int64_t limit) {
  if (array.shape.size() != 1) fail(name, "'" + key + "' is not one-dimensional");
  const std::vector<std::int64_t> values = npyIntegers(array, name + " (" + key + ")");
  std::vector<std::int32_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] > limit) {
      fail(name, "'" + key + "' holds " + std::to_string(values[i]) + " at " + std::to_string(i) + ", outside 0 .. " + std::to_string(limit));
    }
    out[i] = static_cast<std::int32_t>(values[i]);
  }
  return out;
}

template <class T>
NpyArray rawArray(const std::string& descr, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  NpyArray array;
  array.descr = descr;
  array.shape = std::move(shape);
  array.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

}  // namespace

bool isPackedMatrixPath(const std::filesystem::path& path) { return path.extension() == ".npz"; }

BlockSparseMatrix blockSparseFromNpz(const NpzArrays& arrays, const std::string& name, MatrixReadInfo* info) {
  const std::optional<std::string> format = npyText(field(arrays, "format", name));
  if (!format) fail(name, "'format' is not a string");
  if (*format != "bsr") fail(name, "its format is '" + *format + "', not 'bsr' (convert it with scipy.sparse.bsr_matrix(m, blocksize=(64, 64)))");

  const NpyArray& shapeArray = field(arrays, "shape", name);
  if (shapeArray.elements() != 2) fail(name, "'shape' does not hold two sizes");
  const std::vector<std::int64_t> shape = npyIntegers(shapeArray, name + " (shape)");
  checkMatrixShape(shape[0], shape[1], name.c_str());

  const NpyArray& data = field(arrays, "data", name);
  if (data.shape.size() != 3) fail(name, "'data' is not three-dimensional (kept blocks x block rows x block columns)");
  const std::int64_t kept = data.shape[0], blockHeight = data.shape[1], blockWidth = data.shape[2];
  if (blockHeight != blockWidth) {
    fail(name, "its blocks are " + std::to_string(blockHeight) + " x " + std::to_string(blockWidth) + "; the packed format takes square blocks");
  }
  const int block = static_cast<int>(std::min<std::int64_t>(blockHeight, std::numeric_limits<int>::max()));
  if (!isPackedBlockSize(block)) fail(name, "its block size " + std::to_string(blockHeight) + " is not one the format takes (" + packedBlockSizeList() + ")");
  if (shape[0] % block != 0 || shape[1] % block != 0) {
    fail(name, "its block size " + std::to_string(block) + " does not divide its shape " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]));
  }
  const std::int64_t blockRows = shape[0] / block, blockCols = shape[1] / block;
  if (kept > blockRows * blockCols) fail(name, "it keeps " + std::to_string(kept) + " blocks, more than its " + std::to_string(blockRows * blockCols));

  std::vector<std::int32_t> rowPointers = indexArray(field(arrays, "indptr", name), "indptr", name, kept);
  std::vector<std::int32_t> columnIndices = indexArray(field(arrays, "indices", name), "indices", name, blockCols - 1);
  if (columnIndices.size() != static_cast<std::size_t>(kept)) {
    fail(name, "'indices' holds " + std::to_string(columnIndices.size()) + " entries for " + std::to_string(kept) + " kept blocks in 'data'");
  }

  DType dtype = data.descr.size() == 3 && data.descr[1] == 'f' && data.descr[2] == '2' ? DType::Fp16 : DType::Fp32;
  if (auto it = arrays.find("dtype"); it != arrays.end()) {
    const std::optional<std::string> text = npyText(it->second);
    if (!text) fail(name, "'dtype' is not a string");
    try {
      dtype = parseDType(*text);
    } catch (const InputError&) {
      fail(name, "its dtype '" + *text + "' is not fp32, fp16 or bf16");
    }
    if (dtype == DType::Tf32) fail(name, "its dtype is tf32, a compute mode: store such values as fp32");
  }
  std::vector<float> values = npyFloats(data, name + " (data)", info);
  for (float& v : values) {
    const float rounded = roundTo(dtype, v);
    if (!(rounded == v || (std::isnan(rounded) && std::isnan(v)))) {
      fail(name, "'data' holds " + std::to_string(v) + ", which its dtype " + std::string(dtypeName(dtype)) + " does not represent");
    }
  }
  // fromParts checks what is left (pointers rising to the kept blocks, no column twice in a row)
  // and sorts each row's columns.
  return BlockSparseMatrix::fromParts(static_cast<int>(shape[0]), static_cast<int>(shape[1]), block, dtype, std::move(rowPointers),
                                      std::move(columnIndices), std::move(values), name);
}

BlockSparseMatrix readBlockSparse(const std::filesystem::path& path, MatrixReadInfo* info) {
  return blockSparseFromNpz(readNpz(path), path.string(), info);
}

NpzArrays blockSparseToNpz(const BlockSparseMatrix& m) {
  if (m.rows() % m.block() != 0 || m.cols() % m.block() != 0) {
    throw InputError("a " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + " matrix in blocks of " + std::to_string(m.block()) +
                     " has partial blocks, which SciPy's BSR file layout cannot hold: pack it with a block that divides both sizes");
  }
  NpzArrays arrays;
  arrays["format"] = npyText("bsr");
  arrays["dtype"] = npyText(std::string(dtypeName(m.dtype())));
  arrays["shape"] = rawArray<std::int64_t>("<i8", {2}, {m.rows(), m.cols()});
  const std::vector<std::int64_t> blockShape = {m.keptBlocks(), m.block(), m.block()};
  if (m.dtype() == DType::Fp16) {
    arrays["data"] = rawArray<std::uint16_t>("<f2", blockShape, m.halfWords());
  } else {
    arrays["data"] = rawArray<float>("<f4", blockShape, std::vector<float>(m.values().begin(), m.values().end()));
  }
  arrays["indices"] = rawArray<std::int32_t>("<i4", {m.keptBlocks()}, std::vector<std::int32_t>(m.columnIndices().begin(), m.columnIndices().end()));
  arrays["indptr"] = rawArray<std::int32_t>("<i4", {m.blockRows() + 1}, std::vector<std::int32_t>(m.rowPointers().begin(), m.rowPointers().end()));
  return arrays;
}

void writeBlockSparse(const std::filesystem::path& path, const BlockSparseMatrix& m) { writeNpz(path, blockSparseToNpz(m)); }

}  // namespace tileskip
