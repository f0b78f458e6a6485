// NumPy .npy: a magic string, a version, a little-endian header length, a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (R, C), }) padded with spaces and ended by a
// newline, then the raw array. Format description: numpy.lib.format. float16/64 and integers
// are converted to float32, Fortran order to row-major, and the caller is told (MatrixReadInfo).
#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <span>
#include <cmath>
#include <map>
#include <optional>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "core/model/error.hpp"
#include "core/io/matrix_io.hpp"
#include "core/io/npy_array.hpp"

namespace tileskip {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;
constexpr std::size_t kMaxHeaderLength = 1u << 16;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InputError(name + ": not a valid .npy matrix: " + what);
}

// The header dict, parsed as the Python literal it is: {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), } with either quote, any spaces, an optional trailing comma. Values
// are kept as text: a string without its quotes, True/False, a tuple with its parentheses.
std::map<std::string, std::string> parseHeader(const std::string& header, const std::string& name) {
  std::size_t i = 0;
  auto skipSpaces = [&] {
    while (i < header.size() && (header[i] == ' ' || header[i] == '\t')) ++i;
  };
  auto quoted = [&](const char* what) {
    char quote = header[i];
    std::size_t close = header.find(quote, i + 1);
    if (close == std::string::npos) fail(name, std::string("header ") + what + " is not terminated");
    std::string text = header.substr(i + 1, close - i - 1);
    i = close + 1;
    return text;
  };
  skipSpaces();
  if (i >= header.size() || header[i] != '{') fail(name, "header is not a dict");
  ++i;
  std::map<std::string, std::string> entries;
  for (;;) {
    skipSpaces();
    if (i < header.size() && header[i] == '}') break;
    if (i >= header.size() || (header[i] != '\'' && header[i] != '"')) fail(name, "header holds something other than quoted keys");
    std::string key = quoted("key");
    skipSpaces();
    if (i >= header.size() || header[i] != ':') fail(name, "header entry '" + key + "' has no value");
    ++i;
    skipSpaces();
    if (i >= header.size()) fail(name, "header entry '" + key + "' has no value");
    std::string value;
    if (header[i] == '\'' || header[i] == '"') {
      value = quoted("string");
    } else if (header[i] == '(') {
      std::size_t close = header.find(')', i);
      if (close == std::string::npos) fail(name, "header entry '" + key + "' is not terminated");
      value = header.substr(i, close + 1 - i);
      i = close + 1;
    } else {
      std::size_t start = i;
      while (i < header.size() && std::isalnum(static_cast<unsigned char>(header[i]))) ++i;
      value = header.substr(start, i - start);
      if (value.empty()) fail(name, "header entry '" + key + "' has no value");
    }
    if (!entries.emplace(key, value).second) fail(name, "header names '" + key + "' twice");
    skipSpaces();
    if (i < header.size() && header[i] == ',') {
      ++i;
      continue;
    }
    skipSpaces();
    if (i < header.size() && header[i] == '}') break;
    fail(name, "header entry '" + key + "' is not followed by a comma or the end of the dict");
  }
  ++i;
  // Only the padding may follow, ending in a newline: a header length that reaches into the
  // data (or stops short of the newline) would shift every element (NumPy refuses it too).
  if (header.empty() || header.back() != '\n') fail(name, "header does not end with a newline: is its length field right?");
  for (; i + 1 < header.size(); ++i) {
    if (header[i] != ' ' && header[i] != '\t' && header[i] != '\n' && header[i] != '\r') {
      fail(name, "header length field reaches past the header's padding into other bytes");
    }
  }
  return entries;
}

