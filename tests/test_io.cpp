#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/io/matrix_io.hpp"
#include "run_command.hpp"

using namespace tileskip;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("tileskip_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

Matrix fromMtx(const std::string& text) {
  std::istringstream in(text);
  return readMatrixMarket(in, "test.mtx");
}

Matrix fromNpy(const std::string& bytes) {
  std::istringstream in(bytes);
  return readNpy(in, "test.npy");
}

// The message of the InputError `f` throws, or "" if it throws none.
template <typename F>
std::string errorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string npyHeader(const std::string& dict, int version = 1) {
  std::string header = dict;
  std::size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  std::size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (version != 1) out += std::string(2, '\0');
  return out + header;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

}  // namespace

TEST(Npy, RoundTripsThroughAFile) {
  Matrix m = generate("uniform", Operand::A, 33, 17, 0.4, 3);
  m(0, 0) = std::numeric_limits<float>::infinity();
  fs::path path = scratch("round.npy");
  writeMatrix(path, m);
  Matrix back = readMatrix(path);
  ASSERT_EQ(back.rows(), 33);
  ASSERT_EQ(back.cols(), 17);
  EXPECT_EQ(std::memcmp(back.data(), m.data(), m.bytes()), 0);
}

TEST(Npy, ReadsFloat64AndBigEndianAndVersion2) {
  Matrix a = fromNpy(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }") + raw<double>({1.5, -2.0, 3.25}));
  EXPECT_EQ(a(0, 1), -2.0f);
  std::string big = raw<float>({1.0f});
  std::reverse(big.begin(), big.end());
  Matrix b = fromNpy(npyHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1), }") + big);
  EXPECT_EQ(b(0, 0), 1.0f);
  Matrix c = fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", 2) + raw<float>({4, 5}));
  EXPECT_EQ(c(1, 0), 5.0f);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  EXPECT_NE(errorOf([] { fromNpy("NOTNUMPY"); }).find("magic"), std::string::npos);
  EXPECT_NE(errorOf([&] { fromNpy(npyHeader(good) + raw<float>({1, 2, 3})); }).find("truncated"), std::string::npos);
  EXPECT_NE(errorOf([&] { fromNpy(npyHeader(good) + raw<float>({1, 2, 3, 4, 5})); }).find("extra bytes"), std::string::npos);
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (1, 1), }") + raw<float>({1, 0})); })
                .find("float32"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1, 1), }") + raw<float>({1})); })
                .find("fortran_order"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2), }")); })
                .find("2-D"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2), }")); }), "");
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False}")); }).find("shape"), std::string::npos);
  EXPECT_NE(errorOf([] { fromNpy(std::string("\x93NUMPY\x01\x00\xff", 9)); }), "");
  // A header that promises 20000 x 20000 floats in a file of a few bytes is refused up front.
  EXPECT_NE(errorOf([] { fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (20000, 20000), }")); })
                .find("truncated"),
            std::string::npos);
}

TEST(MatrixMarket, RoundTripsThroughAFile) {
  Matrix m = generate("uniform", Operand::A, 20, 31, 0.2, 5);
  fs::path path = scratch("round.mtx");
  writeMatrix(path, m);
  Matrix back = readMatrix(path);
  EXPECT_EQ(std::memcmp(back.data(), m.data(), m.bytes()), 0);  // %.9g round-trips fp32 exactly
}

