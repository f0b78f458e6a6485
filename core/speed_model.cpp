#include "core/speed_model.hpp"

#include <algorithm>
#include <span>

namespace tileskip {

namespace {

// clang-format off
// Uncalibrated defaults: a kernel that does not skip costs its measured dense ratio (H200 CUDA,
// bench/results/2026-11-22-h200-cuda-catalogue-4096.md); a skipping kernel pays a little per
// tile, for the K-blocks its blocks load and for the updates they keep, in proportions read off
// the 2026-11-22 headline suite. A device without a calibration of its own uses these.
constexpr KernelCoefficients kDefaults[] = {
  //  kernel          dense   fixed  load  work  partial
  {"naive",          43.0,   0.0,   0.0,  0.0,  0.0},
  {"coalesced",       7.7,   0.0,   0.0,  0.0,  0.0},
  {"smem",            5.0,   0.0,   0.0,  0.0,  0.0},
  {"blocktile1d",     4.7,   0.0,   0.0,  0.0,  0.0},
  {"blocktile2d",     1.85,  0.0,   0.0,  0.0,  0.0},
  {"vectorized",      1.18,  0.0,   0.0,  0.0,  0.0},
  {"warptile",        1.18,  0.0,   0.0,  0.0,  0.0},
  {"pipelined",       1.0,   0.0,   0.0,  0.0,  0.0},
  {"a-row",           1.47,  0.02,  0.0,  1.45, 0.3},
  {"a-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"b-group8",        1.47,  0.02,  0.0,  1.45, 0.3},
  {"b-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-64x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-32x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-8x32",      1.1,   0.03,  0.45, 0.75, 0.5},
  {"warp-joint-64x64", 1.15, 0.03,  0.55, 0.6,  0.4},
  {"warp-joint-32x32", 1.15, 0.03,  0.55, 0.6,  0.4},
  {"cublas",          0.82,  0.0,   0.0,  0.0,  0.0},
  {"cusparse-csr",    0.0,   0.3,   0.0,  9.0,  0.0},
  {"cpu",             1.0,   0.0,   0.0,  0.0,  0.0},
};

// Calibrations measured on a device: bench/calibrate_model.py prints these rows from bench runs.
struct Calibration {
  std::string_view backend;
  std::string_view deviceSubstring;  // matched against the device name
  std::string_view name;             // what reports call it: device, date, where the runs are
  std::span<const KernelCoefficients> rows;
};

constexpr Calibration kCalibrations[] = {
  {"cuda", "H200", "H200 CUDA, uncalibrated defaults", kDefaults},
};
// clang-format on

const KernelCoefficients* findRow(std::span<const KernelCoefficients> rows, std::string_view kernel) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const KernelCoefficients& c) { return c.kernel == kernel; });
  return it == rows.end() ? nullptr : &*it;
}

}  // namespace

SpeedModel SpeedModel::uncalibrated() {
  SpeedModel model;
  model.name_ = "uncalibrated defaults";
  model.table_ = kDefaults;
  model.size_ = std::size(kDefaults);
  return model;
}

SpeedModel SpeedModel::forDevice(std::string_view backend, std::string_view deviceName) {
  const Calibration* sameBackend = nullptr;
  for (const Calibration& c : kCalibrations) {
    if (c.backend != backend) continue;
    if (deviceName.find(c.deviceSubstring) != std::string_view::npos) {
      SpeedModel model;
      model.name_ = std::string(c.name);
      model.calibrated_ = true;
      model.table_ = c.rows.data();
      model.size_ = c.rows.size();
      return model;
    }
    if (sameBackend == nullptr) sameBackend = &c;
  }
  if (sameBackend != nullptr) {
    SpeedModel model;
    model.name_ = std::string(sameBackend->name) + " (stand-in: no calibration for " + std::string(deviceName) + ")";
    model.table_ = sameBackend->rows.data();
    model.size_ = sameBackend->rows.size();
    return model;
  }
  return uncalibrated();
}

const KernelCoefficients* SpeedModel::coefficients(std::string_view kernel) const {
  if (const KernelCoefficients* row = findRow({table_, size_}, kernel)) return row;
  return findRow(kDefaults, kernel);
}

double SpeedModel::relativeTime(const KernelInfo& kernel, const SkipFeatures& f) const {
  const KernelCoefficients* c = coefficients(kernel.id);
  if (c == nullptr) return 1.0;
  const double skipped = c->fixed * (1.0 - f.denseTiles) + c->load * f.loads + c->work * f.work + c->partial * f.partial;
  // A kernel never beats a problem with nothing left to do by more than its fixed cost allows.
  return std::max(c->dense * f.denseTiles + skipped, 1e-3);
}

}  // namespace tileskip
