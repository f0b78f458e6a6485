// Matrix Market exchange format (math.nist.gov/MatrixMarket): a banner line
// "%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> <general|symmetric|skew-symmetric>",
// comment lines starting with '%', a size line, then entries: "i j [value]" 1-based for
// coordinate, column-major values for array (only the lower triangle when symmetric).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/error.hpp"
#include "core/io/matrix_io.hpp"

namespace tileskip {

namespace {

enum class Layout { Coordinate, Array };
enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric };

class LineReader {
 public:
  LineReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  // The next line that is not a comment or blank, split into tokens; false at end of input.
  bool next(std::vector<std::string_view>& tokens) {
    while (std::getline(in_, line_)) {
      ++number_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (line_.size() > kMaxLineLength) fail("line is longer than " + std::to_string(kMaxLineLength) + " characters");
      if (line_.empty() || line_[0] == '%') continue;
      tokens.clear();
      std::string_view rest(line_);
      while (true) {
        std::size_t start = rest.find_first_not_of(" \t");
        if (start == std::string_view::npos) break;
        std::size_t end = rest.find_first_of(" \t", start);
        tokens.push_back(rest.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        rest = rest.substr(end);
      }
      if (!tokens.empty()) return true;
    }
    return false;
  }

  bool firstLine(std::string& banner) {
    if (!std::getline(in_, banner)) return false;
    ++number_;
    if (!banner.empty() && banner.back() == '\r') banner.pop_back();
    return true;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_ + ":" + std::to_string(number_) + ": " + what);
  }

  int lineNumber() const { return number_; }

 private:
  static constexpr std::size_t kMaxLineLength = 1 << 16;
  std::istream& in_;
  const std::string& name_;
  std::string line_;
  int number_ = 0;
};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::int64_t parseIndex(std::string_view token, const LineReader& reader, const char* what) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) {
    reader.fail(std::string(what) + " '" + std::string(token) + "' is not a whole number");
  }
  return value;
}

float parseValue(std::string_view token, Field field, const LineReader& reader) {
  if (field == Field::Integer) {
    return static_cast<float>(parseIndex(token, reader, "integer value"));
  }
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  double value = 0.0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error == std::errc::result_out_of_range && end == token.data() + token.size()) {
    // Beyond double's range from_chars gives no value: strtod rounds as IEEE does, an
    // underflow to a (signed) zero or denormal, an overflow to a signed infinity.
    return static_cast<float>(std::strtod(std::string(token).c_str(), nullptr));
  }
  if (error != std::errc() || end != token.data() + token.size()) {
    reader.fail("value '" + std::string(token) + "' is not a number");
  }
  return static_cast<float>(value);
}

}  // namespace

