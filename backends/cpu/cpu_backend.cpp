// The cpu backend: OpenBLAS SGEMM on the host, the baseline every machine has. It implements
// only the `cpu` baseline; the twin kernels are GPU kernels.
#include <cblas.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <thread>
#include <unistd.h>

#include "backends/backend_registry.hpp"
#include "core/model/error.hpp"
#include "core/model/reference.hpp"

namespace tileskip {

namespace {

class CpuProblem final : public DeviceProblem {
 public:
  CpuProblem(const Matrix& a, const Matrix& b, DType dtype) : a_(a), b_(b), c_(a.rows(), b.cols()), dtype_(dtype) {}

  double prepare(const KernelInfo&) override { return 0.0; }

  void poisonC() override { c_.fill(std::numeric_limits<float>::quiet_NaN()); }

  double run(const KernelInfo& kernel) override {
    if (!kernel.runs(VendorRoutine::OpenblasSgemm)) throw InputError("the cpu backend does not implement kernel '" + std::string(kernel.id) + "'");
    requireInputs(kernel, dtype_);
    auto start = std::chrono::steady_clock::now();
    referenceSgemm(a_, b_, c_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  Matrix downloadC() override { return c_; }

  Pattern downloadPattern(Operand operand, int granularity) override {
    throw InputError("the cpu backend builds no " + std::string(operandName(operand)) + "-pattern at granularity " +
                     std::to_string(granularity));
  }

 private:
  Matrix a_, b_, c_;
  DType dtype_;
};

std::string cpuModelName() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "host CPU";
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    device_.name = cpuModelName() + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
    device_.api = openblas_get_config();
    device_.isGpu = false;
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0) device_.memoryBytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(pageSize);
  }

  std::string_view name() const override { return "cpu"; }
  const DeviceInfo& device() const override { return device_; }
  bool implements(std::string_view kernelId) const override {
    const KernelInfo* info = findKernelInfo(kernelId);
    return info != nullptr && info->runs(VendorRoutine::OpenblasSgemm);
  }

  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override {
    checkMultiplicable(a, b);
    return std::make_unique<CpuProblem>(a, b, dtype);
  }

 private:
  DeviceInfo device_;
};

}  // namespace

BackendEntry cpuBackendEntry() {
  return {"cpu", 10, [](const BackendOptions&) -> std::unique_ptr<Backend> { return std::make_unique<CpuBackend>(); }};
}

}  // namespace tileskip
