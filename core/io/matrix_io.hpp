// Reading and writing matrices: NumPy .npy (float32; float16/64 and integers converted; C or
// Fortran order) and Matrix Market .mtx
// (coordinate and array; real, integer and pattern; general, symmetric and skew-symmetric,
// expanded to a full matrix). Malformed files raise InputError naming the file and, for text
// formats, the line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "core/model/matrix.hpp"

namespace tileskip {

// .npz is a packed block-sparse matrix (core/io/block_sparse_io.hpp): read as the dense matrix it
// stands for; written by `tileskip pack`, not as a dense matrix.
enum class MatrixFormat { Npy, MatrixMarket, PackedNpz };

// From the extension (.npy, .mtx or .npz); throws InputError for any other.
MatrixFormat formatFromPath(const std::filesystem::path& path);

// What a reader did to give float32 in row-major order, for a one-line note to the user: a
// float64 (float16, integer) file converted, with the values that overflowed to Inf or
// underflowed to zero counted (zeros change the skip patterns); Fortran order transposed.
// Empty when the file was float32 in C order (or Matrix Market).
struct MatrixReadInfo {
  std::string note;
  bool lost = false;  // some value changed: became Inf or zero, or was rounded
  std::string sha256;  // the file's (core/io/file_digest.hpp), for reports; set by readMatrix(path, info)
};

Matrix readMatrix(const std::filesystem::path& path);
Matrix readMatrix(const std::filesystem::path& path, MatrixReadInfo* info);
Matrix readNpy(const std::filesystem::path& path);
Matrix readNpy(const std::filesystem::path& path, MatrixReadInfo* info);
Matrix readMatrixMarket(const std::filesystem::path& path);

// Stream forms, for fuzzing and tests; `name` is what error messages call the input. A header
// that declares more than `maxElements` elements is refused before anything is allocated.
Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements = kMaxElements);
Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements, MatrixReadInfo* info);
Matrix readMatrixMarket(std::istream& in, const std::string& name, std::int64_t maxElements = kMaxElements);

// An array in memory as NumPy describes one (the Python module's operands): its type string
// ('<f4', '<f8', '|i1'), its shape and its strides in bytes, in any order and of any sign.
struct ArrayView {
  const void* data = nullptr;
  std::string dtype;
  std::int64_t rows = 0, cols = 0;
  std::int64_t rowStride = 0, colStride = 0;
};

// The array as a float32 row-major Matrix, converted as readNpy converts a file's elements,
// with the same note of what the conversion lost (empty for float32). InputError, named
// `name`, for a type readNpy refuses and for a shape checkMatrixShape refuses.
Matrix matrixFromArray(const ArrayView& array, const std::string& name, MatrixReadInfo* info);

// Writes through an AtomicFile (core/io/atomic_file.hpp): a failed or interrupted write never
// leaves a half-written file. Throws InputError when the path cannot be written.
void writeMatrix(const std::filesystem::path& path, const Matrix& m);
void writeNpy(std::ostream& out, const Matrix& m);
// Coordinate real general, non-zeros only, values with 9 significant digits (exact for fp32).
void writeMatrixMarket(std::ostream& out, const Matrix& m);

}  // namespace tileskip
