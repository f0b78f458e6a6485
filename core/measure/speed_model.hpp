// The model behind `inspect`'s predicted speedup and `--kernel auto`: a kernel's time relative
// to the backend's dense reference kernel, as a linear function of what its patterns leave it to
// do. Its coefficients are measured, not guessed: bench/calibrate_model.py fits them per kernel
// from `tileskip bench --format json` runs on a device (bench/gpu_calibrate.sh) and prints the rows of
// kCalibrations (speed_model.cpp).
//
//   time / dense reference time  =  dense · D  +  (fixed · (1 - D) + load · L + work · W + partial · P)
//
// D: fraction of block tiles with nothing to skip (they take the dense path of the kernel);
// L, W, P: over the other block tiles, summed and divided by all tiles: the (block tile, K-block)
// pairs the block loads, the rank-1 updates the joint pattern keeps (tile-area weighted), and
// the listed K-blocks some warp of the block keeps only partly (the slower per-depth path); for a
// compaction kernel, P is instead the share of K it gathers column by column (the rest of its
// loads being ranges copied whole).
// A kernel that does not skip has D = 1.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/model/catalogue.hpp"

namespace tileskip {

struct SkipFeatures {
  double denseTiles = 1.0;   // D
  double loads = 0.0;        // L
  double work = 0.0;         // W
  double partial = 0.0;      // P
};

struct KernelCoefficients {
  std::string_view kernel;
  double dense = 1.0, fixed = 0.0, load = 0.0, work = 0.0, partial = 0.0;
};

class SpeedModel {
 public:
  // A model of these rows (then `borrowed`'s, then, for fp32 rows, the defaults'), called `name`.
  SpeedModel(std::string name, bool calibrated, std::span<const KernelCoefficients> rows,
             std::span<const KernelCoefficients> borrowed = {}, bool sixteenBit = false);

  // The fp32 calibration for this backend and device (matched by name), or the nearest stand-in:
  // the same backend on another GPU (for a GPU), else the uncalibrated defaults. name() says which.
  static SpeedModel forDevice(std::string_view backend, std::string_view deviceName, bool isGpu);
  // The model for inputs of `dtype`: forDevice's for fp32; for fp16 and bf16 the 16-bit
  // calibration of this device or, on a GPU, another's of the same backend as a stand-in (its
  // times relative to `mma`); nothing where none is measured (Vulkan's 16-bit kernels, tf32).
  static std::optional<SpeedModel> forInputs(std::string_view backend, std::string_view deviceName, bool isGpu, DType dtype);
  // Every kernel at its catalogue defaults: what a device with no calibration gets.
  static SpeedModel uncalibrated();

  const std::string& name() const { return name_; }
  bool calibrated() const { return calibrated_; }

  // Predicted time of `kernel` relative to the dense reference kernel (> 0).
  double relativeTime(const KernelInfo& kernel, const SkipFeatures& features) const;
  double predictedSpeedup(const KernelInfo& kernel, const SkipFeatures& features) const {
    return 1.0 / relativeTime(kernel, features);
  }
  const KernelCoefficients* coefficients(std::string_view kernel) const;

 private:
  std::string name_;
  bool calibrated_ = false;
  const KernelCoefficients* table_ = nullptr;
  std::size_t size_ = 0;
  // Another device's rows, for the kernels table_ lacks; then the defaults.
  const KernelCoefficients* borrowed_ = nullptr;
  std::size_t borrowedSize_ = 0;
  bool sixteenBit_ = false;  // relative to mma on 16-bit inputs: no fp32 default stands in
};

}  // namespace tileskip
