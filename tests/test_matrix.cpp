#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "core/model/error.hpp"
#include "core/process/host_memory.hpp"
#include "core/model/matrix.hpp"

using namespace tileskip;

TEST(Matrix, ZeroFilledAlignedRowMajor) {
  Matrix m(3, 5);
  EXPECT_EQ(m.rows(), 3);
  EXPECT_EQ(m.cols(), 5);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.data()) % 64, 0u);
  EXPECT_EQ(m.countNonZeros(), 0u);
  m(1, 2) = 4.0f;
  EXPECT_EQ(m.data()[1 * 5 + 2], 4.0f);
  EXPECT_EQ(m.countNonZeros(), 1u);
}

TEST(Matrix, CopyIsDeep) {
  Matrix a(2, 2);
  a(0, 0) = 1.0f;
  Matrix b = a;
  b(0, 0) = 2.0f;
  EXPECT_EQ(a(0, 0), 1.0f);
  EXPECT_NE(a.data(), b.data());
}

TEST(Matrix, RejectsBadShapes) {
  EXPECT_THROW(Matrix(0, 4), InputError);
  EXPECT_THROW(Matrix(4, -1), InputError);
  // 65536 x 65536 overflows 32-bit indexing.
  EXPECT_THROW(checkMatrixShape(65536, 65536, "test"), InputError);
  EXPECT_NO_THROW(checkMatrixShape(1, 1, "test"));
}

TEST(HostMemory, AShortageNamesTheSizeNeededAndAvailable) {
  EXPECT_EQ(formatGiB(std::uint64_t{6} << 30), "6.0 GiB");
  std::optional<std::uint64_t> available = availableHostMemory();
  ASSERT_TRUE(available.has_value()) << "Linux says how much memory is available in /proc/meminfo";
  EXPECT_GT(*available, 0u);
  EXPECT_NO_THROW(checkHostMemory(1 << 20, "a small thing"));
  try {
    checkHostMemory(*available + (std::uint64_t{1} << 30), "a test");
    ADD_FAILURE() << "more than is available passed the check";
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB of host memory for a test, "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" available"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), ExitCode::Unavailable);
  }
}