TEST(MatrixMarket, ReadsEveryLayoutFieldAndSymmetry) {
  Matrix coordinate = fromMtx("%%MatrixMarket matrix coordinate real general\n% comment\n\n2 3 2\n1 1 1.5\n2 3 -2e1\n");
  EXPECT_EQ(coordinate(0, 0), 1.5f);
  EXPECT_EQ(coordinate(1, 2), -20.0f);
  EXPECT_EQ(coordinate.countNonZeros(), 2u);

  Matrix pattern = fromMtx("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n");
  EXPECT_EQ(pattern(1, 0), 1.0f);

  Matrix integer = fromMtx("%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n1 1 4\n3 1 7\n");
  EXPECT_EQ(integer(2, 0), 7.0f);
  EXPECT_EQ(integer(0, 2), 7.0f);

  Matrix skew = fromMtx("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
  EXPECT_EQ(skew(1, 0), 3.0f);
  EXPECT_EQ(skew(0, 1), -3.0f);

  Matrix array = fromMtx("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_EQ(array(1, 0), 2.0f);  // column-major
  EXPECT_EQ(array(0, 1), 3.0f);

  Matrix symmetricArray = fromMtx("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n");
  EXPECT_EQ(symmetricArray(0, 1), 2.0f);
  EXPECT_EQ(symmetricArray(1, 0), 2.0f);
  EXPECT_EQ(symmetricArray(1, 1), 3.0f);

  Matrix crlf = fromMtx("%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 2\r\n");
  EXPECT_EQ(crlf(0, 0), 2.0f);
}

TEST(MatrixMarket, ValuesBeyondDoubleRangeRoundAsIeeeDoes) {
  Matrix m = fromMtx("%%MatrixMarket matrix coordinate real general\n2 3 6\n1 1 1e-400\n1 2 -1e-400\n1 3 1e400\n"
                     "2 1 -1e+400\n2 2 1e-40\n2 3 1e39\n");
  EXPECT_EQ(m(0, 0), 0.0f);  // underflow: zero, not infinity
  EXPECT_EQ(m(0, 1), 0.0f);
  EXPECT_EQ(m(0, 2), std::numeric_limits<float>::infinity());
  EXPECT_EQ(m(1, 0), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(m(1, 1), 1e-40f);  // a float denormal
  EXPECT_EQ(m(1, 2), std::numeric_limits<float>::infinity());  // beyond float, within double
}

TEST(MatrixMarket, RejectsMalformedFilesNamingTheLine) {
  EXPECT_EQ(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n"); }),
            "test.mtx:3: entry (3, 1) is outside the 2x2 matrix (indices are 1-based)");
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n"); }).find("test.mtx:3: file ends"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n"); }).find(":3: value 'abc'"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n"); }).find("complex"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("hello\n"); }).find("test.mtx:1"), std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx(""); }).find("empty"), std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n0 2 0\n"); }).find("test.mtx:2"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n"); }).find("more entries"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n"); }).find("square"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2 9\n"); }).find("entry count"),
            std::string::npos);
  EXPECT_NE(errorOf([] { fromMtx("%%MatrixMarket matrix coordinate real general\n2 2\n"); }).find("size line"),
            std::string::npos);
}

TEST(MatrixFiles, ErrorsForMissingFilesAndFormats) {
  EXPECT_NE(errorOf([] { readMatrix("/nonexistent/a.npy"); }).find("no such file"), std::string::npos);
  EXPECT_NE(errorOf([] { readMatrix("a.csv"); }).find("unknown matrix format"), std::string::npos);
  EXPECT_NE(errorOf([] { writeMatrix("/nonexistent-dir/c.npy", Matrix(1, 1)); }).find("cannot write"), std::string::npos);
}

TEST(MatrixFiles, FailedWriteLeavesNoFileBehind) {
  // The target is a non-empty folder, so the final rename fails even for root: the temporary
  // file must be gone and the folder untouched.
  fs::path dir = scratch("blocked");
  fs::create_directories(dir / "c.npy" / "inside");
  EXPECT_NE(errorOf([&] { writeMatrix(dir / "c.npy", Matrix(64, 64)); }).find("cannot replace"), std::string::npos);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
  EXPECT_TRUE(fs::is_directory(dir / "c.npy" / "inside"));
}

