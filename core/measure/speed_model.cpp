#include "core/measure/speed_model.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <utility>

namespace tileskip {

namespace {

// clang-format off
// Uncalibrated defaults: a kernel that does not skip costs its measured dense ratio (H200 CUDA,
// lab/00-first-catalogue); a skipping kernel pays a little per tile, for the K-blocks its blocks
// load and for the updates they keep, in proportions read off the first headline suite run on a
// GPU (lab/records). A device without a calibration of its own uses these.
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
  {"hoisted",         0.92,  0.0,   0.0,  0.0,  0.0},  // tuning harness, 0.89 vs 0.83 of cuBLAS (lab/09-dense-variants)
  {"a-row",           1.47,  0.02,  0.0,  1.45, 0.3},
  {"a-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"b-group8",        1.47,  0.02,  0.0,  1.45, 0.3},
  {"b-warp",          1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-64x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-32x32",     1.0,   0.03,  0.45, 0.55, 0.4},
  {"joint-8x32",      1.1,   0.03,  0.45, 0.75, 0.5},
  {"warp-joint-64x64", 1.15, 0.03,  0.55, 0.6,  0.4},
  {"warp-joint-32x32", 1.15, 0.03,  0.55, 0.6,  0.4},
  // The tensor-core kernels run on 16-bit problems, which a 16-bit calibration ranks where one is
  // measured (kH100Cuda16, kH200Cuda16; elsewhere auto measures them): their rows here only keep the table whole (S10 borrows the SIMT joint kernels' proportions). K13 at 128x128x32 took 0.456 ms on the H200 at 4096^3
  // bf16 against pipelined's 3.28 ms fp32 (lab/17-k13-check).
  {"mma",             0.14,  0.0,   0.0,  0.0,  0.0},
  {"wgmma",           0.068, 0.0,   0.0,  0.0,  0.0},  // K14: 0.222 ms bf16 at 4096^3 (lab/21-wgmma)
  {"mma-joint-64x32", 0.14,  0.03,  0.45, 0.55, 0.4},
  {"wgmma-joint-64x64", 0.068, 0.03, 0.45, 0.55, 0.4},
  {"wgmma-queue-joint-64x64", 0.068, 0.03, 0.45, 0.55, 0.4},
  {"wgmma-queue-wide-64x64", 0.068, 0.03, 0.45, 0.55, 0.4},
  // S14 pays per live column, loads and multiplies alike, at K13's pace; it has no partial K-blocks.
  {"compact-mma-64",  0.14,  0.03,  0.07,  0.07, 0.0},
  // S15 the same on K14's pace.
  {"compact-wgmma-128", 0.068, 0.03, 0.07, 0.07, 0.0},
  // S16 the same on K12's loop: the H200 CUDA fit (kH200Cuda).
  {"compact-64",      1.07,  0.04,  0.52,  0.52, 0.0},
  // S17 is S13 with B's pattern taken as all kept.
  {"wgmma-queue-a-64", 0.068, 0.03,  0.45, 0.55, 0.4},
  // S18 is S12 with A's pattern taken as all kept.
  {"wgmma-queue-b-64", 0.068, 0.03,  0.45, 0.55, 0.4},
  // S19 pays K12's pace per kept block, loads and multiplies alike; a tile's list is its block row's index.
  {"bsr-64",          0.92,  0.02,  0.5,   0.5,  0.0},
  // S20 is built for a few columns of B, where bytes decide: on a wide B it reads A once per 16
  // columns and multiplies in row strips, about three times K11's time per kept product.
  {"bsr-stream-64",   3.0,   0.02,  1.5,   1.5,  0.0},
  // S21 is S17's ring and queue with its list from the index: S17's proportions until measured.
  {"bsr-wgmma-64",    0.068, 0.03,  0.45,  0.55, 0.4},
  {"cublas",          0.82,  0.0,   0.0,  0.0,  0.0},
  {"cusparse-csr",    0.0,   0.3,   0.0,  9.0,  0.0},
  {"cpu",             1.0,   0.0,   0.0,  0.0,  0.0},
};

// Fitted by bench/calibrate_model.py from bench/gpu_calibrate.sh on one NVIDIA H100, driver
// 580.159.04: 14 problems at 4096^3, the skipping kernels on K12's loop in both twins, fitted to
// relative errors (lab/31-glsl-skip-hoisted).
constexpr KernelCoefficients kH100Cuda[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.404,  0.030,  0.450,  0.550,  0.400},
  {"warptile",           1.221,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.894,  0.030,  0.450,  0.550,  0.400},
  {"a-row",              1.602,  0.079,  0.452,  0.969,  0.150},
  {"a-warp",             0.928,  0.011,  0.417,  0.579,  0.501},
  {"b-group8",           1.660,  0.124,  0.455,  0.932,  0.416},
  {"b-warp",             0.967,  0.009,  0.337,  0.707,  0.494},
  {"joint-64x32",        0.934,  0.010,  0.449,  0.649,  0.518},
  {"joint-32x32",        0.938,  0.017,  0.295,  0.732,  0.608},
  {"joint-8x32",         0.986,  0.012,  1.003,  0.410,  0.510},
  {"warp-joint-64x64",   1.011,  0.023,  0.479,  0.576,  0.497},
  {"warp-joint-32x32",   0.989,  0.027,  0.394,  0.667,  0.519},
};

constexpr KernelCoefficients kH100Vulkan[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.217,  0.030,  0.450,  0.550,  0.400},
  {"warptile",           1.020,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.915,  0.030,  0.450,  0.550,  0.400},
  {"a-row",              1.340,  0.139,  0.454,  0.700,  0.133},
  {"a-warp",             0.847,  0.027,  0.373,  0.469,  0.474},
  {"b-group8",           1.347,  0.208,  0.460,  0.566,  0.510},
  {"b-warp",             0.855,  0.000,  0.000,  0.941,  0.791},
  {"joint-64x32",        0.867,  0.005,  0.258,  0.796,  0.658},
  {"joint-32x32",        0.856,  0.009,  0.078,  0.924,  0.706},
  {"joint-8x32",         0.866,  0.000,  0.000,  1.175,  1.199},
  {"warp-joint-64x64",   0.954,  0.025,  0.263,  0.739,  1.119},
  {"warp-joint-32x32",   0.954,  0.021,  0.000,  1.083,  1.520},
};

// Fitted by bench/calibrate_model.py from bench/gpu_calibrate.sh on one NVIDIA H200, driver
// 580.159.04: 14 problems at 4096^3 (lab/10-skip-nothing-one-warp-model). The warp-uniform
// skipping kernels have moved to K12's loop since (lab/30-skip-hoisted, lab/31-glsl-skip-hoisted),
// so their rows are gone: the H200 borrows the H100's for them (kCalibrations), the same SMs at
// the same clock (K12, measured on both, has the same coefficient on both: CUDA 0.894, Vulkan 0.914
// and 0.915). Checked on an H200 since: with them auto picks within 1 % of the fastest kernel on
// all 28 problems, where a refit would keep Vulkan K12 on four dense-like problems under the skip
// margin (lab/38-kept-work).
constexpr KernelCoefficients kH200Cuda[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.295,  0.030,  0.450,  0.550,  0.400},  // K6 on the shared lane rule (lab/11-auto-cutlass-anchor)
  {"warptile",           1.210,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.894,  0.000,  0.000,  0.000,  0.000},  // measured apart (lab/29-barrier-placement)
  {"a-row",              1.460,  0.032,  0.450,  0.907,  0.146},
  {"b-group8",           1.455,  0.031,  0.450,  0.866,  0.192},
  // S16 fitted to relative errors on the fp32 activations suite at 2048 (lab/58-fp32-compaction):
  // 1.07 of pipelined on a dense A (its 64-row block reads B for half K12's rows), and on spread-out
  // zeros 0.039 + 1.035 x the live fraction, loads and work split evenly (B dense makes them
  // equal): within 1 % on its ten cases, 2.5-3.6 % on the LLaMA down projection at 4096.
  {"compact-64",         1.070,  0.039,  0.518,  0.518,  0.000},
};

