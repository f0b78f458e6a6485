// NumPy .npy: a magic string, a version, a little-endian header length, a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (R, C), }) padded with spaces, then the
// raw array. Format description: numpy.lib.format.
#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/matrix_io.hpp"

namespace tileskip {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;
constexpr std::size_t kMaxHeaderLength = 1u << 16;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InputError(name + ": not a valid .npy matrix: " + what);
}

// The value of `key` in the header dict, as raw text up to the next top-level comma or brace.
std::string headerValue(const std::string& header, const std::string& key, const std::string& name) {
  std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) fail(name, "header has no '" + key + "' entry");
  std::size_t colon = header.find(':', at);
  if (colon == std::string::npos) fail(name, "header entry '" + key + "' has no value");
  std::size_t start = header.find_first_not_of(" ", colon + 1);
  if (start == std::string::npos) fail(name, "header entry '" + key + "' has no value");
  std::size_t end = header[start] == '(' ? header.find(')', start) + 1 : header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0) fail(name, "header entry '" + key + "' is not terminated");
  return header.substr(start, end - start);
}

std::vector<std::int64_t> parseShape(const std::string& text, const std::string& name) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') fail(name, "shape " + text + " is not a tuple");
  std::vector<std::int64_t> dims;
  std::size_t i = 1;
  while (i < text.size() - 1) {
    while (i < text.size() - 1 && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() - 1) break;
    std::size_t digits = i;
    std::int64_t value = 0;
    while (digits < text.size() - 1 && text[digits] >= '0' && text[digits] <= '9') {
      if (value > (std::int64_t{1} << 40)) fail(name, "shape " + text + " is too large");
      value = value * 10 + (text[digits] - '0');
      ++digits;
    }
    if (digits == i) fail(name, "shape " + text + " holds something other than sizes");
    dims.push_back(value);
    i = digits;
  }
  return dims;
}

template <typename T>
T readScalar(const unsigned char* bytes, bool swap) {
  T value;
  unsigned char buffer[sizeof(T)];
  for (std::size_t b = 0; b < sizeof(T); ++b) buffer[b] = bytes[swap ? sizeof(T) - 1 - b : b];
  std::memcpy(&value, buffer, sizeof(T));
  return value;
}

}  // namespace

Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements) {
  char magic[kMagicLength];
  if (!in.read(magic, kMagicLength) || std::memcmp(magic, kMagic, kMagicLength) != 0) {
    fail(name, "it does not start with the NumPy magic string");
  }
  unsigned char version[2];
  if (!in.read(reinterpret_cast<char*>(version), 2)) fail(name, "file ends inside the version");
  std::size_t headerLength = 0;
  if (version[0] == 1) {
    unsigned char length[2];
    if (!in.read(reinterpret_cast<char*>(length), 2)) fail(name, "file ends inside the header length");
    headerLength = length[0] | (std::size_t{length[1]} << 8);
  } else if (version[0] == 2 || version[0] == 3) {
    unsigned char length[4];
    if (!in.read(reinterpret_cast<char*>(length), 4)) fail(name, "file ends inside the header length");
    headerLength = length[0] | (std::size_t{length[1]} << 8) | (std::size_t{length[2]} << 16) |
                   (std::size_t{length[3]} << 24);
  } else {
    fail(name, "unsupported format version " + std::to_string(version[0]));
  }
  if (headerLength > kMaxHeaderLength) fail(name, "header length " + std::to_string(headerLength) + " is implausible");
  std::string header(headerLength, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(headerLength))) fail(name, "file ends inside the header");

  std::string descr = headerValue(header, "descr", name);
  std::string fortran = headerValue(header, "fortran_order", name);
  std::vector<std::int64_t> shape = parseShape(headerValue(header, "shape", name), name);

  if (descr.size() < 4 || (descr.front() != '\'' && descr.front() != '"')) fail(name, "dtype " + descr + " is not a string");
  std::string dtype = descr.substr(1, descr.size() - 2);
  bool isFloat32 = dtype == "<f4" || dtype == ">f4" || dtype == "=f4";
  bool isFloat64 = dtype == "<f8" || dtype == ">f8" || dtype == "=f8";
  if (!isFloat32 && !isFloat64) fail(name, "dtype " + dtype + " is not float32 or float64; save with .astype(np.float32)");
  bool swap = (dtype[0] == '>') != (std::endian::native == std::endian::big);
  if (fortran != "False") fail(name, "arrays in Fortran order are not supported; save with np.ascontiguousarray");
  if (shape.size() != 2) fail(name, "expected a 2-D array, got " + std::to_string(shape.size()) + " dimensions");

  checkMatrixShape(shape[0], shape[1], name.c_str());
  if (shape[0] * shape[1] > maxElements) fail(name, "shape is larger than this reader accepts");
  std::size_t width = isFloat32 ? 4 : 8;
  // A truncated file is refused before a large matrix is allocated for it.
  std::streampos dataStart = in.tellg();
  if (dataStart != std::streampos(-1) && in.seekg(0, std::ios::end)) {
    auto available = static_cast<std::uint64_t>(in.tellg() - dataStart);
    in.seekg(dataStart);
    auto needed = static_cast<std::uint64_t>(shape[0] * shape[1]) * width;
    if (available < needed) {
      fail(name, "data holds " + std::to_string(available) + " bytes but the shape needs " + std::to_string(needed) +
                     " (truncated file)");
    }
  }
  in.clear();
  Matrix m(shape[0], shape[1]);
  std::vector<unsigned char> row(static_cast<std::size_t>(m.cols()) * width);
  for (int r = 0; r < m.rows(); ++r) {
    if (!in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(row.size()))) {
      fail(name, "data ends after " + std::to_string(r) + " of " + std::to_string(m.rows()) + " rows (truncated file)");
    }
    for (int c = 0; c < m.cols(); ++c) {
      const unsigned char* bytes = &row[static_cast<std::size_t>(c) * width];
      m(r, c) = isFloat32 ? readScalar<float>(bytes, swap) : static_cast<float>(readScalar<double>(bytes, swap));
    }
  }
  if (in.peek() != std::char_traits<char>::eof()) fail(name, "extra bytes after the array data");
  return m;
}

Matrix readNpy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open for reading (does the file exist?)");
  return readNpy(in, path.string());
}

void writeNpy(std::ostream& out, const Matrix& m) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(m.rows()) + ", " +
                       std::to_string(m.cols()) + "), }";
  // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
  std::size_t total = kMagicLength + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  out.write(kMagic, kMagicLength);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");
  out.write(reinterpret_cast<const char*>(m.data()), static_cast<std::streamsize>(m.bytes()));
}

}  // namespace tileskip
