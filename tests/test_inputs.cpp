// Problems whose inputs are in another precision than fp32 (--dtype): A and B rounded
// once, on the host; only the kernels that take the precision run, the others are refused by
// name; the reference, the reports and `auto` follow the precision. The tensor-core kernel runs
// in the CUDA emulator here (on the GPU: scripts/gpu/gpu_session.sh).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "core/io/report.hpp"
#include "core/io/verify_report.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/inspect.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/measure/verify_suite.hpp"
#include "core/model/dtype.hpp"
#include "core/model/error.hpp"
#include "core/model/problem.hpp"
#include "cuda_emulation/emulated_cuda_backend.hpp"
#include "fake_backend.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;

namespace {

ProblemSpec smallSpec(DType dtype) {
  ProblemSpec spec;
  spec.m = 40;
  spec.n = 72;
  spec.k = 56;
  spec.generator = "uniform";
  spec.dtype = dtype;
  return spec;
}

bool representable(const Matrix& m, DType type) {
  for (float x : m.values()) {
    if (roundTo(type, x) != x) return false;
  }
  return true;
}

}  // namespace

TEST(Inputs, AProblemOfAnotherPrecisionHoldsValuesThatPrecisionRepresents) {
  for (DType type : {DType::Tf32, DType::Fp16, DType::Bf16}) {
    ProblemData fp32 = generateProblem(smallSpec(DType::Fp32));
    ProblemData rounded = generateProblem(smallSpec(type));
    EXPECT_TRUE(representable(rounded.a, type) && representable(rounded.b, type)) << dtypeName(type);
    EXPECT_FALSE(representable(fp32.a, type)) << "uniform fp32 values should need rounding to " << dtypeName(type);
    // The same draws, rounded: each element within half an ulp of the type.
    for (std::size_t i = 0; i < fp32.a.values().size(); ++i) {
      const float x = fp32.a.values()[i], r = rounded.a.values()[i];
      ASSERT_LE(std::fabs(r - x), unitRoundoff(type) * std::fabs(x) * 1.0000001) << dtypeName(type) << " element " << i;
    }
  }
  EXPECT_NE(smallSpec(DType::Bf16).describe().find("bf16 inputs"), std::string::npos);
  EXPECT_EQ(smallSpec(DType::Fp32).describe().find("inputs"), std::string::npos);
}

TEST(Inputs, RoundingRefusesValuesBeyondTheRangeAndNotesValuesThatVanish) {
  Matrix big(1, 3);
  big(0, 0) = 1.0f;
  big(0, 1) = 70000.0f;  // fp16's largest is 65504
  big(0, 2) = -1e6f;
  try {
    roundOperand(big, DType::Fp16, "A");
    ADD_FAILURE() << "rounded 70000 to fp16";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("A holds 2 value(s) beyond fp16's range"), std::string::npos) << text;
    EXPECT_NE(text.find("bf16"), std::string::npos) << text;  // says what to use instead
  }
  Matrix bf16 = big;
  EXPECT_EQ(roundOperand(bf16, DType::Bf16, "A"), "");  // bf16 has fp32's range
  // ... but fp32's largest values round up past bf16's and tf32's: the message quotes their own
  // largest value and sends the user to fp32, not to the dtype that just failed.
  for (DType type : {DType::Bf16, DType::Tf32}) {
    Matrix huge(1, 1);
    huge(0, 0) = std::numeric_limits<float>::max();
    try {
      roundOperand(huge, type, "B");
      ADD_FAILURE() << "rounded fp32's largest value to " << dtypeName(type);
    } catch (const InputError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find(std::string("beyond ") + std::string(dtypeName(type)) + "'s range"), std::string::npos) << text;
      EXPECT_EQ(text.find("65504"), std::string::npos) << text;
      EXPECT_NE(text.find(type == DType::Bf16 ? "3.39e+38" : "3.401e+38"), std::string::npos) << text;
      EXPECT_NE(text.find("--dtype fp32"), std::string::npos) << text;
      EXPECT_EQ(text.find("bf16 or"), std::string::npos) << text;
    }
  }
  Matrix tiny(1, 2);
  tiny(0, 0) = 1e-9f;  // below fp16's smallest subnormal, 2^-24
  tiny(0, 1) = 0.5f;
  EXPECT_NE(roundOperand(tiny, DType::Fp16, "B").find("B: 1 non-zero value(s) below fp16's smallest subnormal became zero"),
            std::string::npos);
  EXPECT_EQ(tiny(0, 0), 0.0f);
  EXPECT_EQ(tiny(0, 1), 0.5f);
}

