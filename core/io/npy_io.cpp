// NumPy .npy: a magic string, a version, a little-endian header length, a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (R, C), }) padded with spaces and ended by a
// newline, then the raw array. Format description: numpy.lib.format. float16/64 and integers
// are converted to float32, Fortran order to row-major, and the caller is told (MatrixReadInfo).
#include <bit>
#include <cctype>
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

Matrix readNpy(std::istream& in, const std::string& name, std::int64_t maxElements, MatrixReadInfo* info) {
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
  ElementType type = parseDescr(entry(entries, "descr", name), name);
  std::string fortranText = entry(entries, "fortran_order", name);
  if (fortranText != "False" && fortranText != "True") fail(name, "fortran_order is " + fortranText + ", not True or False");
  bool fortran = fortranText == "True";
  std::vector<std::int64_t> shape = parseShape(entry(entries, "shape", name), name);
  if (shape.size() != 2) fail(name, "expected a 2-D array, got " + std::to_string(shape.size()) + " dimensions");

  checkMatrixShape(shape[0], shape[1], name.c_str());
  if (shape[0] * shape[1] > maxElements) fail(name, "shape is larger than this reader accepts");
  const std::size_t width = type.width;
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