constexpr KernelCoefficients kH200Vulkan[] = {
  //  kernel            dense   fixed   load    work    partial
  {"vectorized",         1.219,  0.030,  0.450,  0.550,  0.400},
  {"warptile",           1.029,  0.030,  0.450,  0.550,  0.400},
  {"pipelined",          1.000,  0.030,  0.450,  0.550,  0.400},
  {"hoisted",            0.914,  0.000,  0.000,  0.000,  0.000},  // measured apart (lab/29-barrier-placement)
  {"a-row",              1.338,  0.143,  0.455,  0.687,  0.144},
  {"b-group8",           1.342,  0.222,  0.459,  0.547,  0.504},
  // S16's GLSL twin (lab/58-fp32-compaction), with its loop built twice (interior or not) and its
  // list padded to whole K-tiles: 1.65 of pipelined on a dense A, 1.8 of K12's time where the CUDA
  // twin takes 1.2 of it; on the down projection at 2048, 0.049 + 1.558 x the live fraction.
  {"compact-64",         1.646,  0.049,  0.779,  0.779,  0.000},
};

// 16-bit inputs (fp16, bf16), relative to `mma` (K13), the dense reference of those precisions.
// Fitted by bench/calibrate_model.py from two `bench --suite blocksparse` runs in bf16 on one
// NVIDIA H100, driver 580.159.04 (d7c58f9's and a95dda4's: lab/43-fused-patterns, lab/45-own-ceilings): 15 block-sparse
// problems each, fitted to relative errors, mean 1.5-2.5 %, worst 6.5 % (wgmma) in sample. Every
// problem had zeros, so no run pinned a skipping kernel's dense coefficient: theirs are their loop's
// dense kernel's and a little (a skipping kernel with nothing to skip runs its loop). cuBLAS's rows
// carry no ratio to the dense kernel: 0.325 is its time over K13's in the same runs.
constexpr KernelCoefficients kH100Cuda16[] = {
  //  kernel                    dense   fixed   load    work    partial
  {"mma",                        1.000,  0.000,  0.000,  0.000,  0.000},
  {"wgmma",                      0.344,  0.000,  0.000,  0.000,  0.000},
  {"cublas",                     0.325,  0.000,  0.000,  0.000,  0.000},
  {"mma-joint-64x32",            1.030,  0.129,  0.771,  0.305,  0.053},
  {"wgmma-joint-64x64",          0.360,  0.099,  0.264,  0.045,  0.000},
  {"wgmma-queue-joint-64x64",    0.360,  0.068,  0.387,  0.048,  0.000},
};

