// Every CUDA runtime, cuBLAS and cuSPARSE call goes through check(): a failure becomes an
// UnavailableError whose message says what was being done, what the device answered and what
// to do about it (no driver, no device, out of memory with bytes needed and free, a kernel
// that faulted and left the context unusable).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <string>

namespace tileskip::cuda {

[[noreturn]] void throwCudaError(cudaError_t error, const std::string& doing);
[[noreturn]] void throwCublasError(cublasStatus_t status, const std::string& doing);
[[noreturn]] void throwCusparseError(cusparseStatus_t status, const std::string& doing);

inline void check(cudaError_t error, const char* doing) {
  if (error != cudaSuccess) throwCudaError(error, doing);
}
inline void check(cublasStatus_t status, const char* doing) {
  if (status != CUBLAS_STATUS_SUCCESS) throwCublasError(status, doing);
}
inline void check(cusparseStatus_t status, const char* doing) {
  if (status != CUSPARSE_STATUS_SUCCESS) throwCusparseError(status, doing);
}

// After a <<<...>>> launch: a bad configuration shows up here, a fault inside the kernel at
// the next synchronisation (which goes through check() too).
void checkLaunch(const char* kernelName);

// Errors after which the CUDA context is unusable for the rest of the process.
bool isStickyError(cudaError_t error);

// "6.0 GiB", "512.0 MiB", "64 B"
std::string formatBytes(std::size_t bytes);

// The reason the runtime cannot see a device, in words a person can act on (driver missing,
// driver too old for this CUDA runtime, no GPU visible).
std::string describeNoDevice(cudaError_t error);

}  // namespace tileskip::cuda
