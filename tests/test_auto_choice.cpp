// --kernel auto where the speed model is blind: which kernels it times, and that it runs the
// fastest of them (core/measure/auto_choice.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "core/measure/auto_choice.hpp"
#include "core/measure/bench.hpp"
#include "core/model/generators.hpp"
#include "fake_backend.hpp"

namespace tileskip {
namespace {

std::vector<const KernelInfo*> kernelsOf(std::initializer_list<const char*> ids) {
  std::vector<const KernelInfo*> kernels;
  for (const char* id : ids) kernels.push_back(&kernelInfo(id));
  return kernels;
}

Inspection inspectionOf(const Matrix& a, const Matrix& b, const std::vector<const KernelInfo*>& kernels) {
  return inspectProblem(a, b, kernels, SpeedModel::uncalibrated(), summarizeOperand(a, "A"), summarizeOperand(b, "B"));
}

bool holds(const std::vector<const KernelInfo*>& kernels, const char* id) {
  return std::any_of(kernels.begin(), kernels.end(), [&](const KernelInfo* k) { return k->id == id; });
}

DeviceInfo gpu() {
  DeviceInfo d;
  d.name = "a GPU";
  d.isGpu = true;
  return d;
}

TEST(AutoChoice, ASmallProblemOnAGpuTimesEveryKernel) {
  const Matrix a = generate("uniform", Operand::A, 64, 96, 0.5, 1);
  const Matrix b = generate("uniform", Operand::B, 96, 80, 0.5, 2);
  const auto kernels = kernelsOf({"naive", "pipelined", "joint-32x32", "cublas"});
  const Inspection inspection = inspectionOf(a, b, kernels);
  EXPECT_EQ(kernelsToMeasure(inspection, gpu()), kernels);
  // A CPU device keeps the model's ranking: nothing there is launch-bound the way a GPU is.
  EXPECT_TRUE(kernelsToMeasure(inspection, DeviceInfo{}).empty());
}

TEST(AutoChoice, ALargeProblemKeepsTheModelWhereItRanksClearly) {
  // 1024 x 1024 outputs fill the GPU, and 128-aligned zero blocks put the skipping kernel far
  // ahead of the dense one: the model's ranking stands.
  GeneratorOptions blocks;
  blocks.block = 128;
  const Matrix a = generate("blocks", Operand::A, 1024, 256, 0.25, 1, blocks);
  const Matrix b = generate("blocks", Operand::B, 256, 1024, 0.25, 2, blocks);
  const Inspection clear = inspectionOf(a, b, kernelsOf({"pipelined", "joint-32x32"}));
  ASSERT_GT(clear.kernels[1].predictedSpeedup, kModelError * clear.kernels[0].predictedSpeedup);
  EXPECT_TRUE(kernelsToMeasure(clear, gpu()).empty());
}

TEST(AutoChoice, NearTiesAreMeasured) {
  // hoisted and pipelined are predicted closer together than the model's error.
  const Matrix a = generate("uniform", Operand::A, 1024, 16, 0.5, 1);
  const Matrix b = generate("uniform", Operand::B, 16, 1024, 1.0, 2);
  const Inspection ties = inspectionOf(a, b, kernelsOf({"pipelined", "hoisted"}));
  EXPECT_EQ(kernelsToMeasure(ties, gpu()), kernelsOf({"pipelined", "hoisted"}));
}

TEST(AutoChoice, CsrOnAVerySparseAIsMeasured) {
  // An A 99 % zeros: CSR's time follows its non-zeros, which the model was never fitted on.
  const auto kernels = kernelsOf({"pipelined", "joint-32x32", "cusparse-csr"});
  const Matrix b = generate("uniform", Operand::B, 16, 1024, 1.0, 2);
  const Matrix sparseA = generate("uniform", Operand::A, 1024, 16, 0.01, 1);
  const Inspection sparse = inspectionOf(sparseA, b, kernels);
  const auto measured = kernelsToMeasure(sparse, gpu());
  EXPECT_TRUE(holds(measured, "cusparse-csr"));
  EXPECT_TRUE(holds(measured, "joint-32x32"));
  EXPECT_TRUE(holds(measured, "pipelined"));
  // Half the elements non-zero: CSR is no candidate, and no other kernel is near the model's choice.
  const Matrix halfA = generate("uniform", Operand::A, 1024, 16, 0.5, 1);
  EXPECT_FALSE(holds(kernelsToMeasure(inspectionOf(halfA, b, kernels), gpu()), "cusparse-csr"));
}

// A problem whose kernels take the times a test gives them; one it names cannot run.
class ScriptedProblem final : public DeviceProblem {
 public:
  explicit ScriptedProblem(std::map<std::string, std::vector<double>> times) : times_(std::move(times)) {}
  double prepare(const KernelInfo&) override { return 0.0; }
  void poisonC() override {}
  double run(const KernelInfo& kernel) override {
    auto& queue = times_.at(std::string(kernel.id));
    if (queue.empty()) throw UnavailableError(std::string(kernel.id) + " is out of scripted times");
    const double ms = queue.front();
    queue.erase(queue.begin());
    return ms;
  }
  Matrix downloadC() override { return Matrix(1, 1); }
  Pattern downloadPattern(Operand, int) override { throw InputError("none"); }