std::string entry(const std::map<std::string, std::string>& entries, const std::string& key, const std::string& name) {
  auto it = entries.find(key);
  if (it == entries.end()) fail(name, "header has no '" + key + "' entry");
  return it->second;
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
    if (digits < text.size() - 1 && text[digits] == 'L') ++digits;  // Python 2's long
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

namespace {

// The element types the reader converts to float32: 'f' 2/4/8 bytes, 'i' and 'u' 1/2/4/8.
struct ElementType {
  char kind = 'f';
  std::size_t width = 4;
  bool swap = false;
  std::string text;  // "<f8"
  std::string name() const {
    if (kind == 'f') return "float" + std::to_string(8 * width);
    return std::string(kind == 'u' ? "uint" : "int") + std::to_string(8 * width);
  }
};

// The element type a NumPy type string ('<f8', '|u1') names, if it is one the reader converts.
std::optional<ElementType> elementType(const std::string& dtype) {
  ElementType type;
  type.text = dtype;
  bool known = dtype.size() == 3 && (dtype[0] == '<' || dtype[0] == '>' || dtype[0] == '=' || dtype[0] == '|') &&
               (dtype[1] == 'f' || dtype[1] == 'i' || dtype[1] == 'u') && dtype[2] >= '1' && dtype[2] <= '8';
  if (known) {
    type.kind = dtype[1];
    type.width = static_cast<std::size_t>(dtype[2] - '0');
    known = type.kind == 'f' ? (type.width == 2 || type.width == 4 || type.width == 8)
                             : (type.width == 1 || type.width == 2 || type.width == 4 || type.width == 8);
  }
  if (!known) return std::nullopt;
  bool bigEndian = dtype[0] == '>' || (dtype[0] == '=' && std::endian::native == std::endian::big);
  type.swap = type.width > 1 && bigEndian != (std::endian::native == std::endian::big);
  return type;
}

constexpr const char* kConvertedTypes = "float16/32/64, int or uint of 8 to 64 bits";

ElementType parseDescr(const std::string& dtype, const std::string& name) {
  std::optional<ElementType> type = elementType(dtype);
  if (!type) {
    fail(name, "dtype " + dtype + " is not a real number type this reader converts (" + kConvertedTypes +
                   "); save with .astype(np.float32)");
  }
  return *type;
}

float halfToFloat(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));  // Inf, NaN
  if (exponent == 0) {  // zero and subnormals: mantissa · 2^-24, exact in float32
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// What converting to float32 did, counted as it goes.
struct Conversion {
  std::uint64_t overflowed = 0;  // finite values that became Inf
  std::uint64_t underflowed = 0; // non-zeros that became zero
  std::uint64_t rounded = 0;     // integers beyond float32's 24-bit mantissa
};

float convert(const unsigned char* bytes, const ElementType& type, Conversion& conversion) {
  auto count = [&](double exact, float converted) {
    if (std::isfinite(exact) && std::isinf(converted)) ++conversion.overflowed;
    if (exact != 0.0 && converted == 0.0f) ++conversion.underflowed;
    return converted;
  };
  if (type.kind == 'f') {
    if (type.width == 4) return readScalar<float>(bytes, type.swap);
    if (type.width == 2) return halfToFloat(readScalar<std::uint16_t>(bytes, type.swap));
    double value = readScalar<double>(bytes, type.swap);
    return count(value, static_cast<float>(value));
  }
  if (type.kind == 'u') {
    std::uint64_t value = 0;
    switch (type.width) {
      case 1: value = bytes[0]; break;
      case 2: value = readScalar<std::uint16_t>(bytes, type.swap); break;
      case 4: value = readScalar<std::uint32_t>(bytes, type.swap); break;
      default: value = readScalar<std::uint64_t>(bytes, type.swap); break;
    }
    auto converted = static_cast<float>(value);
    conversion.rounded += static_cast<long double>(converted) != static_cast<long double>(value);  // exact for 64 bits
    return converted;
  }
  std::int64_t value = 0;
  switch (type.width) {
    case 1: value = static_cast<std::int8_t>(bytes[0]); break;
    case 2: value = readScalar<std::int16_t>(bytes, type.swap); break;
    case 4: value = readScalar<std::int32_t>(bytes, type.swap); break;
    default: value = readScalar<std::int64_t>(bytes, type.swap); break;
  }
  auto converted = static_cast<float>(value);
  conversion.rounded += static_cast<long double>(converted) != static_cast<long double>(value);
  return converted;
}

std::string conversionNote(const std::string& name, const ElementType& type, bool fortran, const Conversion& c) {
  std::vector<std::string> parts;
  if (type.kind != 'f' || type.width != 4) {
    std::string part = type.name() + " converted to float32";
    std::vector<std::string> losses;
    if (c.overflowed > 0) losses.push_back(std::to_string(c.overflowed) + " finite values beyond float32's range became Inf");
    if (c.underflowed > 0) {
      losses.push_back(std::to_string(c.underflowed) + " non-zeros below float32's range became zero (they change the skip patterns)");
    }
    if (c.rounded > 0) losses.push_back(std::to_string(c.rounded) + " integers beyond 2^24 rounded");
    if (type.kind == 'f' && type.width == 2) losses.push_back("exactly");
    for (std::size_t i = 0; i < losses.size(); ++i) part += (i == 0 ? ": " : "; ") + losses[i];
    parts.push_back(part);
  }
  if (fortran) parts.push_back("Fortran order read as row-major");
  if (parts.empty()) return "";
  std::string note = name + ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) note += (i == 0 ? "" : ", ") + parts[i];
  return note;
}

}  // namespace

