#include "vendor_baselines.hpp"

#include <cstdlib>
#include <string>

#include "core/model/error.hpp"
#include "cuda_check.hpp"

namespace tileskip::cuda {

namespace {

// A dense matrix descriptor that destroys itself.
class DenseDescriptor {
 public:
  DenseDescriptor(int rows, int cols, const float* values, const char* what) {
    check(cusparseCreateDnMat(&descriptor_, rows, cols, cols, const_cast<float*>(values), CUDA_R_32F, CUSPARSE_ORDER_ROW),
          what);
  }
  ~DenseDescriptor() { cusparseDestroyDnMat(descriptor_); }
  DenseDescriptor(const DenseDescriptor&) = delete;
  DenseDescriptor& operator=(const DenseDescriptor&) = delete;
  cusparseDnMatDescr_t get() const { return descriptor_; }

 private:
  cusparseDnMatDescr_t descriptor_ = nullptr;
};

// Grows `buffer` to at least `bytes`; keeps it when it is big enough.
void reserve(DeviceBuffer& buffer, std::size_t bytes, const std::string& what) {
  if (buffer.empty() || buffer.bytes() < bytes) buffer = DeviceBuffer(bytes, what);
}

std::string libraryVersion(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

CublasHandle::CublasHandle(cudaStream_t stream) {
  check(cublasCreate(&handle_), "creating the cuBLAS handle");
  try {
    check(cublasSetStream(handle_, stream), "binding cuBLAS to the stream");
    check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "setting cuBLAS to FP32 math (TF32 off)");
  } catch (...) {
    cublasDestroy(handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  if (!processExiting()) cublasDestroy(handle_);
}

CusparseHandle::CusparseHandle(cudaStream_t stream) {
  check(cusparseCreate(&handle_), "creating the cuSPARSE handle");
  try {
    check(cusparseSetStream(handle_, stream), "binding cuSPARSE to the stream");
  } catch (...) {
    cusparseDestroy(handle_);
    throw;
  }
}

CusparseHandle::~CusparseHandle() {
  if (!processExiting()) cusparseDestroy(handle_);
}

void runCublasSgemm(cublasHandle_t handle, const float* a, const float* b, float* c, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, n, a, k, &beta, c, n), "running cublasSgemm");
}

void runCublasGemm(cublasHandle_t handle, DType dtype, const void* a, const void* b, float* c, int m, int n, int k) {
  if (dtype == DType::Fp32) return runCublasSgemm(handle, static_cast<const float*>(a), static_cast<const float*>(b), c, m, n, k);
  // NVIDIA_TF32_OVERRIDE=0 turns TF32 off in every NVIDIA library, whatever the compute type asks:
  // cuBLAS would then multiply tf32 inputs in plain FP32 and be timed as cuBLAS TF32 (a headline
  // run under that variable put the Hopper kernel at 6.9x "cuBLAS TF32"; lab/32-tile-work).
  const char* tf32Override = std::getenv("NVIDIA_TF32_OVERRIDE");
  if (dtype == DType::Tf32 && tf32Override != nullptr && std::string(tf32Override) == "0") {
    throw tileskip::UnavailableError("cuBLAS cannot run tf32 inputs on TF32 here: NVIDIA_TF32_OVERRIDE=0 in the "
                                     "environment turns TF32 off in every NVIDIA library; unset it to time cuBLAS TF32");
  }
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType_t type = dtype == DType::Tf32 ? CUDA_R_32F : dtype == DType::Fp16 ? CUDA_R_16F : CUDA_R_16BF;
  const cublasComputeType_t compute = dtype == DType::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, type, n, a, type, k, &beta, c, CUDA_R_32F, n, compute,
                     CUBLAS_GEMM_DEFAULT),
        "running cublasGemmEx");
}

