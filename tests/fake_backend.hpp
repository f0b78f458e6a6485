// A backend that runs on the host and simulates the skipping kernels exactly as the GPU ones
// are meant to skip, with switches that break it the ways real kernels break (too eager a skip,
// wrong patterns, an unwritten tile). The harness and suite tests use it to show they catch
// each of those.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/tune.hpp"
#include "core/model/backend.hpp"
#include "core/model/error.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reference.hpp"

namespace tileskip::testing {

struct FakeFaults {
  bool skipSingleProducts = false;  // drops K-blocks whose joint byte has one bit: too eager
  bool corruptPatterns = false;     // device patterns differ from the CPU's
  bool leaveLastRowUnwritten = false;
  double millisecondsPerRun = 2.0;  // what run() reports for the dense kernel
  double baselineMillisecondsPerRun = 0.0;  // ... and for the baseline (0: as the dense kernel)
  // A clock that climbs as a GPU's does after idling: the backend's runs start at 5x their time
  // and each takes kClockRampStep less than the one before, down to 1x (64 runs).
  bool clockRamp = false;
  // Runs that alternate between half and one and a half times their time, for good: a median
  // whose interval never closes (bench --repeat-until-stable).
  bool wandering = false;
  // Run-time variants of `pipelined` for tuning, each a switch: "fast" (half the time), "slow"
  // (twice), "near" (0.5 % faster: within the tuning margin), "wrong" (fast and one element off).
  // Without these or noisyVariant the backend has no tuning at all.
  bool pipelinedVariants = false;
  // Instead: only "noisy", which alternates between a quarter and three quarters of the time per
  // run: faster in the median, but by less than its spread.
  bool noisyVariant = false;
  // Kernels this device refuses on every problem, as lavapipe refuses a loop too long: refusal()
  // says why and run() throws UnavailableError.
  std::vector<std::string> refused{};
  // What device() is called: a GPU's name picks its speed model's calibration.
  std::string deviceName = "fake device";
  // takes() refuses every 16-bit input, as the Vulkan twins and the host do bf16.
  bool fp32Only = false;
  // No vendor GEMM (cuBLAS): a backend such as Vulkan, whose layers have no baseline.
  bool noCublas = false;
};

inline std::string fakeRefusal(const KernelInfo& kernel) { return std::string(kernel.id) + " is refused by the fake device"; }

class FakeProblem final : public DeviceProblem {
 public:
  FakeProblem(const Matrix& a, const Matrix& b, const FakeFaults& faults, int& runs, const std::string& pipelinedVariant)
      : a_(a), b_(b), c_(a.rows(), b.cols()), faults_(faults), runs_(runs), pipelinedVariant_(pipelinedVariant) {}

  DType dtype_ = DType::Fp32;  // the problem's --dtype: a kernel that does not take it is refused

  // The fake's 16-bit copies of A and B, for a tensor-core kernel or cuBLAS of a 16-bit problem:
  // "made" once, taking kRoundingMs.
  static constexpr double kRoundingMs = 0.25;
  double roundingMs() const override { return rounded_ ? kRoundingMs : 0.0; }

  double prepare(const KernelInfo& kernel) override {
    const bool sixteenBits = dtype_ == DType::Fp16 || dtype_ == DType::Bf16;
    rounded_ = rounded_ || (sixteenBits && (kernel.usesTensorCores() || kernel.runs(VendorRoutine::CublasGemm)));
    if (kernel.usesAPattern()) aPattern_ = buildAPattern(a_, kernel.aGranularity);
    if (kernel.usesBPattern()) bPattern_ = buildBPattern(b_, kernel.bGranularity);
    if (faults_.corruptPatterns && !aPattern_.bits.empty()) aPattern_.bits.front() ^= 0x1;
    return kernel.skips() ? 0.01 : 0.0;
  }
  // B's pattern alone, where the kernel reads one.
  static constexpr double kKeepingAMs = 0.004;
  std::optional<double> prepareKeepingA(const KernelInfo& kernel) override {
    if (kernel.usesAPattern() && aPattern_.granularity != kernel.aGranularity) prepare(kernel);
    if (!kernel.usesBPattern()) return 0.0;
    bPattern_ = buildBPattern(b_, kernel.bGranularity);
    return kKeepingAMs;
  }

  void poisonC() override { c_.fill(std::numeric_limits<float>::quiet_NaN()); }

  double run(const KernelInfo& kernel) override {
    requireInputs(kernel, dtype_);
    if (std::find(faults_.refused.begin(), faults_.refused.end(), kernel.id) != faults_.refused.end()) {
      throw UnavailableError(fakeRefusal(kernel));
    }
    ++runs_;
    constexpr double kClockRampStep = 0.975;
    const double slower = faults_.clockRamp ? std::max(1.0, 5.0 * std::pow(kClockRampStep, runs_ - 1)) : 1.0;
    const double wander = faults_.wandering ? (runs_ % 2 == 0 ? 0.5 : 1.5) : 1.0;
    return slower * wander * runAtFullClock(kernel);
  }

