#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.hpp"
#include "core/matrix.hpp"

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