// The same fit from two `bench --suite blocksparse` runs in bf16 on one NVIDIA H200, driver
// 580.159.04 (lab/48-s13-wide-queue): 15 problems each, mean 1.6-2.8 %, worst 7.4 % (wgmma) in
// sample; cuBLAS's dense coefficient is the median of its time over K13's in the same runs. No
// blocksparse case has a tile with nothing to skip, so the joint kernels' dense coefficients (a
// dense A: every tile takes the whole K) are their times on the activations suite's dense A over
// cuBLAS's in the same run (lab/54-mlp-layer's suite run): S12's 128 x 128 tiles run a dense
// problem at 0.69 of cuBLAS, S11 and S13 at 0.88-0.90.
constexpr KernelCoefficients kH200Cuda16[] = {
  //  kernel                    dense   fixed   load    work    partial
  {"mma",                        1.000,  0.000,  0.000,  0.000,  0.000},
  {"wgmma",                      0.357,  0.000,  0.000,  0.000,  0.000},
  {"cublas",                     0.339,  0.000,  0.000,  0.000,  0.000},
  {"mma-joint-64x32",            1.030,  0.132,  0.918,  0.252,  0.000},
  {"wgmma-joint-64x64",          0.376,  0.091,  0.254,  0.084,  0.000},
  {"wgmma-queue-joint-64x64",    0.493,  0.060,  0.388,  0.094,  0.000},
  {"wgmma-queue-wide-64x64",     0.385,  0.075,  0.284,  0.070,  0.000},
  // S14 fitted by hand to its four neurons cases at 4096^3 (live 0.44-0.91: 0.093 + 1.077 x live,
  // loads and work split evenly, as B dense makes them equal) and a dense A (lab/52-compact-mma).
  {"compact-mma-64",             1.195,  0.093,  0.539,  0.538,  0.000},
  // S15 fitted to relative errors on its 26 runs of one activations and one blocksparse suite at
  // 4096 (lab/55-sorted-activations): spread-out zeros as generated and sorted by firing, a dense A,
  // and block zeros, within 6 % on each. Copying nearly every range whole it takes about 0.37 of
  // K13; a gathered column costs about twice one of a whole range (partial: the share gathered);
  // a tile's short list of whole ranges (block zeros) costs more than the earlier fit to spread-out
  // zeros alone said (lab/53-compact-wgmma, 54): it predicted block zeros up to 24 % fast.
  {"compact-wgmma-128",          0.364,  0.094,  0.277,  0.000,  0.388},
  // S17 fitted to one blocksparse suite (lab/61-a-only-queue: 15 problems, mean 2.5 %, worst 5.3 %);
  // its dense coefficient is S13's (the same ring and tiles on a dense A, which no block case has).
  {"wgmma-queue-a-64",           0.385,  0.065,  0.279,  0.068,  0.000},
  // S18: S12's coefficients (the same ring and tiles; no suite has a B-only case to fit it on: on
  // six timed apart, lab/62-b-only-queue, they predicted it within 6.4 %).
  {"wgmma-queue-b-64",           0.493,  0.060,  0.388,  0.094,  0.000},
};

// Calibrations measured on a device: bench/calibrate_model.py prints these rows from bench runs.
struct Calibration {
  std::string_view backend;
  std::string_view deviceSubstring;  // matched against the device name
  std::string_view name;             // what reports call it: device, date, where the runs are
  std::span<const KernelCoefficients> rows;
  // Another device's rows for the kernels `rows` lacks (kernels changed since it was measured);
  // the name says whose.
  std::span<const KernelCoefficients> borrowed = {};
  bool sixteenBit = false;  // measured on fp16/bf16 inputs (relative to mma), else fp32 (to pipelined)
};