 private:
  std::map<std::string, std::vector<double>> times_;
};

// `warmups` warm-up runs of `warmup` ms, then `first`, then `rest` for every other timed run.
std::vector<double> script(int warmups, double warmup, double first, double rest) {
  std::vector<double> times(warmups, warmup);
  times.push_back(first);
  times.resize(warmups + kAutoTimedRuns, rest);
  return times;
}

TEST(AutoChoice, TheFastestMedianWinsAndAKernelThatCannotRunIsNamed) {
  // pipelined's one fast run is an outlier, and the warm-ups are slow: the median decides. The
  // first kernel timed warms the device up for bench's time (and its steady times end it there).
  const int deviceWarmups = static_cast<int>(std::ceil(BenchOptions{}.warmupMilliseconds / 9.0));
  ScriptedProblem problem(
      {{"pipelined", script(deviceWarmups, 9.0, 1.0, 5.0)}, {"hoisted", script(1, 9.0, 4.5, 4.0)}, {"cublas", {}}});
  const Recommendation r = fastestMeasured(problem, kernelsOf({"pipelined", "hoisted", "cublas"}), "because");
  EXPECT_EQ(r.kernel->id, "hoisted");
  EXPECT_NE(r.reason.find("because: fastest of 3 kernels timed here"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("cublas cannot run here"), std::string::npos) << r.reason;

  ScriptedProblem none(std::map<std::string, std::vector<double>>{{"cublas", {}}});
  EXPECT_THROW(fastestMeasured(none, kernelsOf({"cublas"}), "because"), UnavailableError);
}

// The vendor's dense GEMM stays the choice unless another kernel beats it by kVendorMargin: a
// kernel 2 % faster in auto's few runs is within their noise, one 10 % faster is not.
TEST(AutoChoice, TheVendorGemmIsKeptUnlessAKernelIsClearlyFaster) {
  const int deviceWarmups = static_cast<int>(std::ceil(BenchOptions{}.warmupMilliseconds / 9.0));
  ScriptedProblem close({{"wgmma", script(deviceWarmups, 9.0, 0.98, 0.98)}, {"cublas", script(1, 1.0, 1.0, 1.0)}});
  const Recommendation kept = fastestMeasured(close, kernelsOf({"wgmma", "cublas"}), "because");
  EXPECT_EQ(kept.kernel->id, "cublas");
  EXPECT_NE(kept.reason.find("fastest of 2 kernels timed here, 0.9800 ms; cublas kept at 1.0000 ms, wgmma not faster by 3 %"),
            std::string::npos)
      << kept.reason;
  ScriptedProblem clear({{"wgmma", script(deviceWarmups, 9.0, 0.9, 0.9)}, {"cublas", script(1, 1.0, 1.0, 1.0)}});
  const Recommendation faster = fastestMeasured(clear, kernelsOf({"wgmma", "cublas"}), "because");
  EXPECT_EQ(faster.kernel->id, "wgmma");
  EXPECT_EQ(faster.reason.find("kept"), std::string::npos) << faster.reason;
}

TEST(AutoChoice, OnASmallProblemAutoRunsWhatWasMeasuredFastest) {
  // The model (the defaults, fitted at 4096^3) ranks the vendor baseline first; on this fake GPU
  // it runs ten times slower than the kernels, and measuring sees it.
  testing::FakeFaults faults;
  faults.baselineMillisecondsPerRun = 10 * faults.millisecondsPerRun;
  testing::FakeBackend backend(faults);
  const Matrix a = generate("uniform", Operand::A, 40, 72, 0.5, 3);
  const Matrix b = generate("uniform", Operand::B, 72, 56, 0.5, 4);
  const Inspection modelOnly = inspectOnBackend(backend, a, b, "A", "B");
  ASSERT_TRUE(modelOnly.recommendation.kernel->isBaseline()) << modelOnly.recommendation.kernel->id;

  const AutoChoice choice = chooseKernel(backend, a, b, "A", "B");
  EXPECT_FALSE(choice.choice.kernel->isBaseline()) << choice.choice.kernel->id << ": " << choice.choice.reason;
  // Every kernel of the backend that takes fp32 inputs (the fake's tensor-core ones do not).
  const std::vector<const KernelInfo*> all = backend.kernels();
  EXPECT_EQ(choice.measured.size(),
            static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [](const KernelInfo* k) { return k->takes(DType::Fp32); })));
  EXPECT_LT(choice.measured.size(), all.size());
  EXPECT_NE(choice.choice.reason.find("measured, as the model is blind to a problem this small (40x56 outputs)"),
            std::string::npos)
      << choice.choice.reason;
  EXPECT_GE(choice.measuringMs, 0.0);
}

// A device that refuses the model's choice (lavapipe's loop limit on a long K, say): inspect
// names the refusal and recommends among the rest, and auto neither picks nor times it.
TEST(AutoChoice, AKernelTheDeviceRefusesIsNeverChosen) {
  GeneratorOptions blocks;
  blocks.block = 128;
  const Matrix a = generate("blocks", Operand::A, 1024, 256, 0.25, 1, blocks);
  const Matrix b = generate("blocks", Operand::B, 256, 1024, 0.25, 2, blocks);
  testing::FakeBackend open;
  const Inspection free = inspectOnBackend(open, a, b, "A", "B");
  const std::string favourite(free.recommendation.kernel->id);
  ASSERT_TRUE(free.recommendation.kernel->skips()) << favourite << ": " << free.recommendation.reason;

  testing::FakeFaults faults;
  faults.refused = {favourite};
  testing::FakeBackend refusing(faults);
  const Inspection inspection = inspectOnBackend(refusing, a, b, "A", "B");
  EXPECT_NE(inspection.recommendation.kernel->id, favourite) << inspection.recommendation.reason;
  for (const KernelInspection& k : inspection.kernels) {
    EXPECT_EQ(k.refusal.empty(), k.kernel->id != favourite) << k.kernel->id;
  }
  const nlohmann::json json = nlohmann::json::parse(inspectionJson(inspection, refusing));
  for (const nlohmann::json& k : json["kernels"]) {
    if (k["kernel"] == favourite) EXPECT_EQ(k["refused"], testing::fakeRefusal(kernelInfo(favourite)));
    else EXPECT_TRUE(k["refused"].is_null()) << k["kernel"];
  }
  // Auto runs that recommendation, or times the near ties (the fake's runs are products on the
  // host, too slow to time at this size): never the refused kernel.
  EXPECT_FALSE(holds(kernelsToMeasure(inspection, gpu()), favourite.c_str()));
  // A small problem, where auto times every kernel: still not the refused one.
  const Matrix smallA = generate("uniform", Operand::A, 40, 72, 0.5, 3);
  const Matrix smallB = generate("uniform", Operand::B, 72, 56, 0.5, 4);
  const AutoChoice small = chooseKernel(refusing, smallA, smallB, "A", "B");
  EXPECT_FALSE(holds(small.measured, favourite.c_str()));
  EXPECT_FALSE(small.measured.empty());
  EXPECT_NE(small.choice.kernel->id, favourite) << small.choice.reason;
}

// Where the device refuses every kernel, the recommendation still names one and says why it
// cannot run, so that running it fails with that reason rather than a wrong answer.
TEST(AutoChoice, WhereEveryKernelIsRefusedTheReasonSaysSo) {
  testing::FakeFaults faults;
  testing::FakeBackend probe;
  for (const KernelInfo* k : probe.kernels()) faults.refused.push_back(std::string(k->id));
  testing::FakeBackend refusing(faults);
  const Matrix a = generate("uniform", Operand::A, 64, 64, 0.5, 1);
  const Matrix b = generate("uniform", Operand::B, 64, 64, 0.5, 2);
  const Inspection inspection = inspectOnBackend(refusing, a, b, "A", "B");
  ASSERT_NE(inspection.recommendation.kernel, nullptr);
  EXPECT_NE(inspection.recommendation.reason.find("no kernel runs this problem on this device; " +
                                                  testing::fakeRefusal(*inspection.recommendation.kernel)),
            std::string::npos)
      << inspection.recommendation.reason;
  EXPECT_TRUE(kernelsToMeasure(inspection, gpu()).empty());
}

}  // namespace
}  // namespace tileskip