Matrix readMatrixMarket(std::istream& in, const std::string& name, std::int64_t maxElements) {
  LineReader reader(in, name);
  std::string banner;
  if (!reader.firstLine(banner)) throw InputError(name + ": empty file; expected a %%MatrixMarket banner");
  std::istringstream words(banner);
  std::string tag, object, layoutWord, fieldWord, symmetryWord;
  words >> tag >> object >> layoutWord >> fieldWord >> symmetryWord;
  if (tag != "%%MatrixMarket") reader.fail("expected the banner '%%MatrixMarket matrix ...'");
  if (lower(object) != "matrix") reader.fail("object '" + object + "' is not 'matrix'");

  Layout layout;
  std::string l = lower(layoutWord);
  if (l == "coordinate") layout = Layout::Coordinate;
  else if (l == "array") layout = Layout::Array;
  else reader.fail("format '" + layoutWord + "' is neither 'coordinate' nor 'array'");

  Field field;
  std::string f = lower(fieldWord);
  if (f == "real" || f == "double") field = Field::Real;
  else if (f == "integer") field = Field::Integer;
  else if (f == "pattern") field = Field::Pattern;
  else reader.fail("field '" + fieldWord + "' is not supported (real, integer or pattern)");

  Symmetry symmetry;
  std::string s = lower(symmetryWord);
  if (s == "general") symmetry = Symmetry::General;
  else if (s == "symmetric") symmetry = Symmetry::Symmetric;
  else if (s == "skew-symmetric") symmetry = Symmetry::SkewSymmetric;
  else reader.fail("symmetry '" + symmetryWord + "' is not supported (general, symmetric or skew-symmetric)");
  if (layout == Layout::Array && field == Field::Pattern) reader.fail("an array matrix cannot have the field 'pattern'");

  std::vector<std::string_view> tokens;
  if (!reader.next(tokens)) reader.fail("file ends before the size line");
  std::size_t sizeFields = layout == Layout::Coordinate ? 3 : 2;
  if (tokens.size() != sizeFields) {
    reader.fail(std::string("size line needs ") + (layout == Layout::Coordinate ? "'rows cols entries'" : "'rows cols'"));
  }
  std::int64_t rows = parseIndex(tokens[0], reader, "row count");
  std::int64_t cols = parseIndex(tokens[1], reader, "column count");
  try {
    checkMatrixShape(rows, cols, "matrix");
  } catch (const InputError& e) {
    reader.fail(e.what());
  }
  if (rows * cols > maxElements) reader.fail("shape is larger than this reader accepts");
  if (symmetry != Symmetry::General && rows != cols) reader.fail("a symmetric matrix must be square");

  std::int64_t entries = 0;
  if (layout == Layout::Coordinate) {
    entries = parseIndex(tokens[2], reader, "entry count");
    if (entries < 0 || entries > rows * cols) {
      reader.fail("entry count " + std::to_string(entries) + " does not fit a " + std::to_string(rows) + "x" +
                  std::to_string(cols) + " matrix");
    }
  } else {
    entries = symmetry == Symmetry::General ? rows * cols
              : symmetry == Symmetry::Symmetric ? rows * (rows + 1) / 2
                                                : rows * (rows - 1) / 2;
  }

  Matrix m(rows, cols);
  auto place = [&](std::int64_t r, std::int64_t c, float v) {
    m(static_cast<int>(r), static_cast<int>(c)) += v;
    if (r != c && symmetry == Symmetry::Symmetric) m(static_cast<int>(c), static_cast<int>(r)) += v;
    if (r != c && symmetry == Symmetry::SkewSymmetric) m(static_cast<int>(c), static_cast<int>(r)) -= v;
  };

  std::int64_t arrayRow = symmetry == Symmetry::SkewSymmetric ? 1 : 0, arrayCol = 0;
  for (std::int64_t e = 0; e < entries; ++e) {
    if (!reader.next(tokens)) {
      reader.fail("file ends after " + std::to_string(e) + " of " + std::to_string(entries) + " entries (truncated?)");
    }
    if (layout == Layout::Coordinate) {
      std::size_t expected = field == Field::Pattern ? 2 : 3;
      if (tokens.size() != expected) {
        reader.fail(std::string("entry needs ") + (field == Field::Pattern ? "'row col'" : "'row col value'"));
      }
      std::int64_t r = parseIndex(tokens[0], reader, "row index");
      std::int64_t c = parseIndex(tokens[1], reader, "column index");
      if (r < 1 || r > rows || c < 1 || c > cols) {
        reader.fail("entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the " +
                    std::to_string(rows) + "x" + std::to_string(cols) + " matrix (indices are 1-based)");
      }
      if (symmetry != Symmetry::General && c > r) reader.fail("a symmetric matrix lists only its lower triangle");
      if (symmetry == Symmetry::SkewSymmetric && c == r) reader.fail("a skew-symmetric matrix has no diagonal entries");
      float v = field == Field::Pattern ? 1.0f : parseValue(tokens[2], field, reader);
      place(r - 1, c - 1, v);
    } else {
      if (tokens.size() != 1) reader.fail("an array entry is a single value");
      place(arrayRow, arrayCol, parseValue(tokens[0], field, reader));
      // Column-major; the symmetric forms list each column from the diagonal (or just below) down.
      if (++arrayRow == rows) {
        ++arrayCol;
        arrayRow = symmetry == Symmetry::General ? 0 : symmetry == Symmetry::Symmetric ? arrayCol : arrayCol + 1;
      }
    }
  }
  if (reader.next(tokens)) reader.fail("more entries than the size line declares");
  return m;
}

Matrix readMatrixMarket(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot open for reading (does the file exist?)");
  return readMatrixMarket(in, path.string());
}

void writeMatrixMarket(std::ostream& out, const Matrix& m) {
  out << "%%MatrixMarket matrix coordinate real general\n";
  out << "% written by tileskip\n";
  out << m.rows() << ' ' << m.cols() << ' ' << m.countNonZeros() << '\n';
  char buffer[64];
  for (int r = 0; r < m.rows(); ++r) {
    for (int c = 0; c < m.cols(); ++c) {
      float v = m(r, c);
      if (v == 0.0f) continue;
      std::snprintf(buffer, sizeof buffer, "%d %d %.9g\n", r + 1, c + 1, static_cast<double>(v));
      out << buffer;
    }
  }
}

}  // namespace tileskip
