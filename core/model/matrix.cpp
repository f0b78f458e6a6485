#include "core/model/matrix.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "core/model/error.hpp"
#include "core/process/host_memory.hpp"

namespace tileskip {

namespace {
constexpr std::size_t kAlignment = 64;

// Matrices at least this large are checked against the host's available memory first, so that
// one the host cannot hold fails with a message, not with the OOM killer once its pages are touched.
constexpr std::size_t kCheckedAllocation = std::size_t{256} << 20;

float* allocateAligned(int rows, int cols) {
  std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  std::size_t bytes = (count * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment;
  auto what = [&] { return "a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix"; };
  if (bytes >= kCheckedAllocation) checkHostMemory(bytes, what());
  void* p = std::aligned_alloc(kAlignment, std::max<std::size_t>(bytes, kAlignment));
  if (p == nullptr) throwOutOfHostMemory(bytes, what());
  return static_cast<float*>(p);
}
}  // namespace

void checkMatrixShape(std::int64_t rows, std::int64_t cols, const char* what) {
  if (rows < 1 || cols < 1) {
    throw InputError(std::string(what) + ": shape " + std::to_string(rows) + "x" + std::to_string(cols) +
                     " is invalid; rows and columns must be at least 1");
  }
  if (rows > kMaxElements || cols > kMaxElements || rows * cols > kMaxElements) {
    throw InputError(std::string(what) + ": shape " + std::to_string(rows) + "x" + std::to_string(cols) +
                     " has more than 2^31-1 elements, beyond the kernels' 32-bit indexing");
  }
}

void Matrix::AlignedFree::operator()(float* p) const { std::free(p); }

Matrix::Matrix(std::int64_t rows, std::int64_t cols) {
  checkMatrixShape(rows, cols, "matrix");
  rows_ = static_cast<int>(rows);
  cols_ = static_cast<int>(cols);
  data_.reset(allocateAligned(rows_, cols_));
  fill(0.0f);
}

Matrix::Matrix(const Matrix& other) : rows_(other.rows_), cols_(other.cols_) {
  if (other.data_) {
    data_.reset(allocateAligned(rows_, cols_));
    std::copy_n(other.data(), size(), data());
  }
}

Matrix& Matrix::operator=(const Matrix& other) {
  if (this != &other) {
    Matrix copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void Matrix::fill(float value) { std::fill_n(data(), size(), value); }

std::size_t Matrix::countNonZeros() const {
  return static_cast<std::size_t>(std::count_if(data(), data() + size(), [](float v) { return v != 0.0f; }));
}

}  // namespace tileskip