namespace {

// What a .npy header says: the element type string, the order and the shape.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::int64_t> shape;
};

// Reads the magic string, the version, the header length and the header dict, leaving `in` at
// the first byte of the data.
NpyHeader readHeader(std::istream& in, const std::string& name) {
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

  std::map<std::string, std::string> entries = parseHeader(header, name);
  NpyHeader parsed;
  parsed.descr = entry(entries, "descr", name);
  std::string fortranText = entry(entries, "fortran_order", name);
  if (fortranText != "False" && fortranText != "True") fail(name, "fortran_order is " + fortranText + ", not True or False");
  parsed.fortran = fortranText == "True";
  parsed.shape = parseShape(entry(entries, "shape", name), name);
  return parsed;
}

// The bytes left in `in` from where it stands, or nothing where it cannot seek.
std::optional<std::uint64_t> bytesLeft(std::istream& in) {
  std::streampos dataStart = in.tellg();
  std::optional<std::uint64_t> available;
  if (dataStart != std::streampos(-1) && in.seekg(0, std::ios::end)) {
    available = static_cast<std::uint64_t>(in.tellg() - dataStart);
    in.seekg(dataStart);
  }
  in.clear();
  return available;
}

void writeHeader(std::ostream& out, const std::string& descr, std::span<const std::int64_t> shape) {
  std::string dims;
  for (std::int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // (3,) for one dimension, (2, 3) for two, () for none
  if (shape.empty()) dims.clear();
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
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
}

}  // namespace

Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements, MatrixReadInfo* info) {
  const NpyHeader header = readHeader(in, name);
  ElementType type = parseDescr(header.descr, name);
  const bool fortran = header.fortran;
  const std::vector<std::int64_t>& shape = header.shape;
  if (shape.size() != 2) fail(name, "expected a 2-D array, got " + std::to_string(shape.size()) + " dimensions");

  checkMatrixShape(shape[0], shape[1], name.c_str());
  if (shape[0] * shape[1] > maxElements) fail(name, "shape is larger than this reader accepts");
  const std::size_t width = type.width;
  // A truncated file is refused before a large matrix is allocated for it.
  const auto needed = static_cast<std::uint64_t>(shape[0] * shape[1]) * width;
  if (const std::optional<std::uint64_t> available = bytesLeft(in); available && *available < needed) {
    fail(name, "data holds " + std::to_string(*available) + " bytes but the shape needs " + std::to_string(needed) +
                   " (truncated file)");
  }
  Matrix m(shape[0], shape[1]);
  // C order stores rows one after another, Fortran order columns: read a line at a time.
  const int lines = fortran ? m.cols() : m.rows(), lineLength = fortran ? m.rows() : m.cols();
  const char* lineName = fortran ? " columns" : " rows";
  Conversion conversion;
  std::vector<unsigned char> line(static_cast<std::size_t>(lineLength) * width);
  for (int l = 0; l < lines; ++l) {
    if (!in.read(reinterpret_cast<char*>(line.data()), static_cast<std::streamsize>(line.size()))) {
      fail(name, "data ends after " + std::to_string(l) + " of " + std::to_string(lines) + lineName + " (truncated file)");
    }
    for (int e = 0; e < lineLength; ++e) {
      float value = convert(&line[static_cast<std::size_t>(e) * width], type, conversion);
      (fortran ? m(e, l) : m(l, e)) = value;
    }
  }
  if (in.peek() != std::char_traits<char>::eof()) fail(name, "extra bytes after the array data");
  if (info != nullptr) {
    info->note = conversionNote(name, type, fortran, conversion);
    info->lost = conversion.overflowed + conversion.underflowed + conversion.rounded > 0;
  }
  return m;
}

Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements) {
  return readNpy(in, name, maxElements, nullptr);
}

