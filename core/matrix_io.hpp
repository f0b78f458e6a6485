// Reading and writing matrices: NumPy .npy (float32 / float64, C order) and Matrix Market .mtx
// (coordinate and array; real, integer and pattern; general, symmetric and skew-symmetric,
// expanded to a full matrix). Malformed files raise InputError naming the file and, for text
// formats, the line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "core/matrix.hpp"

namespace tileskip {

enum class MatrixFormat { Npy, MatrixMarket };

// From the extension (.npy or .mtx); throws InputError for any other.
MatrixFormat formatFromPath(const std::filesystem::path& path);

Matrix readMatrix(const std::filesystem::path& path);
Matrix readNpy(const std::filesystem::path& path);
Matrix readMatrixMarket(const std::filesystem::path& path);

// Stream forms, for fuzzing and tests; `name` is what error messages call the input. A header
// that declares more than `maxElements` elements is refused before anything is allocated.
Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements = kMaxElements);
Matrix readMatrixMarket(std::istream& in, const std::string& name, std::int64_t maxElements = kMaxElements);

// Writes through an AtomicFile (core/atomic_file.hpp): a failed or interrupted write never
// leaves a half-written file. Throws InputError when the path cannot be written.
void writeMatrix(const std::filesystem::path& path, const Matrix& m);
void writeNpy(std::ostream& out, const Matrix& m);
// Coordinate real general, non-zeros only, values with 9 significant digits (exact for fp32).
void writeMatrixMarket(std::ostream& out, const Matrix& m);

}  // namespace tileskip
