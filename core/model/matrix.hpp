// Dense fp32 matrix, row-major, with 64-byte aligned storage so that vector loads and
// device uploads never straddle a cache line at the start of a row block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace tileskip {

// Kernels index with 32-bit integers: every matrix must have fewer elements than this.
inline constexpr std::int64_t kMaxElements = (std::int64_t{1} << 31) - 1;

// Throws InputError unless rows, cols >= 1 and rows*cols fits 32-bit indexing.
void checkMatrixShape(std::int64_t rows, std::int64_t cols, const char* what);

class Matrix {
 public:
  Matrix() = default;
  // Zero-filled; throws InputError on a shape checkMatrixShape rejects.
  Matrix(std::int64_t rows, std::int64_t cols);

  Matrix(const Matrix& other);
  Matrix& operator=(const Matrix& other);
  Matrix(Matrix&&) noexcept = default;
  Matrix& operator=(Matrix&&) noexcept = default;

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  std::size_t size() const { return static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_); }
  std::size_t bytes() const { return size() * sizeof(float); }
  bool empty() const { return size() == 0; }

  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  std::span<float> values() { return {data_.get(), size()}; }
  std::span<const float> values() const { return {data_.get(), size()}; }

  float& operator()(int row, int col) { return data_[index(row, col)]; }
  float operator()(int row, int col) const { return data_[index(row, col)]; }

  void fill(float value);
  std::size_t countNonZeros() const;
  // The fraction of elements that are not zero (NaN counts as non-zero); 0 for an empty matrix.
  double nonZeroFraction() const { return empty() ? 0.0 : static_cast<double>(countNonZeros()) / static_cast<double>(size()); }

 private:
  std::size_t index(int row, int col) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) + static_cast<std::size_t>(col);
  }
  struct AlignedFree {
    void operator()(float* p) const;
  };
  int rows_ = 0;
  int cols_ = 0;
  std::unique_ptr<float[], AlignedFree> data_;
};

}  // namespace tileskip