Matrix readNpy(const std::filesystem::path& path, MatrixReadInfo* info) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open for reading (does the file exist?)");
  return readNpy(in, path.string(), kMaxElements, info);
}

Matrix readNpy(const std::filesystem::path& path) { return readNpy(path, nullptr); }

Matrix matrixFromArray(const ArrayView& array, const std::string& name, MatrixReadInfo* info) {
  std::optional<ElementType> type = elementType(array.dtype);
  if (!type) {
    throw InputError(name + ": dtype " + array.dtype + " is not a real number type tileskip converts (" +
                     kConvertedTypes + "); convert it with .astype(numpy.float32)");
  }
  checkMatrixShape(array.rows, array.cols, name.c_str());
  Matrix m(array.rows, array.cols);
  const auto* bytes = static_cast<const unsigned char*>(array.data);
  Conversion conversion;
  // Row by row in C's order, each element where its strides put it: any order, any view.
  for (int r = 0; r < m.rows(); ++r) {
    const unsigned char* row = bytes + r * array.rowStride;
    for (int c = 0; c < m.cols(); ++c) m(r, c) = convert(row + c * array.colStride, *type, conversion);
  }
  if (info != nullptr) {
    info->note = conversionNote(name, *type, false, conversion);
    info->lost = conversion.overflowed + conversion.underflowed + conversion.rounded > 0;
  }
  return m;
}

void writeNpy(std::ostream& out, const Matrix& m) {
  const std::int64_t shape[] = {m.rows(), m.cols()};
  writeHeader(out, "<f4", shape);
  static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");
  out.write(reinterpret_cast<const char*>(m.data()), static_cast<std::streamsize>(m.bytes()));
}

}  // namespace tileskip