// The first of a backend is the stand-in for a GPU without a calibration of its own.
constexpr Calibration kCalibrations[] = {
  {"cuda", "H100", "H100 CUDA, calibrated 2026-11-26", kH100Cuda},
  {"vulkan", "H100", "H100 Vulkan, calibrated 2026-11-26", kH100Vulkan},
  {"cuda", "H200", "H200 CUDA, calibrated 2026-11-23 (skipping kernels: the H100's of 2026-11-26, checked 2026-11-27)",
   kH200Cuda, kH100Cuda},
  {"vulkan", "H200", "H200 Vulkan, calibrated 2026-11-23 (skipping kernels: the H100's of 2026-11-26, checked 2026-11-27)",
   kH200Vulkan, kH100Vulkan},
  {"cuda", "H100", "H100 CUDA 16-bit, calibrated 2026-11-28 (S13, S17: the H200's of 2026-11-28 and 2026-11-29)", kH100Cuda16, kH200Cuda16, true},
  {"cuda", "H200", "H200 CUDA 16-bit, calibrated 2026-11-28", kH200Cuda16, {}, true},
};
// clang-format on

const KernelCoefficients* findRow(std::span<const KernelCoefficients> rows, std::string_view kernel) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const KernelCoefficients& c) { return c.kernel == kernel; });
  return it == rows.end() ? nullptr : &*it;
}

SpeedModel modelOf(const Calibration& c, std::string name, bool calibrated) {
  return SpeedModel(std::move(name), calibrated, c.rows, c.borrowed, c.sixteenBit);
}

// The calibration of this backend and device measured on inputs of that kind (16-bit or fp32),
// or on a GPU the first of the backend's as a stand-in, its name saying so; nothing otherwise.
std::optional<SpeedModel> calibrationFor(std::string_view backend, std::string_view deviceName, bool isGpu, bool sixteenBit) {
  const Calibration* sameBackend = nullptr;
  for (const Calibration& c : kCalibrations) {
    if (c.backend != backend || c.sixteenBit != sixteenBit) continue;
    if (deviceName.find(c.deviceSubstring) != std::string_view::npos) return modelOf(c, std::string(c.name), true);
    if (sameBackend == nullptr) sameBackend = &c;
  }
  if (sameBackend == nullptr || !isGpu) return std::nullopt;
  return modelOf(*sameBackend, std::string(sameBackend->name) + " (stand-in: no calibration for " + std::string(deviceName) + ")",
                 false);
}

}  // namespace

SpeedModel::SpeedModel(std::string name, bool calibrated, std::span<const KernelCoefficients> rows,
                       std::span<const KernelCoefficients> borrowed, bool sixteenBit)
    : name_(std::move(name)), calibrated_(calibrated), table_(rows.data()), size_(rows.size()), borrowed_(borrowed.data()),
      borrowedSize_(borrowed.size()), sixteenBit_(sixteenBit) {}

SpeedModel SpeedModel::uncalibrated() { return SpeedModel("uncalibrated defaults", false, kDefaults); }

std::optional<SpeedModel> SpeedModel::forInputs(std::string_view backend, std::string_view deviceName, bool isGpu,
                                                DType dtype) {
  if (dtype == DType::Fp32) return forDevice(backend, deviceName, isGpu);
  if (dtype != DType::Fp16 && dtype != DType::Bf16) return std::nullopt;
  return calibrationFor(backend, deviceName, isGpu, true);
}

SpeedModel SpeedModel::forDevice(std::string_view backend, std::string_view deviceName, bool isGpu) {
  return calibrationFor(backend, deviceName, isGpu, false).value_or(uncalibrated());
}

const KernelCoefficients* SpeedModel::coefficients(std::string_view kernel) const {
  if (const KernelCoefficients* row = findRow({table_, size_}, kernel)) return row;
  if (const KernelCoefficients* row = findRow({borrowed_, borrowedSize_}, kernel)) return row;
  // The defaults are relative to fp32's dense reference: no stand-in for a 16-bit table.
  return sixteenBit_ ? nullptr : findRow(kDefaults, kernel);
}

double SpeedModel::relativeTime(const KernelInfo& kernel, const SkipFeatures& f) const {
  const KernelCoefficients* c = coefficients(kernel.id);
  if (c == nullptr) return 1.0;
  const double skipped = c->fixed * (1.0 - f.denseTiles) + c->load * f.loads + c->work * f.work + c->partial * f.partial;
  // A kernel never beats a problem with nothing left to do by more than its fixed cost allows.
  return std::max(c->dense * f.denseTiles + skipped, 1e-3);
}

}  // namespace tileskip
