// A calibrated GPU that is not here: `inspect --model h100` on a laptop asks what the GPU it will
// rent would do with these operands. The backend stands in for that GPU's (CUDA's or Vulkan's
// kernels as they run there, no refusals: every one of them runs on it) under that GPU's speed
// model; nothing is uploaded or run.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/model/backend.hpp"

namespace tileskip {

// The GPUs a calibration was measured on, by the names `--model` takes: "h100, h200".
std::string modelledDeviceList();

// `backend` ("cuda" or "vulkan") on the GPU `model` names, for inspection only: upload() throws
// UnavailableError. InputError for a model or backend no calibration covers.
std::unique_ptr<Backend> modelledBackend(std::string_view model, std::string_view backend);

}  // namespace tileskip