  double runAtFullClock(const KernelInfo& kernel) {
    if (!kernel.skips()) {
      referenceSgemm(a_, b_, c_);
    } else {
      simulateSkipping(kernel);
    }
    if (faults_.leaveLastRowUnwritten) {
      for (int j = 0; j < c_.cols(); ++j) c_(c_.rows() - 1, j) = std::numeric_limits<float>::quiet_NaN();
    }
    if (kernel.isBaseline() && faults_.baselineMillisecondsPerRun > 0.0) return faults_.baselineMillisecondsPerRun;
    if (kernel.id == "pipelined" && !pipelinedVariant_.empty()) {
      if (pipelinedVariant_ == "wrong") c_(0, 0) += 1.0f;
      double scale = pipelinedVariant_ == "slow" ? 2.0 : pipelinedVariant_ == "near" ? 0.995 : 0.5;
      if (pipelinedVariant_ == "noisy") scale = runs_ % 2 == 0 ? 0.25 : 1.75;
      return faults_.millisecondsPerRun * scale;
    }
    // A skipping kernel "runs" in proportion to the work it keeps.
    return kernel.skips() ? faults_.millisecondsPerRun * kernelWork(kernel, a_, b_).jointDensity : faults_.millisecondsPerRun;
  }

  Matrix downloadC() override { return c_; }

  Pattern downloadPattern(Operand operand, int granularity) override {
    const Pattern& p = operand == Operand::A ? aPattern_ : bPattern_;
    if (p.bits.empty() || p.granularity != granularity) throw InputError("fake: no such pattern prepared");
    return p;
  }

 private:
  void simulateSkipping(const KernelInfo& kernel) {
    Pattern a = kernel.usesAPattern() ? buildAPattern(a_, kernel.aGranularity) : fullPattern(Operand::A, a_.rows(), a_.cols(), 8);
    Pattern b = kernel.usesBPattern() ? buildBPattern(b_, kernel.bGranularity) : fullPattern(Operand::B, b_.cols(), b_.rows(), 8);
    for (int i = 0; i < c_.rows(); ++i) {
      for (int j = 0; j < c_.cols(); ++j) {
        double sum = 0.0;
        for (int kb = 0; kb < a.kBlocks; ++kb) {
          std::uint8_t joint = jointPattern(a, b, i / a.granularity, j / b.granularity, kb);
          if (joint == 0) continue;
          if (faults_.skipSingleProducts && std::popcount(joint) == 1) continue;
          for (int bit = 0; bit < kKBlock; ++bit) {
            if (joint & (1u << bit)) sum += static_cast<double>(a_(i, kb * kKBlock + bit)) * b_(kb * kKBlock + bit, j);
          }
        }
        c_(i, j) = static_cast<float>(sum);
      }
    }
  }

  Matrix a_, b_, c_;
  bool rounded_ = false;
  Pattern aPattern_, bPattern_;
  FakeFaults faults_;
  int& runs_;
  const std::string& pipelinedVariant_;  // the backend's, as it is when run() is called
};

class FakeBackend final : public Backend, public Tunable {
 public:
  explicit FakeBackend(FakeFaults faults = {}, std::string name = "fake") : faults_(faults), name_(std::move(name)) {
    device_.name = faults_.deviceName;
    device_.isGpu = true;
  }
  std::string_view name() const override { return name_; }
  const DeviceInfo& device() const override { return device_; }
  bool implements(std::string_view id) const override {
    if (faults_.noCublas && id == "cublas") return false;
    return id == "warptile" || id == "pipelined" || id == "joint-8x32" || id == "joint-32x32" || id == "joint-64x32" ||
           id == "a-warp" || id == "b-group8" || id == "mma" || id == "mma-joint-64x32" || id == "compact-mma-64" || id == "cpu" ||
           id == "cublas";
  }
  bool takes(const KernelInfo& kernel, DType dtype) const override {
    return Backend::takes(kernel, dtype) && !(faults_.fp32Only && dtype != DType::Fp32);
  }
  std::optional<std::string> refusal(const KernelInfo& kernel, int, int, int) const override {
    if (std::find(faults_.refused.begin(), faults_.refused.end(), kernel.id) == faults_.refused.end()) return std::nullopt;
    return fakeRefusal(kernel);
  }
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override {
    checkMultiplicable(a, b);
    auto problem = std::make_unique<FakeProblem>(a, b, faults_, runs_, pipelinedVariant_);
    problem->dtype_ = dtype;
    return problem;
  }
  Tunable* tuning() override { return faults_.pipelinedVariants || faults_.noisyVariant ? this : nullptr; }
  // The switch `name` on: "fast", "slow", ...
  static KernelVariant variantNamed(const std::string& name) { return {std::nullopt, {{name, true}}}; }
  std::vector<KernelVariant> variants(const KernelInfo& kernel) const override {
    if (kernel.id != "pipelined") return {};
    if (faults_.noisyVariant) return {{}, variantNamed("noisy")};
    return {{}, variantNamed("fast"), variantNamed("slow"), variantNamed("near"), variantNamed("wrong")};
  }
  void useVariant(const KernelInfo& kernel, const KernelVariant& variant) override {
    std::vector<KernelVariant> offered = variants(kernel);
    if (std::find(offered.begin(), offered.end(), variant) == offered.end()) {
      if (variant.isCatalogue()) return;  // the catalogue's own: what runs anyway
      throw InputError("fake has no variant '" + variantText(variant) + "' of kernel '" + std::string(kernel.id) + "'");
    }
    pipelinedVariant_ = variant.isCatalogue() ? std::string() : variant.switches.front().name;
  }
  // Kernel runs of every problem uploaded so far.
  int runs() const { return runs_; }

 private:
  DeviceInfo device_;
  FakeFaults faults_;
  std::string name_;
  int runs_ = 0;
  std::string pipelinedVariant_;
};

}  // namespace tileskip::testing
