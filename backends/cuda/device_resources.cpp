#include "device_resources.hpp"

#include <utility>

#include "core/model/error.hpp"
#include "cuda_check.hpp"

namespace tileskip::cuda {

void requireFreeDeviceMemory(std::size_t bytes, const std::string& what) {
  std::size_t freeBytes = 0, totalBytes = 0;
  check(cudaMemGetInfo(&freeBytes, &totalBytes), "querying free device memory");
  if (bytes > freeBytes) {
    throw UnavailableError("needs " + formatBytes(bytes) + " of device memory for " + what + ", " +
                           formatBytes(freeBytes) + " free (of " + formatBytes(totalBytes) + "); choose a smaller problem");
  }
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes < 4 ? 4 : bytes) {
  cudaError_t error = cudaMalloc(&pointer_, bytes_);
  if (error == cudaErrorMemoryAllocation) {
    pointer_ = nullptr;
    cudaGetLastError();
    requireFreeDeviceMemory(bytes_, what);  // names needed and free
    throwCudaError(error, "allocating " + formatBytes(bytes_) + " for " + what);  // fragmented: free but not contiguous
  }
  if (error != cudaSuccess) {
    pointer_ = nullptr;
    throwCudaError(error, "allocating " + formatBytes(bytes_) + " for " + what);
  }
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (pointer_ != nullptr && !processExiting()) cudaFree(pointer_);  // fails harmlessly after a sticky error
  pointer_ = nullptr;
  bytes_ = 0;
}

EventTimer::EventTimer() {
  check(cudaEventCreate(&start_), "creating a timing event");
  cudaError_t error = cudaEventCreate(&stop_);
  if (error != cudaSuccess) {
    cudaEventDestroy(start_);
    throwCudaError(error, "creating a timing event");
  }
}

EventTimer::~EventTimer() {
  if (processExiting()) return;
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { check(cudaEventRecord(start_, stream), "recording a timing event"); }

void EventTimer::stop(cudaStream_t stream) { check(cudaEventRecord(stop_, stream), "recording a timing event"); }

double EventTimer::milliseconds(const char* doing) {
  check(cudaEventSynchronize(stop_), doing);
  float ms = 0.0f;
  check(cudaEventElapsedTime(&ms, start_, stop_), "reading a timing event");
  return static_cast<double>(ms);
}

}  // namespace tileskip::cuda
