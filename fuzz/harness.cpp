#include "harness.hpp"

#include <cmath>
#include <cstring>
#include <istream>
#include <optional>
#include <sstream>
#include <streambuf>
#include <vector>

#include "cli_app.hpp"
#include "core/model/error.hpp"
#include "core/io/matrix_io.hpp"

namespace tileskip::fuzz {

namespace {

// A read-only stream over the bytes that cannot seek, like a pipe: tellg() answers -1.
class ForwardOnlyBuffer : public std::streambuf {
 public:
  explicit ForwardOnlyBuffer(std::span<const std::uint8_t> data) {
    char* begin = const_cast<char*>(reinterpret_cast<const char*>(data.data()));
    setg(begin, begin, begin + data.size());
  }
};

std::string text(std::span<const std::uint8_t> data) { return {reinterpret_cast<const char*>(data.data()), data.size()}; }

template <typename Read>
Outcome attempt(Read read, Matrix& result) {
  try {
    result = read();
    return {true, ""};
  } catch (const InputError& e) {
    return {false, e.what()};
  }
}

void require(bool condition, const std::string& what) {
  if (!condition) throw HarnessFailure(what);
}

// Equal element for element, NaN matching NaN; `bitwise` also tells -0 from 0 and NaN payloads apart.
bool sameMatrix(const Matrix& x, const Matrix& y, bool bitwise) {
  if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
  if (bitwise) return std::memcmp(x.data(), y.data(), x.bytes()) == 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    float a = x.data()[i], b = y.data()[i];
    if (!(a == b || (std::isnan(a) && std::isnan(b)))) return false;
  }
  return true;
}

// An accepted matrix has a shape the reader may accept, and our own writer and reader give it
// back: exactly where `bitwise`, else up to -0 == 0 and NaN payloads.
template <typename Write, typename Read>
void requireRoundTrip(const Matrix& m, Write write, Read read, bool bitwise, const std::string& format) {
  require(m.rows() >= 1 && m.cols() >= 1 && static_cast<std::int64_t>(m.size()) <= kMaxFuzzElements,
          "accepted a matrix whose shape the reader should have refused");
  std::stringstream again;
  write(again, m);
  Matrix back;
  Outcome reread = attempt([&] { return read(again, "rewritten" + format); }, back);
  require(reread.accepted, "our own " + format + " output was rejected: " + reread.message);
  require(sameMatrix(m, back, bitwise), format + " round trip changed the matrix");
}

Matrix readMtx(std::istream& in, const std::string& name) { return readMatrixMarket(in, name, kMaxFuzzElements); }
Matrix readNpyStream(std::istream& in, const std::string& name) { return readNpy(in, name, kMaxFuzzElements); }

}  // namespace

Outcome checkMatrixMarket(std::span<const std::uint8_t> data) {
  std::istringstream in(text(data));
  Matrix m;
  Outcome outcome = attempt([&] { return readMtx(in, "fuzz.mtx"); }, m);
  if (outcome.accepted) requireRoundTrip(m, writeMatrixMarket, readMtx, false, ".mtx");
  return outcome;
}

Outcome checkNpy(std::span<const std::uint8_t> data) {
  std::istringstream seekable(text(data));
  Matrix m;
  Outcome outcome = attempt([&] { return readNpyStream(seekable, "fuzz.npy"); }, m);

  ForwardOnlyBuffer buffer(data);
  std::istream forwardOnly(&buffer);
  Matrix streamed;
  Outcome fromPipe = attempt([&] { return readNpyStream(forwardOnly, "fuzz.npy"); }, streamed);
  require(outcome.accepted == fromPipe.accepted, "a seekable and a forward-only stream disagree: '" + outcome.message +
                                                     "' vs '" + fromPipe.message + "'");
  if (!outcome.accepted) return outcome;
  require(sameMatrix(m, streamed, true), "a seekable and a forward-only stream read different matrices");
  requireRoundTrip(m, writeNpy, readNpyStream, true, ".npy");
  return outcome;
}

Outcome checkCli(std::span<const std::uint8_t> data) {
  std::vector<std::string> arguments;
  std::istringstream lines(text(data));
  for (std::string line; std::getline(lines, line);) arguments.push_back(line);
  std::vector<const char*> argv = {"tileskip"};
  for (const std::string& a : arguments) argv.push_back(a.c_str());

  std::ostringstream out, err;
  cli::Cli cli;
  std::optional<int> code = cli.parse(static_cast<int>(argv.size()), argv.data(), out, err);
  // Arguments hold no newline, so only the tool itself can start a line with this.
  std::string messages = "\n" + err.str();
  require(messages.find("\ntileskip: internal error:") == std::string::npos, "internal error: " + err.str());
  require(!code || *code == 0 || *code == 2, "parse gave exit code " + std::to_string(*code) + ": " + err.str());
  if (code && *code == 2) require(!err.str().empty(), "exit code 2 without a message");
  return {!code || *code == 0, err.str()};
}

}  // namespace tileskip::fuzz
