// NumPy .npz files: a zip archive of .npy arrays, one per name (numpy.savez, and SciPy's
// save_npz for its sparse matrices). The archive itself is libzip's to read and write (stored or
// deflated members, ZIP64 where NumPy writes it); the arrays inside are npy_array.hpp's.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>

#include "core/io/npy_array.hpp"

namespace tileskip {

// The arrays by name ("indptr" for the member indptr.npy).
using NpzArrays = std::map<std::string, NpyArray>;

// The archive's arrays; InputError, naming `name`, for what is not a zip archive, a member that is
// not a .npy or holds more than `maxBytes` bytes, a member named twice, or a malformed array.
NpzArrays readNpz(const void* bytes, std::size_t size, const std::string& name, std::uint64_t maxBytes);
NpzArrays readNpz(const std::filesystem::path& path);

// Writes the arrays as numpy.savez does (members stored, not compressed), through an AtomicFile:
// a failed write leaves no file. InputError where the path cannot be written.
void writeNpz(const std::filesystem::path& path, const NpzArrays& arrays);

}  // namespace tileskip
