// Owning wrappers for device memory and timing events. Destructors never throw: after a
// sticky error every CUDA call fails, and releasing must still let the process exit cleanly.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/process/process_exit.hpp"

namespace tileskip::cuda {

// Objects destroyed after the CUDA runtime's own teardown (a backend held in a static, as the
// tests do) release nothing: see core/process/process_exit.hpp. watchProcessExit() is called once the
// runtime is initialised.
using tileskip::processExiting;
using tileskip::watchProcessExit;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Allocates `bytes` (at least 4) of device memory; UnavailableError naming `what`, the bytes
  // needed and the bytes free when the device has too little.
  DeviceBuffer(std::size_t bytes, const std::string& what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  std::size_t bytes() const { return bytes_; }
  bool empty() const { return pointer_ == nullptr; }
  float* floats() const { return static_cast<float*>(pointer_); }
  std::uint8_t* bytePointer() const { return static_cast<std::uint8_t*>(pointer_); }
  void* get() const { return pointer_; }

 private:
  void release() noexcept;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// Throws UnavailableError "needs X of device memory for <what>, Y free" unless `bytes` fit in
// the device memory free now. Called before allocating a problem's buffers, so that a problem
// too large fails up front with the whole figure rather than on its third allocation.
void requireFreeDeviceMemory(std::size_t bytes, const std::string& what);

// A pair of events around work on one stream; milliseconds() waits for the second.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the work between start and stop; a kernel fault surfaces here as an error.
  double milliseconds(const char* doing);

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace tileskip::cuda
