#include "core/measure/modelled_device.hpp"

#include <algorithm>
#include <array>

#include "core/model/error.hpp"

namespace tileskip {

namespace {

struct ModelledDevice {
  std::string_view model;  // what --model takes
  std::string_view name;   // the device's name, as the driver gives it: what picks its calibration
  double peakBandwidth;    // its memory's bytes per second by the vendor's data sheet (not measured)
};

constexpr std::array kModelledDevices = {
    ModelledDevice{"h100", "NVIDIA H100 80GB HBM3", 3.35e12},
    ModelledDevice{"h200", "NVIDIA H200", 4.8e12},
};

class ModelledBackend final : public Backend {
 public:
  ModelledBackend(std::string_view backend, const ModelledDevice& device) : name_(backend), peakBandwidth_(device.peakBandwidth) {
    device_.name = std::string(device.name);
    device_.driver = "modelled (" + std::string(device.model) + "): nothing runs here";
    device_.api = backend == "cuda" ? "CUDA" : "Vulkan";
    device_.isGpu = true;
    device_.subgroupSize = 32;
  }
  std::string_view name() const override { return name_; }
  const DeviceInfo& device() const override { return device_; }
  // The kernels that backend runs on that GPU: CUDA every row but the host's BLAS (a Hopper GPU
  // runs the Hopper ones), Vulkan the rows with a GLSL twin.
  bool implements(std::string_view id) const override {
    const KernelInfo* kernel = findKernelInfo(id);
    if (kernel == nullptr || kernel->runs(VendorRoutine::OpenblasSgemm)) return false;
    if (name_ == "cuda") return true;
    return kernel->hasGlslTwin();
  }
  // Vulkan's cooperative-matrix twins take fp16 alone (VK_NV_cooperative_matrix).
  bool takes(const KernelInfo& kernel, DType dtype) const override {
    if (name_ == "vulkan" && kernel.usesTensorCores()) return dtype == DType::Fp16;
    return kernel.takes(dtype);
  }
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix&, const Matrix&, DType) override {
    throw UnavailableError("the " + device_.name + " of --model is modelled, not here: it runs nothing");
  }
  // Nothing is copied here: the data sheet's peak stands in (bandwidthIsPeak), which a measured
  // copy does not reach.
  std::optional<double> copyBandwidth() override { return peakBandwidth_; }
  bool bandwidthIsPeak() const override { return true; }

 private:
  std::string name_;
  double peakBandwidth_;
  DeviceInfo device_;
};

}  // namespace

std::string modelledDeviceList() {
  std::string list;
  for (const ModelledDevice& d : kModelledDevices) list += (list.empty() ? "" : ", ") + std::string(d.model);
  return list;
}

std::unique_ptr<Backend> modelledBackend(std::string_view model, std::string_view backend) {
  const auto* device = std::find_if(kModelledDevices.begin(), kModelledDevices.end(),
                                    [&](const ModelledDevice& d) { return d.model == model; });
  if (device == kModelledDevices.end()) {
    throw InputError("--model '" + std::string(model) + "': no calibration of that GPU; choose " + modelledDeviceList());
  }
  if (backend != "cuda" && backend != "vulkan") {
    throw InputError("--model predicts the cuda or vulkan backend of a GPU, not " + std::string(backend));
  }
  return std::make_unique<ModelledBackend>(backend, *device);
}

}  // namespace tileskip
