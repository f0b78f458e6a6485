#include "core/measure/speed_model.hpp"

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
  {"hoisted",         0.92,  0.0,   0.0,  0.0,  0.0},  // tuning harness, 0.89 vs 0.83 of cuBLAS (bench/NOTES.md step 8)
  {"a-row",           1.47,  0.02,  0.0,  1.45, 0.3},
  {"a-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"b-group8",        1.47,  0.02,  0.0,  1.45, 0.3},
  {"b-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-64x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-32x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-8x32",      1.1,   0.03,  0.45, 0.75, 0.5},
  {"warp-joint-64x64", 1.15, 0.03,  0.55, 0.6,  0.4},
  {"warp-joint-32x32", 1.15, 0.03,  0.55, 0.6,  0.4},
  // The tensor-core kernels run on 16-bit problems, which no model ranks (auto measures them):
  // their rows only keep the table whole (S10 borrows the SIMT joint kernels' proportions). K13 at 128x128x32 took 0.456 ms on the H200 at 4096^3
  // bf16 against pipelined's 3.28 ms fp32 (bench/results/2026-11-24-h200-k13-check.md).
  {"mma",             0.14,  0.0,   0.0,  0.0,  0.0},
  {"wgmma",           0.068, 0.0,   0.0,  0.0,  0.0},  // K14: 0.222 ms bf16 at 4096^3 (2026-11-24-h200-k14-wgmma.md)
  {"mma-joint-64x32", 0.14,  0.03,  0.45, 0.55, 0.4},
  {"wgmma-joint-64x64", 0.068, 0.03, 0.45, 0.55, 0.4},
  {"cublas",          0.82,  0.0,   0.0,  0.0,  0.0},
  {"cusparse-csr",    0.0,   0.3,   0.0,  9.0,  0.0},
  {"cpu",             1.0,   0.0,   0.0,  0.0,  0.0},
};

// Fitted by bench/calibrate_model.py from bench/gpu_calibrate.sh on one NVIDIA H200, driver
// 580.159.04, 2026-11-23: 14 problems at 4096^3 (bench/results/2026-11-23-h200-calibration.md).
constexpr KernelCoefficients kH200Cuda[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.295,  0.030,  0.450,  0.550,  0.400},  // K6 on the shared lane rule: 2026-11-23-h200-twins.md
  {"warptile",           1.210,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.894,  0.000,  0.000,  0.000,  0.000},  // measured apart: 2026-11-25-h200-headline-k12-streamed.json
  {"a-row",              1.460,  0.032,  0.450,  0.907,  0.146},
  {"a-warp",             0.990,  0.029,  0.370,  0.818,  0.462},
  {"b-group8",           1.455,  0.031,  0.450,  0.866,  0.192},
  {"b-warp",             0.982,  0.042,  0.400,  0.728,  0.433},
  {"joint-64x32",        0.992,  0.012,  0.618,  0.635,  0.378},
  {"joint-32x32",        0.982,  0.015,  0.490,  0.724,  0.446},
  {"joint-8x32",         1.007,  0.000,  1.035,  0.507,  0.633},
  {"warp-joint-64x64",   1.040,  0.042,  0.596,  0.626,  0.362},
  {"warp-joint-32x32",   1.028,  0.044,  0.637,  0.650,  0.344},
};

constexpr KernelCoefficients kH200Vulkan[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.219,  0.030,  0.450,  0.550,  0.400},
  {"warptile",           1.029,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.914,  0.000,  0.000,  0.000,  0.000},  // measured apart: 2026-11-25-h200-headline-k12-streamed.json
  {"a-row",              1.338,  0.143,  0.455,  0.687,  0.144},
  {"a-warp",             0.907,  0.019,  0.757,  0.379,  0.168},
  {"b-group8",           1.342,  0.222,  0.459,  0.547,  0.504},
  {"b-warp",             0.908,  0.000,  0.000,  0.977,  0.889},
  {"joint-64x32",        0.924,  0.000,  1.232,  0.278,  0.000},
  {"joint-32x32",        0.928,  0.000,  0.861,  0.690,  0.000},
  {"joint-8x32",         0.941,  0.000,  0.000,  1.615,  1.517},
  {"warp-joint-64x64",   1.931,  0.000,  1.494,  1.241,  0.897},
  {"warp-joint-32x32",   1.929,  0.000,  1.777,  2.622,  0.000},
};

// Calibrations measured on a device: bench/calibrate_model.py prints these rows from bench runs.
struct Calibration {
  std::string_view backend;
  std::string_view deviceSubstring;  // matched against the device name
  std::string_view name;             // what reports call it: device, date, where the runs are
  std::span<const KernelCoefficients> rows;
};

constexpr Calibration kCalibrations[] = {
  {"cuda", "H200", "H200 CUDA, calibrated 2026-11-23", kH200Cuda},
  {"vulkan", "H200", "H200 Vulkan, calibrated 2026-11-23", kH200Vulkan},
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

SpeedModel SpeedModel::forDevice(std::string_view backend, std::string_view deviceName, bool isGpu) {
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
  if (sameBackend != nullptr && isGpu) {
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