TEST(Inputs, OnlyKernelsThatTakeThePrecisionAreSelectedAndTheOthersAreRefusedByName) {
  std::unique_ptr<Backend> cuda = tileskip::testing::makeEmulatedCudaBackend();
  std::vector<const KernelInfo*> all = selectKernels("all", *cuda, true, DType::Bf16);
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(all[0]->id, "mma");
  EXPECT_EQ(all[1]->id, "wgmma");
  EXPECT_EQ(all[2]->id, "mma-joint-64x32");
  EXPECT_EQ(all[3]->id, "wgmma-joint-64x64");
  EXPECT_EQ(all[4]->id, "wgmma-queue-joint-64x64");
  EXPECT_EQ(all[5]->id, "wgmma-queue-wide-64x64");
  EXPECT_EQ(all[6]->id, "compact-mma-64");
  EXPECT_EQ(all[7]->id, "compact-wgmma-128");
  EXPECT_EQ(all[8]->id, "wgmma-queue-a-64");
  EXPECT_EQ(all[9]->id, "wgmma-queue-b-64");
  EXPECT_EQ(all[10]->id, "bsr-stream-64");  // its row strips widen any stored word to fp32
  EXPECT_EQ(all[11]->id, "bsr-wgmma-64");
  for (const KernelInfo* k : selectKernels("all", *cuda, true, DType::Fp32)) {
    EXPECT_EQ(k->takes(DType::Bf16), k->structure.dtypes == kStoredInputs) << k->id;
  }
  try {
    selectKernels("pipelined,mma", *cuda, true, DType::Fp16);
    ADD_FAILURE() << "selected pipelined for fp16 inputs";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("kernel 'pipelined' takes fp32 inputs, not fp16"), std::string::npos) << text;
    EXPECT_NE(text.find("the kernels that take fp16: mma, wgmma, mma-joint-64x32, wgmma-joint-64x64, wgmma-queue-joint-64x64, wgmma-queue-wide-64x64, compact-mma-64, compact-wgmma-128, wgmma-queue-a-64, wgmma-queue-b-64, bsr-stream-64, bsr-wgmma-64, cublas"), std::string::npos) << text;
  }
  // Not strict (several backends): the ones that do not take it are left out.
  EXPECT_EQ(selectKernels("pipelined,mma", *cuda, false, DType::Fp16).size(), 1u);
  EXPECT_TRUE(kernelInfo("cublas").takes(DType::Tf32));
  EXPECT_FALSE(kernelInfo("cusparse-csr").takes(DType::Bf16));
  EXPECT_EQ(denseReferenceKernel(DType::Fp16), "mma");
  EXPECT_EQ(denseReferenceKernel(DType::Tf32), "mma");
  EXPECT_EQ(denseReferenceKernel(DType::Fp32), kDenseReferenceKernel);
}

TEST(Inputs, AProblemRefusesAKernelThatDoesNotTakeItsPrecision) {
  FakeBackend backend;
  ProblemData data = generateProblem(smallSpec(DType::Bf16));
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b, DType::Bf16);
  EXPECT_THROW(onDevice->run(kernelInfo("pipelined")), InputError);
  EXPECT_NO_THROW(onDevice->run(kernelInfo("cublas")));
}

