// NumPy arrays of any rank and type as they lie in a .npy file or an .npz member: the raw elements
// with their type string and shape, for the formats built of several arrays (a packed block-sparse
// matrix in SciPy's .npz layout). Matrices have their own reader (matrix_io.hpp), which converts as
// it reads; these arrays are converted by the caller, with the same conversions.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/io/matrix_io.hpp"

namespace tileskip {

struct NpyArray {
  std::string descr;                // the type string: '<f4', '<i8', '|S3'
  std::vector<std::int64_t> shape;  // () for a scalar
  std::vector<unsigned char> data;  // the elements in C order, in the type's byte order
  std::int64_t elements() const;
};

// Reads one array (Fortran order rearranged into C order). InputError, naming `name`, for what
// readNpy refuses in a header, a type string of no known form, a shape of more than `maxBytes`
// bytes, a truncated array and bytes after it.
NpyArray readNpyArray(std::istream& in, const std::string& name, std::uint64_t maxBytes);
// Writes it as a version 1.0 .npy (little-endian host).
void writeNpyArray(std::ostream& out, const NpyArray& array);

// The elements of an integer array as int64 (any width, signed or not; InputError otherwise).
std::vector<std::int64_t> npyIntegers(const NpyArray& array, const std::string& name);
// The elements of a real array as float32, converted as readNpy converts a matrix's, with the same
// note of what was lost in `info` (InputError for a type it does not convert).
std::vector<float> npyFloats(const NpyArray& array, const std::string& name, MatrixReadInfo* info);
// The text of a one-element byte or (ASCII) unicode string array, without NumPy's padding; nothing
// for any other array.
std::optional<std::string> npyText(const NpyArray& array);
// A one-element byte string array holding `text` (as NumPy stores b"bsr").
NpyArray npyText(const std::string& text);

}  // namespace tileskip
