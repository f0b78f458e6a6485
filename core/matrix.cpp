#include "core/matrix.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "core/error.hpp"

namespace tileskip {

namespace {
constexpr std::size_t kAlignment = 64;

float* allocateAligned(std::size_t count) {
  std::size_t bytes = (count * sizeof(float) + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, std::max<std::size_t>(bytes, kAlignment));
  if (p == nullptr) {
    throw UnavailableError("out of host memory: could not allocate " + std::to_string(bytes) +
                           " bytes for a matrix; choose a smaller size");
  }
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
  data_.reset(allocateAligned(size()));
  fill(0.0f);
}

Matrix::Matrix(const Matrix& other) : rows_(other.rows_), cols_(other.cols_) {
  if (other.data_) {
    data_.reset(allocateAligned(size()));
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