TEST(Inputs, TheTensorCoreKernelIsVerifiedAndBenchedInEachPrecisionItTakes) {
  std::unique_ptr<Backend> cuda = tileskip::testing::makeEmulatedCudaBackend();
  std::vector<VerifyTarget> targets = verifyTargets(*cuda, {&kernelInfo("mma"), &kernelInfo("pipelined")});
  ASSERT_EQ(targets.size(), 4u);  // pipelined fp32, mma tf32, mma fp16, mma bf16
  EXPECT_EQ(verifyLabel(*targets[1].kernel, targets[1].dtype), "mma (tf32)");
  EXPECT_EQ(verifyLabel(*targets[3].kernel, targets[3].dtype), "mma (bf16)");
  EXPECT_EQ(verifyTargets(*cuda, {&kernelInfo("mma"), &kernelInfo("pipelined")}, DType::Fp16).size(), 1u);
  std::vector<VerifyResult> results = runVerifyTargets(*cuda, targets, verifyCases(true));
  for (const VerifyResult& r : results) EXPECT_TRUE(r.passed()) << r.label() << " " << r.caseName << ": " << r.failure;
  VerifyBackendRun run{.backend = "cuda-emulated", .device = cuda->device(), .kernels = {}, .results = results};
  for (const VerifyTarget& t : targets) run.kernels.push_back(verifyLabel(*t.kernel, t.dtype));
  const nlohmann::json verified = nlohmann::json::parse(formatVerifyJson({run}));
  EXPECT_EQ(verified["dtype"], "fp32, tf32, fp16, bf16");
  EXPECT_EQ(verified["backends"][0]["kernels"][3]["kernel"], "mma");
  EXPECT_EQ(verified["backends"][0]["kernels"][3]["dtype"], "bf16");
  EXPECT_NE(formatVerifyTable({run}).find("mma (fp16)"), std::string::npos);

  // A bench of a bf16 problem: the row against its own precision's dense kernel, no prediction.
  ProblemSpec spec = smallSpec(DType::Bf16);
  BenchReport report = runBench({{cuda.get(), {&kernelInfo("mma")}}}, spec, generateProblem(spec), {.warmup = 0, .repeat = 1});
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_TRUE(report.rows[0].verified) << report.rows[0].failure;
  EXPECT_TRUE(std::isnan(report.rows[0].predictedSpeedup));
  ASSERT_TRUE(report.rows[0].speedupVsDense.has_value());
  EXPECT_DOUBLE_EQ(*report.rows[0].speedupVsDense, 1.0);
  const nlohmann::json json = nlohmann::json::parse(formatReport(report, ReportFormat::Json));
  EXPECT_EQ(json["dtype"], "bf16");
  EXPECT_TRUE(json["rows"][0]["predicted_speedup"].is_null());
  EXPECT_NE(formatReport(report, ReportFormat::Table).find("bf16 inputs"), std::string::npos);
}

TEST(Inputs, InspectSaysNoModelRanksAnotherPrecisionAndRecommendsItsDenseKernel) {
  std::unique_ptr<Backend> cuda = tileskip::testing::makeEmulatedCudaBackend();
  ProblemData data = generateProblem(smallSpec(DType::Fp16));
  Inspection r = inspectOnBackend(*cuda, data.a, data.b, "a", "b", DType::Fp16);
  ASSERT_EQ(r.kernels.size(), 12u);  // mma, wgmma, mma-joint-64x32, S11-S13, S14, S15, S17, S18, S20 and S21
  for (const auto& k : r.kernels) EXPECT_TRUE(std::isnan(k.predictedSpeedup));
  EXPECT_NE(r.modelName.find("none for fp16 inputs"), std::string::npos) << r.modelName;
  EXPECT_EQ(r.recommendation.kernel->id, "mma");
  const nlohmann::json json = nlohmann::json::parse(inspectionJson(r, *cuda));
  EXPECT_EQ(json["dtype"], "fp16");
  for (const auto& k : json["kernels"]) EXPECT_TRUE(k["predicted_speedup"].is_null());
  // Every tensor-core kernel but the Hopper skipping one takes tf32 (cuBLAS does too, on a GPU).
  Inspection tf32 = inspectOnBackend(*cuda, data.a, data.b, "a", "b", DType::Tf32);
  ASSERT_EQ(tf32.kernels.size(), 3u);  // mma, wgmma, mma-joint-64x32
  EXPECT_EQ(tf32.recommendation.kernel->id, "mma");
}