namespace {

std::string contentsOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(AtomicFile, TheTargetAppearsOnlyOnCommitAndComplete) {
  fs::path dir = tileskip::testing::emptyFolder(scratch(""), "atomic_commit");
  {
    AtomicFile file(dir / "report.json");
    file.stream() << "{\"complete\": true}";
    EXPECT_FALSE(fs::exists(dir / "report.json"));
    EXPECT_TRUE(fs::exists(file.temporaryPath()));
    EXPECT_EQ(file.temporaryPath().parent_path(), dir);  // same file system, so the rename is atomic
    file.commit();
  }
  EXPECT_EQ(contentsOf(dir / "report.json"), "{\"complete\": true}");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(AtomicFile, AnAbandonedWriteLeavesNothingAndTheOldFileIntact) {
  fs::path dir = tileskip::testing::emptyFolder(scratch(""), "atomic_abandon");
  std::ofstream(dir / "c.mtx") << "old";
  {
    AtomicFile file(dir / "c.mtx");
    file.stream() << "half of a new one";
  }  // e.g. an exception between the first byte and commit()
  EXPECT_EQ(contentsOf(dir / "c.mtx"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(AtomicFileDeathTest, AKillingSignalMidWriteLeavesNothingBehind) {
  // Re-execute rather than fork: a fork of a process with OpenBLAS's and the GPU drivers'
  // threads running can deadlock in the child (it hung on a 16-core GPU machine).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ}) {
    fs::path dir = tileskip::testing::emptyFolder(scratch(""), "atomic_signal_" + std::to_string(signal));
    auto dieMidWrite = [&] {
      rlimit noCore{0, 0};
      setrlimit(RLIMIT_CORE, &noCore);  // SIGQUIT and SIGXFSZ would dump core
      AtomicFile file(dir / "c.npy");
      file.stream() << std::string(1 << 16, 'x') << std::flush;
      std::raise(signal);
    };
    EXPECT_EXIT(dieMidWrite(), ::testing::KilledBySignal(signal), "");
    EXPECT_TRUE(fs::is_empty(dir)) << strsignal(signal);
  }
}

namespace {
// The .npy bytes of `dict` and `data` with the header length field off by `lengthError` bytes.
std::string withHeaderLengthOff(const std::string& dict, const std::string& data, int lengthError) {
  std::string bytes = npyHeader(dict) + data;
  int length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  length += lengthError;
  bytes[8] = static_cast<char>(length & 0xff);
  bytes[9] = static_cast<char>(length >> 8);
  return bytes;
}

Matrix fromNpy(const std::string& bytes, MatrixReadInfo& info) {
  std::istringstream in(bytes);
  return readNpy(in, "test.npy", kMaxElements, &info);
}
}  // namespace

// Regression: a header length 4 bytes too long took 4 bytes of data into the header and
// read every element shifted by one; NumPy refuses such a file, and so do we. Too short as well.
TEST(Npy, RefusesAHeaderLengthThatReachesIntoTheData) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }";
  std::string data = raw<float>({1, 2, 3, 4});  // one element more, so that the sizes still agree
  EXPECT_NE(errorOf([&] { fromNpy(withHeaderLengthOff(dict, data, 4)); }).find("length"), std::string::npos);
  EXPECT_NE(errorOf([&] { fromNpy(withHeaderLengthOff(dict, raw<float>({1, 2}), -4)); }), "");
  EXPECT_EQ(errorOf([&] { fromNpy(withHeaderLengthOff(dict, raw<float>({1, 2, 3}), 0)); }), "");
}

// Regression: valid headers that NumPy reads (hand-written or from other writers).
TEST(Npy, ReadsDoubleQuotedKeysAndSpacesBeforeCommas) {
  Matrix a = fromNpy(npyHeader("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1, 2)}") + raw<float>({1, 2}));
  EXPECT_EQ(a(0, 1), 2.0f);
  Matrix b = fromNpy(npyHeader("{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 2 , 1 ) , }") + raw<float>({3, 4}));
  ASSERT_EQ(b.rows(), 2);
  EXPECT_EQ(b(1, 0), 4.0f);
  Matrix c = fromNpy(npyHeader("{'shape': (1, 1), 'fortran_order': False, 'descr': '<f4'}") + raw<float>({5}));
  EXPECT_EQ(c(0, 0), 5.0f);
}

// Fortran order is transposed into the row-major Matrix, and said so.
TEST(Npy, ReadsFortranOrder) {
  MatrixReadInfo info;
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  Matrix m = fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }") + raw<float>({1, 4, 2, 5, 3, 6}), info);
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 0), 1.0f);
  EXPECT_EQ(m(0, 2), 3.0f);
  EXPECT_EQ(m(1, 0), 4.0f);
  EXPECT_EQ(m(1, 2), 6.0f);
  EXPECT_NE(info.note.find("Fortran order"), std::string::npos) << info.note;
  // Truncated Fortran data says columns.
  EXPECT_NE(errorOf([] {
              std::istringstream forwardOnly(npyHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }") +
                                             raw<float>({1, 4, 2}));
              readNpy(forwardOnly, "test.npy");
            }).find("truncated"),
            std::string::npos);
}