std::string vendorLibraryVersions() {
  int major = 0, minor = 0, patch = 0;
  check(cublasGetProperty(MAJOR_VERSION, &major), "reading the cuBLAS version");
  check(cublasGetProperty(MINOR_VERSION, &minor), "reading the cuBLAS version");
  check(cublasGetProperty(PATCH_LEVEL, &patch), "reading the cuBLAS version");
  std::string text = "cuBLAS " + libraryVersion(major, minor, patch) + " (TF32 off)";
  check(cusparseGetProperty(MAJOR_VERSION, &major), "reading the cuSPARSE version");
  check(cusparseGetProperty(MINOR_VERSION, &minor), "reading the cuSPARSE version");
  check(cusparseGetProperty(PATCH_LEVEL, &patch), "reading the cuSPARSE version");
  return text + ", cuSPARSE " + libraryVersion(major, minor, patch);
}

CsrMatrix::~CsrMatrix() { destroyDescriptor(); }

void CsrMatrix::destroyDescriptor() noexcept {
  if (descriptor_ != nullptr && !processExiting()) cusparseDestroySpMat(descriptor_);
  descriptor_ = nullptr;
}

double CsrMatrix::convert(cusparseHandle_t handle, cudaStream_t stream, const float* a, int m, int k) {
  destroyDescriptor();
  m_ = m;
  k_ = k;
  nonZeros_ = 0;
  reserve(rowOffsets_, (static_cast<std::size_t>(m) + 1) * sizeof(int), "the CSR row offsets of A");
  const DenseDescriptor dense(m, k, a, "describing dense A for cuSPARSE");
  check(cusparseCreateCsr(&descriptor_, m, k, 0, rowOffsets_.get(), nullptr, nullptr, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
        "describing CSR A for cuSPARSE");
  std::size_t workspaceBytes = 0;
  check(cusparseDenseToSparse_bufferSize(handle, dense.get(), descriptor_, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT,
                                         &workspaceBytes),
        "sizing the CSR conversion workspace");
  reserve(conversionWorkspace_, workspaceBytes, "the CSR conversion workspace");

  timer_.start(stream);
  check(cusparseDenseToSparse_analysis(handle, dense.get(), descriptor_, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT,
                                       conversionWorkspace_.get()),
        "counting the non-zeros of A (cusparseDenseToSparse_analysis)");
  timer_.stop(stream);
  double milliseconds = timer_.milliseconds("counting the non-zeros of A");

  std::int64_t rows = 0, cols = 0;
  check(cusparseSpMatGetSize(descriptor_, &rows, &cols, &nonZeros_), "reading the non-zero count of A");
  const std::size_t entries = static_cast<std::size_t>(nonZeros_);
  reserve(columns_, entries * sizeof(int), "the CSR column indices of A");
  reserve(values_, entries * sizeof(float), "the CSR values of A");
  check(cusparseCsrSetPointers(descriptor_, rowOffsets_.get(), columns_.get(), values_.get()),
        "attaching the CSR arrays of A");

  timer_.start(stream);
  check(cusparseDenseToSparse_convert(handle, dense.get(), descriptor_, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT,
                                      conversionWorkspace_.get()),
        "converting A to CSR (cusparseDenseToSparse_convert)");
  timer_.stop(stream);
  milliseconds += timer_.milliseconds("converting A to CSR");
  return milliseconds;
}

double CsrMatrix::multiply(cusparseHandle_t handle, cudaStream_t stream, const float* b, float* c, int n) {
  const DenseDescriptor denseB(k_, n, b, "describing B for cuSPARSE");
  const DenseDescriptor denseC(m_, n, c, "describing C for cuSPARSE");
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t workspaceBytes = 0;
  check(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                descriptor_, denseB.get(), &beta, denseC.get(), CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT,
                                &workspaceBytes),
        "sizing the SpMM workspace");
  reserve(multiplyWorkspace_, workspaceBytes, "the SpMM workspace");
  check(cudaMemsetAsync(c, 0, static_cast<std::size_t>(m_) * static_cast<std::size_t>(n) * sizeof(float), stream),
        "clearing C");
  timer_.start(stream);
  check(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, descriptor_,
                     denseB.get(), &beta, denseC.get(), CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, multiplyWorkspace_.get()),
        "running cusparseSpMM");
  timer_.stop(stream);
  return timer_.milliseconds("running cusparseSpMM");
}

}  // namespace tileskip::cuda
