#include "cuda_check.hpp"

#include <cstdio>

#include "core/model/error.hpp"

namespace tileskip::cuda {

namespace {

std::string runtimeErrorText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

std::string formatBytes(std::size_t bytes) {
  constexpr double kKiB = 1024.0;
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= kKiB && unit < 4) {
    value /= kKiB;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

bool isStickyError(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

std::string describeNoDevice(cudaError_t error) {
  int driverVersion = 0;
  if (cudaDriverGetVersion(&driverVersion) != cudaSuccess) driverVersion = 0;
  const std::string runtime = cudaVersionText(CUDART_VERSION);
  std::string text;
  if (error == cudaErrorInsufficientDriver && driverVersion == 0) {
    text = "no NVIDIA driver found (libcuda.so.1 is not installed or not on the library path); install the NVIDIA "
           "driver (one for CUDA " + runtime + " or newer) to use the cuda backend";
  } else if (error == cudaErrorInsufficientDriver) {
    text = "the NVIDIA driver supports CUDA " + cudaVersionText(driverVersion) + " but this build needs CUDA " + runtime +
           "; update the driver";
  } else if (error == cudaErrorNoDevice) {
    text = "the NVIDIA driver is loaded but sees no GPU (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
  } else if (error == cudaErrorStubLibrary) {
    text = "the libcuda.so found is the toolkit's link stub, not a driver; remove the stubs folder from LD_LIBRARY_PATH";
  } else {
    text = "the CUDA driver could not be initialised (driver " +
           (driverVersion > 0 ? "for CUDA " + cudaVersionText(driverVersion) : std::string("not found")) + ")";
  }
  return text + " [" + runtimeErrorText(error) + "]";
}

void throwCudaError(cudaError_t error, const std::string& doing) {
  cudaGetLastError();  // clears a non-sticky error so the next call starts clean
  if (error == cudaErrorMemoryAllocation) {
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) freeBytes = totalBytes = 0;
    throw UnavailableError("out of device memory while " + doing + " (" + formatBytes(freeBytes) + " free of " +
                           formatBytes(totalBytes) + "); choose a smaller problem");
  }
  if (isStickyError(error)) {
    throw UnavailableError(
        "CUDA error while " + doing + ": " + runtimeErrorText(error) +
        ". A kernel faulted and the CUDA context is unusable for the rest of this process; rerun under "
        "compute-sanitizer to find the fault");
  }
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || error == cudaErrorStubLibrary ||
      error == cudaErrorInitializationError || error == cudaErrorSystemDriverMismatch ||
      error == cudaErrorCompatNotSupportedOnDevice || error == cudaErrorDevicesUnavailable) {
    throw UnavailableError("CUDA unavailable while " + doing + ": " + describeNoDevice(error));
  }
  if (error == cudaErrorNoKernelImageForDevice || error == cudaErrorInvalidKernelImage ||
      error == cudaErrorUnsupportedPtxVersion) {
    throw UnavailableError("CUDA error while " + doing + ": " + runtimeErrorText(error) +
                           ": this build has no code for this GPU; rebuild with its architecture in "
                           "CMAKE_CUDA_ARCHITECTURES (and a driver as new as the toolkit for PTX)");
  }
  throw UnavailableError("CUDA error while " + doing + ": " + runtimeErrorText(error));
}

void checkLaunch(const char* kernelName) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) throwCudaError(error, std::string("launching kernel ") + kernelName);
}

void throwCublasError(cublasStatus_t status, const std::string& doing) {
  std::string text = std::string("cuBLAS error while ") + doing + ": " + cublasGetStatusName(status) + " (" +
                     cublasGetStatusString(status) + ")";
  if (status == CUBLAS_STATUS_ALLOC_FAILED) text += "; the device is out of memory, choose a smaller problem";
  if (status == CUBLAS_STATUS_NOT_INITIALIZED) text += "; the CUDA driver or device could not be used";
  throw UnavailableError(text);
}

void throwCusparseError(cusparseStatus_t status, const std::string& doing) {
  std::string text = std::string("cuSPARSE error while ") + doing + ": " + cusparseGetErrorName(status) + " (" +
                     cusparseGetErrorString(status) + ")";
  if (status == CUSPARSE_STATUS_ALLOC_FAILED) text += "; the device is out of memory, choose a smaller problem";
  if (status == CUSPARSE_STATUS_NOT_INITIALIZED) text += "; the CUDA driver or device could not be used";
  throw UnavailableError(text);
}

}  // namespace tileskip::cuda