// Float64 and float16 (and integers) are converted to float32, and the reader says what
// the conversion lost: overflow to Inf, and non-zeros that became zero (they change the patterns).
TEST(Npy, ConvertsFloat64Float16AndIntegersAndSaysWhatWasLost) {
  MatrixReadInfo info;
  Matrix exact = fromNpy(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }") + raw<double>({1.5, -2.0}), info);
  EXPECT_EQ(exact(0, 0), 1.5f);
  EXPECT_EQ(info.note, "test.npy: float64 converted to float32");

  Matrix lossy = fromNpy(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 4), }") +
                             raw<double>({1e300, 1e-300, 0.0, std::numeric_limits<double>::infinity()}),
                         info);
  EXPECT_TRUE(std::isinf(lossy(0, 0)));
  EXPECT_EQ(lossy(0, 1), 0.0f);
  EXPECT_NE(info.note.find("1 finite values beyond float32's range became Inf"), std::string::npos) << info.note;
  EXPECT_NE(info.note.find("1 non-zeros below float32's range became zero"), std::string::npos) << info.note;

  // float16: 1.0, -2.5, 65504 (the largest), 2^-24 (the smallest subnormal), Inf.
  Matrix half = fromNpy(npyHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (1, 5), }") +
                            raw<std::uint16_t>({0x3C00, 0xC100, 0x7BFF, 0x0001, 0x7C00}),
                        info);
  EXPECT_EQ(half(0, 0), 1.0f);
  EXPECT_EQ(half(0, 1), -2.5f);
  EXPECT_EQ(half(0, 2), 65504.0f);
  EXPECT_EQ(half(0, 3), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(half(0, 4)));
  EXPECT_NE(info.note.find("float16 converted to float32: exactly"), std::string::npos) << info.note;

  Matrix integers = fromNpy(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 3), }") +
                                raw<std::int32_t>({-7, 0, 16777217}),
                            info);
  EXPECT_EQ(integers(0, 0), -7.0f);
  EXPECT_EQ(integers(0, 2), 16777216.0f);
  EXPECT_NE(info.note.find("int32 converted to float32: 1 integers beyond 2^24 rounded"), std::string::npos) << info.note;
  Matrix bytes = fromNpy(npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }") + std::string("\x05\xff", 2), info);
  EXPECT_EQ(bytes(0, 1), 255.0f);

  Matrix plain = fromNpy(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }") + raw<float>({1}), info);
  EXPECT_EQ(info.note, "");
}

// ---- Regressions: device nodes, failed writes, long names.

// /dev/null is written to, never replaced: a rename over it would (as root) put a regular file
// where every program expects the device.
TEST(AtomicFile, ACharacterDeviceIsWrittenToNotReplaced) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  {
    AtomicFile out("/dev/null");
    out.stream() << "discarded";
    EXPECT_NO_THROW(out.commit());
  }
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

// A write that fails on the device (no space on /dev/full) is an error, not "wrote".
TEST(AtomicFile, AFailedWriteToADeviceThrows) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  AtomicFile out("/dev/full");
  out.stream() << std::string(1 << 16, 'x');
  EXPECT_THROW(out.commit(), InputError);
  struct stat after {};
  ASSERT_EQ(::stat("/dev/full", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
}

// A FIFO: written to while someone reads it; refused at once, never blocking, when nobody does.
TEST(AtomicFile, AFifoIsWrittenToWhenReadAndRefusedOtherwise) {
  fs::path fifo = scratch("out.fifo");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string why = errorOf([&] { AtomicFile out(fifo); });
  EXPECT_NE(why.find("nobody is reading"), std::string::npos) << why;
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    AtomicFile out(fifo);
    out.stream() << "through the pipe";
    out.commit();
  }
  char text[64] = {};
  ssize_t got = ::read(reader, text, sizeof text - 1);
  ::close(reader);
  EXPECT_EQ(std::string(text, got > 0 ? static_cast<std::size_t>(got) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  fs::remove(fifo);
}

// A legal 254-byte name: the temporary's name must stay within 255 bytes too.
TEST(AtomicFile, ALongestLegalNameWorks) {
  fs::path target = scratch(std::string(250, 'n') + ".npy");
  ASSERT_EQ(target.filename().string().size(), 254u);
  writeMatrix(target, Matrix(2, 2));
  EXPECT_EQ(readMatrix(target).rows(), 2);
  fs::remove(target);
}

// A link to a regular file: the file it points to is replaced, the link stays a link.
TEST(AtomicFile, ALinkKeepsPointingAtTheReplacedFile) {
  fs::path real = scratch("real.npy"), link = scratch("link.npy");
  fs::remove(link);
  writeMatrix(real, Matrix(1, 1));
  fs::create_symlink(real, link);
  writeMatrix(link, Matrix(3, 2));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(readMatrix(real).rows(), 3);
  fs::remove(link);
}