namespace tileskip {

namespace {

// The bytes of one element of a type string: '<f4' 4, '|S3' 3, '<U3' 12 (UCS-4).
std::size_t elementWidth(const std::string& descr, const std::string& name) {
  const bool form = descr.size() >= 3 && (descr[0] == '<' || descr[0] == '>' || descr[0] == '=' || descr[0] == '|') &&
                    std::isalpha(static_cast<unsigned char>(descr[1])) &&
                    std::all_of(descr.begin() + 2, descr.end(), [](char c) { return c >= '0' && c <= '9'; }) && descr.size() <= 8;
  if (!form) fail(name, "dtype " + descr + " is not a simple NumPy type string");
  const std::size_t count = std::stoul(descr.substr(2));
  if (count == 0) fail(name, "dtype " + descr + " has elements of no bytes");
  return descr[1] == 'U' ? 4 * count : count;
}

// Row-major (C order) bytes of an array stored with its first index fastest (Fortran order).
std::vector<unsigned char> toCOrder(const std::vector<unsigned char>& bytes, const std::vector<std::int64_t>& shape, std::size_t width) {
  if (shape.size() < 2) return bytes;
  std::vector<unsigned char> out(bytes.size());
  const std::size_t count = bytes.size() / width;
  std::vector<std::int64_t> index(shape.size(), 0);  // the C-order index of element i, counted as i grows
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t fortranOffset = 0, stride = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      fortranOffset += static_cast<std::size_t>(index[d]) * stride;
      stride *= static_cast<std::size_t>(shape[d]);
    }
    std::memcpy(out.data() + i * width, bytes.data() + fortranOffset * width, width);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

std::int64_t NpyArray::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

NpyArray readNpyArray(std::istream& in, const std::string& name, std::uint64_t maxBytes) {
  const NpyHeader header = readHeader(in, name);
  NpyArray array;
  array.descr = header.descr;
  array.shape = header.shape;
  const std::size_t width = elementWidth(array.descr, name);
  std::uint64_t count = 1;
  for (std::int64_t d : array.shape) {
    if (d > 0 && count > maxBytes / static_cast<std::uint64_t>(d)) fail(name, "shape is larger than this reader accepts");
    count *= static_cast<std::uint64_t>(d);
  }
  if (count > maxBytes / width) fail(name, "shape is larger than this reader accepts");
  const std::uint64_t needed = count * width;
  if (const std::optional<std::uint64_t> available = bytesLeft(in); available && *available < needed) {
    fail(name, "data holds " + std::to_string(*available) + " bytes but the shape needs " + std::to_string(needed) +
                   " (truncated file)");
  }
  array.data.resize(needed);
  if (!in.read(reinterpret_cast<char*>(array.data.data()), static_cast<std::streamsize>(needed))) {
    fail(name, "data ends before the " + std::to_string(needed) + " bytes its shape needs (truncated file)");
  }
  if (in.peek() != std::char_traits<char>::eof()) fail(name, "extra bytes after the array data");
  if (header.fortran) array.data = toCOrder(array.data, array.shape, width);
  return array;
}

void writeNpyArray(std::ostream& out, const NpyArray& array) {
  static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");
  writeHeader(out, array.descr, array.shape);
  out.write(reinterpret_cast<const char*>(array.data.data()), static_cast<std::streamsize>(array.data.size()));
}

std::vector<std::int64_t> npyIntegers(const NpyArray& array, const std::string& name) {
  std::optional<ElementType> type = elementType(array.descr);
  if (!type || type->kind == 'f') fail(name, "dtype " + array.descr + " is not an integer type");
  std::vector<std::int64_t> values(static_cast<std::size_t>(array.elements()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const unsigned char* bytes = array.data.data() + i * type->width;
    if (type->kind == 'u') {
      std::uint64_t v = 0;
      switch (type->width) {
        case 1: v = bytes[0]; break;
        case 2: v = readScalar<std::uint16_t>(bytes, type->swap); break;
        case 4: v = readScalar<std::uint32_t>(bytes, type->swap); break;
        default: v = readScalar<std::uint64_t>(bytes, type->swap); break;
      }
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) fail(name, "holds an integer beyond 2^63");
      values[i] = static_cast<std::int64_t>(v);
    } else {
      switch (type->width) {
        case 1: values[i] = static_cast<std::int8_t>(bytes[0]); break;
        case 2: values[i] = readScalar<std::int16_t>(bytes, type->swap); break;
        case 4: values[i] = readScalar<std::int32_t>(bytes, type->swap); break;
        default: values[i] = readScalar<std::int64_t>(bytes, type->swap); break;
      }
    }
  }
  return values;
}

std::vector<float> npyFloats(const NpyArray& array, const std::string& name, MatrixReadInfo* info) {
  ElementType type = parseDescr(array.descr, name);
  std::vector<float> values(static_cast<std::size_t>(array.elements()));
  Conversion conversion;
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = convert(array.data.data() + i * type.width, type, conversion);
  if (info != nullptr) {
    info->note = conversionNote(name, type, false, conversion);
    info->lost = conversion.overflowed + conversion.underflowed + conversion.rounded > 0;
  }
  return values;
}

std::optional<std::string> npyText(const NpyArray& array) {
  if (array.elements() != 1 || array.descr.size() < 3) return std::nullopt;
  std::string text;
  if (array.descr[1] == 'S') {
    text.assign(array.data.begin(), array.data.end());
  } else if (array.descr[1] == 'U') {  // UCS-4, ASCII only here
    for (std::size_t i = 0; i + 3 < array.data.size(); i += 4) {
      const std::uint32_t c = readScalar<std::uint32_t>(array.data.data() + i, array.descr[0] == '>');
      if (c > 127) return std::nullopt;
      text.push_back(static_cast<char>(c));
    }
  } else {
    return std::nullopt;
  }
  while (!text.empty() && text.back() == '\0') text.pop_back();  // NumPy pads strings with NULs
  return text;
}

NpyArray npyText(const std::string& text) {
  NpyArray array;
  array.descr = "|S" + std::to_string(std::max<std::size_t>(1, text.size()));
  array.data.assign(text.begin(), text.end());
  if (array.data.empty()) array.data.push_back(0);
  return array;
}

}  // namespace tileskip
