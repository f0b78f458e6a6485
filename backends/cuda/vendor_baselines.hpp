// The vendor baselines that run beside our kernels in the same process and bench table:
// `cublas` (cublasSgemm, FP32 math, TF32 off) and `cusparse-csr` (A converted to CSR on the
// device, then cusparseSpMM).
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <cstdint>

#include "core/model/dtype.hpp"
#include "device_resources.hpp"

namespace tileskip::cuda {

// A cuBLAS handle bound to one stream, in CUBLAS_DEFAULT_MATH: plain FP32, no TF32 tensor cores.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

class CusparseHandle {
 public:
  explicit CusparseHandle(cudaStream_t stream);
  ~CusparseHandle();
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

// Row-major C = A·B through column-major cuBLAS: C^T = B^T · A^T, which is the same memory.
void runCublasSgemm(cublasHandle_t handle, const float* a, const float* b, float* c, int m, int n, int k);

// The same in another input precision, fp32 accumulate and output (cublasGemmEx): tf32 on the
// fp32 arrays (CUBLAS_COMPUTE_32F_FAST_TF32), fp16 and bf16 on 16-bit copies of A and B. tf32
// under NVIDIA_TF32_OVERRIDE=0, which would make it FP32, is refused (UnavailableError).
void runCublasGemm(cublasHandle_t handle, DType dtype, const void* a, const void* b, float* c, int m, int n, int k);

// "cuBLAS 13.1.0 (TF32 off), cuSPARSE 12.6.3"
std::string vendorLibraryVersions();

// A (M x K, row-major on the device) in CSR form, 32-bit indices.
class CsrMatrix {
 public:
  CsrMatrix() = default;
  ~CsrMatrix();
  CsrMatrix(const CsrMatrix&) = delete;
  CsrMatrix& operator=(const CsrMatrix&) = delete;

  // Converts with cusparseDenseToSparse (analysis, then conversion); returns their device time
  // in milliseconds (allocations between them are not timed). Converting again redoes it all.
  double convert(cusparseHandle_t handle, cudaStream_t stream, const float* a, int m, int k);
  bool converted() const { return descriptor_ != nullptr; }
  std::int64_t nonZeros() const { return nonZeros_; }

  // C = A·B (B: K x N, C: M x N, row-major) with cusparseSpMM; returns the device time of the
  // SpMM alone. C is zeroed first, outside the timing, so rows of A with no non-zero give 0.
  double multiply(cusparseHandle_t handle, cudaStream_t stream, const float* b, float* c, int n);

 private:
  void destroyDescriptor() noexcept;
  cusparseSpMatDescr_t descriptor_ = nullptr;
  int m_ = 0, k_ = 0;
  std::int64_t nonZeros_ = 0;
  DeviceBuffer rowOffsets_, columns_, values_, conversionWorkspace_, multiplyWorkspace_;
  EventTimer timer_;
};

}  // namespace tileskip::cuda
