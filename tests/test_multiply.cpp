// The multiply use case that `tileskip run`, Python's matmul and the viewer share
// (core/measure/multiply.hpp): the kernel it runs and why, what its times cover, --reorder
// putting C back, verification catching a wrong C, the dtype's notes, the in-place path and the
// errors, on the fake backend (which can be made wrong), the cpu backend and, where it runs,
// Vulkan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "backends/backend_registry.hpp"
#include "core/io/report.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/measure/multiply.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/live_columns.hpp"
#include "core/model/reorder.hpp"
#include "fake_backend.hpp"
#include "test_environment.hpp"

namespace tileskip {
namespace {

using testing::FakeBackend;
using testing::FakeFaults;
using testing::backendRequired;
using testing::envFlag;

MultiplyRequest requestFor(Matrix a, Matrix b, const char* kernel = nullptr) {
  MultiplyRequest request;
  request.a = std::move(a);
  request.b = std::move(b);
  request.kernel = kernel != nullptr ? &kernelInfo(kernel) : nullptr;
  return request;
}

// Values that are small whole numbers: every product and sum of them is exact in fp32, so C is
// the same bit for bit in any summation order.
Matrix wholeNumbers(Matrix m) {
  for (float& x : m.values()) x = std::nearbyint(8.0f * x);
  return m;
}

bool sameBits(const Matrix& x, const Matrix& y) {
  return x.rows() == y.rows() && x.cols() == y.cols() && std::memcmp(x.data(), y.data(), x.bytes()) == 0;
}

// Zero blocks at 32 rows x 32 K that a row and K permutation has scattered: nothing for a
// 32-row tile to skip until reordering gathers them again.
Matrix scrambledBlocks() {
  GeneratorOptions options;
  options.block = 32;
  const Matrix blocks = wholeNumbers(generate("blocks", Operand::A, 96, 64, 0.3, 5, options));
  Matrix scrambled(96, 64);
  for (int r = 0; r < 96; ++r) {
    for (int k = 0; k < 64; ++k) scrambled(r, k) = blocks((r * 29) % 96, (k * 37) % 64);
  }
  return scrambled;
}

std::unique_ptr<Backend> cpuBackend() { return openBackend("cpu"); }

TEST(Multiply, ARequestedKernelRunsAndSaysSo) {
  FakeBackend backend;
  const Matrix a = generate("segments", Operand::A, 70, 48, 0.5, 1);
  const Matrix b = generate("segments", Operand::B, 48, 66, 0.5, 2);
  MultiplyResult r = multiply(backend, requestFor(a, b, "joint-8x32"));
  EXPECT_EQ(r.kernel->id, "joint-8x32");
  EXPECT_FALSE(r.automatic);
  EXPECT_EQ(r.why, "requested");
  // The fake builds patterns for a skipping kernel in 0.01 ms and runs it in proportion to the
  // work its patterns keep.
  EXPECT_DOUBLE_EQ(r.prepareMs, 0.01);
  EXPECT_DOUBLE_EQ(r.kernelMs, 2.0 * kernelWork(kernelInfo("joint-8x32"), a, b).jointDensity);
  EXPECT_EQ(r.timedRuns, 1);
  EXPECT_EQ(backend.runs(), 1);
  ASSERT_TRUE(r.verification.has_value());
  EXPECT_TRUE(r.verification->passed);
  EXPECT_TRUE(compareToReference(r.c, referenceProduct(a, b)).passed);
  EXPECT_EQ(r.checked(), "verified against the float64 reference (" + r.verification->summary() + ")");
  EXPECT_TRUE(r.notes.empty());
  EXPECT_TRUE(r.nonFiniteNote.empty());
}

TEST(Multiply, AutoRunsAutosChoiceWithItsReason) {
  const Matrix a = generate("blocks", Operand::A, 64, 64, 0.25, 1);
  const Matrix b = generate("blocks", Operand::B, 64, 64, 0.25, 2);
  FakeBackend backend, other;
  MultiplyResult r = multiply(backend, requestFor(a, b));
  const Recommendation expected = chooseAuto(other, a, b, ProblemSpec{});
  EXPECT_TRUE(r.automatic);
  EXPECT_EQ(r.kernel, expected.kernel);
  // The reason ends with how long choosing took on the host, which differs from run to run.
  auto timeless = [](const std::string& reason) { return reason.substr(0, reason.find("; choosing took")); };
  EXPECT_EQ(timeless(r.why), timeless(expected.reason));
  EXPECT_NE(r.why.find("fastest"), std::string::npos) << "a small problem on a GPU: auto timed the kernels: " << r.why;
  EXPECT_TRUE(r.verification->passed);

  // On the cpu backend auto has one kernel to give: its host BLAS.
  std::unique_ptr<Backend> cpu = cpuBackend();
  MultiplyResult onCpu = multiply(*cpu, requestFor(a, b));
  EXPECT_EQ(onCpu.kernel->id, "cpu");
  EXPECT_TRUE(onCpu.automatic);
  EXPECT_FALSE(onCpu.why.empty());
  EXPECT_NE(onCpu.why, "requested");
  EXPECT_TRUE(compareToReference(onCpu.c, referenceProduct(a, b)).passed);
}

TEST(Multiply, RepeatsAfterAWarmUpReportTheMedian) {
  // The fake's clock ramp: run i takes 2 ms x 5 x 0.975^(i-1). The first run is the warm-up;
  // runs 2, 3 and 4 are timed and the median is run 3's.
  FakeBackend backend({.clockRamp = true});
  MultiplyRequest request = requestFor(generate("uniform", Operand::A, 16, 24, 1.0, 1),
                                       generate("uniform", Operand::B, 24, 8, 1.0, 2), "pipelined");
  request.repeat = 3;
  MultiplyResult r = multiply(backend, std::move(request));
  EXPECT_EQ(backend.runs(), 4);
  EXPECT_EQ(r.timedRuns, 3);
  EXPECT_DOUBLE_EQ(r.kernelMs, 2.0 * 5.0 * std::pow(0.975, 2));
  EXPECT_EQ(r.prepareMs, 0.0);  // a dense kernel prepares nothing
}

// Zeros spread out as ReLU leaves them gather into next to no tile, so --reorder puts K in firing
// order instead: a permutation of A's columns and B's rows together (C unchanged), which clusters
// the live columns of 128-row tiles in fewer 8-column groups. Where it clusters nothing (every
// column live everywhere), the order stays.
TEST(Multiply, ReorderSortsSpreadOutZerosByHowOftenEachColumnFires) {
  GeneratorOptions skewed;
  skewed.skew = 2.5;
  const Matrix a = generate("neurons", Operand::A, 256, 512, 0.1, 5, skewed);
  const Matrix b = generate("uniform", Operand::B, 512, 24, 1.0, 6);
  Matrix sortedA = a, sortedB = b;
  const GatheredZeros sorted = reorderForSkipping(sortedA, sortedB);
  EXPECT_EQ(sorted.note.rfind("sorted K by how many rows fire each column in ", 0), 0u) << sorted.note;
  const Reordering& r = sorted.reordering;
  ASSERT_EQ(r.kOrder, firingOrder(a));
  EXPECT_FALSE(r.isIdentity());
  EXPECT_EQ(r.rowOrder, identityReordering(256, 24, 512).rowOrder);
  EXPECT_EQ(r.colOrder, identityReordering(256, 24, 512).colOrder);
  auto same = [](float x, float y) { return std::memcmp(&x, &y, sizeof(float)) == 0; };
  for (int j = 0; j < a.cols(); ++j) {
    for (int i = 0; i < a.rows(); ++i) ASSERT_TRUE(same(sortedA(i, j), a(i, r.kOrder[j]))) << i << " " << j;
    for (int c = 0; c < b.cols(); ++c) ASSERT_TRUE(same(sortedB(j, c), b(r.kOrder[j], c))) << j << " " << c;
  }
  const double before = findLiveColumns(a, 128, kFiringGroup).meanLiveFraction();
  const double after = findLiveColumns(sortedA, 128, kFiringGroup).meanLiveFraction();
  EXPECT_LE(after, before - kFiringGain);
  EXPECT_NE(sorted.note.find(fixed(before, 3) + " -> " + fixed(after, 3)), std::string::npos) << sorted.note;
  // The columns fire most first.
  for (int j = 1; j < a.cols(); ++j) {
    int previous = 0, here = 0;
    for (int i = 0; i < a.rows(); ++i) previous += sortedA(i, j - 1) != 0.0f, here += sortedA(i, j) != 0.0f;
    ASSERT_GE(previous, here) << j;
  }

  Matrix uniformA = generate("uniform", Operand::A, 256, 512, 1.0, 7), uniformB = b;
  const GatheredZeros kept = reorderForSkipping(uniformA, uniformB);
  EXPECT_TRUE(kept.reordering.isIdentity()) << kept.note;
  EXPECT_NE(kept.note.find("kept the order"), std::string::npos) << kept.note;
}

TEST(Multiply, ReorderPutsCBackInTheOriginalOrder) {
  const Matrix a = scrambledBlocks();
  const Matrix b = wholeNumbers(generate("uniform", Operand::B, 64, 40, 1.0, 6));
  const Matrix exact = referenceExact(a, b);

  // The fake's skipping kernel sums each element in float64 and rounds once; its time follows
  // the work the patterns of the operands it was given keep.
  FakeBackend backend;
  MultiplyResult plain = multiply(backend, requestFor(a, b, "joint-32x32"));
  MultiplyRequest request = requestFor(a, b, "joint-32x32");
  std::vector<std::string> said;
  request.onNote = [&](const std::string& note) { said.push_back(note); };
  request.reorder = true;
  MultiplyResult reordered = multiply(backend, std::move(request));
  ASSERT_EQ(reordered.notes.size(), 1u);
  EXPECT_EQ(reordered.notes, said);
  EXPECT_EQ(reordered.notes[0].rfind("reordered rows, columns and K in ", 0), 0u) << reordered.notes[0];
  EXPECT_EQ(reordered.notes[0].find("kept the order"), std::string::npos) << reordered.notes[0];
  EXPECT_LT(reordered.kernelMs, plain.kernelMs) << "the kernel multiplied the gathered operands";
  EXPECT_TRUE(sameBits(plain.c, exact));
  EXPECT_TRUE(sameBits(reordered.c, exact)) << "C is the unpermuted product, every element in its place";
  EXPECT_TRUE(reordered.verification->passed);

  // The host BLAS sums in its own order; on whole numbers that changes nothing either.
  std::unique_ptr<Backend> cpu = cpuBackend();
  MultiplyRequest onCpu = requestFor(a, b, "cpu");
  onCpu.reorder = true;
  EXPECT_TRUE(sameBits(multiply(*cpu, std::move(onCpu)).c, exact));
}

TEST(Multiply, AWrongCFailsVerificationWithTheKernelsName) {
  const Matrix a = generate("uniform", Operand::A, 20, 16, 1.0, 1);
  const Matrix b = generate("uniform", Operand::B, 16, 12, 1.0, 2);
  // The failure's message, or "" where the multiply passed.
  auto failure = [](Backend& backend, MultiplyRequest request) {
    try {
      multiply(backend, std::move(request));
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::VerificationFailed) << e.what();
      return std::string(e.what());
    }
    return std::string();
  };
  FakeBackend wrong({.leaveLastRowUnwritten = true});
  std::string unwritten = failure(wrong, requestFor(a, b, "pipelined"));
  EXPECT_EQ(unwritten.rfind("kernel pipelined gave a wrong C (", 0), 0u) << unwritten;
  // An eager skip gives finite wrong values: caught by the error bound, not by NaN.
  FakeBackend eager({.skipSingleProducts = true});
  const Matrix sparseA = generate("uniform", Operand::A, 96, 96, 0.02, 3);
  const Matrix sparseB = generate("uniform", Operand::B, 96, 96, 0.02, 4);
  std::string eagerSkip = failure(eager, requestFor(sparseA, sparseB, "joint-8x32"));
  EXPECT_EQ(eagerSkip.rfind("kernel joint-8x32 gave a wrong C (", 0), 0u) << eagerSkip;
  FakeBackend right;
  EXPECT_EQ(failure(right, requestFor(sparseA, sparseB, "joint-8x32")), "") << "the same operands pass a right kernel";

  // Not verified, the same C comes back, and its NaN are said.
  MultiplyRequest unchecked = requestFor(a, b, "pipelined");
  unchecked.verify = false;
  MultiplyResult r = multiply(wrong, std::move(unchecked));
  EXPECT_FALSE(r.verification.has_value());
  EXPECT_EQ(r.checked(), "not verified");
  EXPECT_EQ(r.inC.nan, 12u);
  EXPECT_EQ(r.nonFiniteNote, "C holds 12 NaN although A and B are finite: the products overflow fp32");
}

TEST(Multiply, NonFiniteInputsAreComputedWithAndSaid) {
  // As `tileskip run` says it: row 1 meets the NaN and row 4 the Inf in every column.
  Matrix a = generate("uniform", Operand::A, 6, 16, 1.0, 4);
  a(1, 3) = std::numeric_limits<float>::quiet_NaN();
  a(4, 9) = std::numeric_limits<float>::infinity();
  const Matrix b = generate("uniform", Operand::B, 16, 5, 1.0, 5);
  std::unique_ptr<Backend> cpu = cpuBackend();
  MultiplyResult r = multiply(*cpu, requestFor(a, b));
  EXPECT_EQ(r.nonFiniteNote, "the inputs hold NaN/Inf (A: 1 NaN and 1 Inf; B: no NaN or Inf), computed with IEEE "
                             "arithmetic: C holds 5 NaN and 5 Inf");
  EXPECT_EQ(r.checked().rfind("its finite elements verified against the float64 reference (", 0), 0u) << r.checked();

  // An Inf facing a zero K-block of B: the reference forms Inf·0 = NaN there, a skipping kernel
  // skips the product, and the note counts the difference without failing.
  Matrix inf = generate("uniform", Operand::A, 16, 16, 1.0, 6);
  inf(0, 2) = std::numeric_limits<float>::infinity();
  Matrix zeroBlock = generate("uniform", Operand::B, 16, 32, 1.0, 7);
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 32; ++j) zeroBlock(k, j) = 0.0f;
  }
  FakeBackend backend;
  MultiplyResult skipped = multiply(backend, requestFor(inf, zeroBlock, "joint-8x32"));
  EXPECT_TRUE(skipped.verification->passed);
  EXPECT_EQ(skipped.verification->mismatchedNonFinite, 32u);
  EXPECT_NE(skipped.nonFiniteNote.find("; 32 elements of C differ from the reference, which forms the 0·Inf = NaN "
                                       "products that joint-8x32 skips"),
            std::string::npos)
      << skipped.nonFiniteNote;
}

TEST(Multiply, TheDtypeRoundsOnceAndSaysWhatVanished) {
  Matrix a = generate("uniform", Operand::A, 16, 16, 1.0, 1);
  a(0, 0) = 1e-10f;  // below fp16's smallest subnormal
  a(3, 5) = 1e-9f;
  const Matrix b = generate("uniform", Operand::B, 16, 16, 1.0, 2);
  FakeBackend backend;
  MultiplyRequest request = requestFor(a, b, "mma");
  request.dtype = DType::Fp16;
  std::vector<std::string> said;
  request.onNote = [&](const std::string& note) { said.push_back(note); };
  MultiplyResult r = multiply(backend, std::move(request));
  const std::vector<std::string> expected = {"A: 2 non-zero value(s) below fp16's smallest subnormal became zero"};
  EXPECT_EQ(r.notes, expected);
  EXPECT_EQ(said, expected);
  // The kernel and the reference both saw the rounded values.
  Matrix roundedA = a, roundedB = b;
  roundOperand(roundedA, DType::Fp16, "A");
  roundOperand(roundedB, DType::Fp16, "B");
  EXPECT_EQ(roundedA(0, 0), 0.0f);
  EXPECT_TRUE(sameBits(r.c, referenceSgemm(roundedA, roundedB)));
  EXPECT_TRUE(r.verification->passed);

  Matrix tooLarge = generate("uniform", Operand::A, 16, 16, 1.0, 1);
  tooLarge(2, 2) = 70000.0f;
  MultiplyRequest overflow = requestFor(tooLarge, b, "mma");
  overflow.dtype = DType::Fp16;
  try {
    multiply(backend, std::move(overflow));
    FAIL() << "a value beyond fp16 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("A holds 1 value(s) beyond fp16's range"), std::string::npos) << e.what();
  }
}

TEST(Multiply, BadRequestsAreRefusedWithTheProjectsErrors) {
  std::unique_ptr<Backend> cpu = cpuBackend();
  const Matrix a = generate("uniform", Operand::A, 5, 6, 1.0, 1);
  const Matrix b = generate("uniform", Operand::B, 6, 4, 1.0, 2);
  auto inputError = [&](MultiplyRequest request, const std::string& expected) {
    SCOPED_TRACE(expected);
    int opened = 0;
    try {
      multiply([&]() -> Backend& { ++opened; return *cpu; }, std::move(request));
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    return opened;
  };
  // Operands that cannot multiply are refused before the backend is opened.
  EXPECT_EQ(inputError(requestFor(a, a), "shapes do not agree: A is 5x6 and B is 5x6"), 0);
  MultiplyRequest noRepeats = requestFor(a, b);
  noRepeats.repeat = 0;
  EXPECT_EQ(inputError(std::move(noRepeats), "--repeat must be at least 1"), 0);
  // What the backend cannot run is refused once it is open.
  EXPECT_EQ(inputError(requestFor(a, b, "pipelined"), "backend 'cpu' does not implement kernel 'pipelined'"), 1);
  MultiplyRequest bf16 = requestFor(a, b, "cpu");
  bf16.dtype = DType::Bf16;
  EXPECT_EQ(inputError(std::move(bf16), "kernel 'cpu' takes fp32 inputs, not bf16"), 1);
}

TEST(Multiply, KernelNamesAreOneIdOrAuto) {
  EXPECT_EQ(parseMultiplyKernel("auto", "--kernel", "run", true), nullptr);
  EXPECT_EQ(parseMultiplyKernel("joint-8x32", "kernel", "matmul", false), &kernelInfo("joint-8x32"));
  auto message = [](const std::string& name, bool autoAllowed) {
    try {
      parseMultiplyKernel(name, "--kernel", "run", autoAllowed);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("all", true), "--kernel 'all': run multiplies with one kernel; give a single id or auto");
  EXPECT_EQ(message("pipelined,naive", true),
            "--kernel 'pipelined,naive': run multiplies with one kernel; give a single id or auto");
  EXPECT_EQ(message("auto", false), "--kernel 'auto': run multiplies with one kernel; give a single id");
  EXPECT_NE(message("warpdrive", true).find("unknown kernel 'warpdrive'"), std::string::npos);
}

// A backend that takes "device" operands in host memory, as the CUDA backend takes the
// caller's tensors, so that the in-place path runs without a GPU.
class InPlaceBackend final : public Backend {
 public:
  std::string_view name() const override { return inner_.name(); }
  const DeviceInfo& device() const override { return inner_.device(); }
  bool implements(std::string_view id) const override { return inner_.implements(id); }
  using Backend::upload;
  std::unique_ptr<DeviceProblem> upload(const Matrix& a, const Matrix& b, DType dtype) override {
    return inner_.upload(a, b, dtype);
  }
  double multiplyInPlace(const KernelInfo& kernel, const DeviceOperands& operands) override {
    ran = &kernel;
    Matrix a(operands.m, operands.k), b(operands.k, operands.n);
    std::memcpy(a.data(), operands.a, a.bytes());
    std::memcpy(b.data(), operands.b, b.bytes());
    const Matrix c = referenceExact(a, b);
    std::memcpy(operands.c, c.data(), c.bytes());
    return 1.5;
  }
  const KernelInfo* ran = nullptr;

 private:
  FakeBackend inner_;
};

TEST(Multiply, OperandsInDeviceMemoryAreMultipliedInPlace) {
  const Matrix a = generate("blocks", Operand::A, 64, 64, 0.25, 1);
  const Matrix b = generate("blocks", Operand::B, 64, 64, 0.25, 2);
  Matrix c(64, 64);
  DeviceOperands operands{.a = a.data(), .b = b.data(), .c = c.data(), .m = 64, .n = 64, .k = 64};
  InPlaceBackend backend;
  MultiplyRequest request;
  request.inPlace = operands;
  request.kernel = &kernelInfo("joint-8x32");
  request.verify = false;
  MultiplyResult r = multiply(backend, request);
  EXPECT_EQ(backend.ran, &kernelInfo("joint-8x32"));
  EXPECT_EQ(r.kernelMs, 1.5);
  EXPECT_TRUE(r.c.empty());
  EXPECT_EQ(verifyProduct(c, a, b, "joint-8x32").passed, true);

  // auto chooses from host copies, as for host operands.
  request.kernel = nullptr;
  request.a = a;
  request.b = b;
  FakeBackend other;
  MultiplyResult chosen = multiply(backend, request);
  EXPECT_TRUE(chosen.automatic);
  EXPECT_EQ(backend.ran, chosen.kernel);
  EXPECT_EQ(chosen.kernel, chooseAuto(other, a, b, ProblemSpec{}).kernel);

  // What the in-place path cannot do is refused, not skipped.
  MultiplyRequest blind = request;
  blind.a = Matrix();
  blind.b = Matrix();
  EXPECT_THROW(multiply(backend, blind), InputError);
  MultiplyRequest verified = request;
  verified.verify = true;
  EXPECT_THROW(multiply(backend, verified), InputError);
  // A backend that cannot take device memory from outside says so.
  std::unique_ptr<Backend> cpu = cpuBackend();
  MultiplyRequest onCpu = request;
  onCpu.kernel = &kernelInfo("cpu");
  EXPECT_THROW(multiply(*cpu, onCpu), UnavailableError);
}

TEST(Multiply, VerifyProductNamesTheKernelOfAWrongC) {
  const Matrix a = generate("uniform", Operand::A, 8, 8, 1.0, 1);
  const Matrix b = generate("uniform", Operand::B, 8, 8, 1.0, 2);
  Matrix c = referenceSgemm(a, b);
  EXPECT_TRUE(verifyProduct(c, a, b, "k").passed);
  c(3, 4) += 1.0f;
  try {
    verifyProduct(c, a, b, "k");
    FAIL() << "a wrong C passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::VerificationFailed);
    EXPECT_EQ(std::string(e.what()).rfind("kernel k gave a wrong C (", 0), 0u) << e.what();
  }
}

TEST(MultiplySession, ChecksEachKernelOnceThenTimesIt) {
  FakeBackend backend;
  ProblemData data{generate("segments", Operand::A, 48, 40, 0.5, 1), generate("segments", Operand::B, 40, 32, 0.5, 2)};
  const ReferenceProduct reference = referenceProduct(data.a, data.b);
  MultiplySession session(backend, data.a, data.b, DType::Fp32);
  EXPECT_TRUE(session.verify(kernelInfo("joint-8x32"), data, reference).passed());
  EXPECT_TRUE(session.verify(kernelInfo("pipelined"), data, reference).passed());
  EXPECT_DOUBLE_EQ(session.time(kernelInfo("pipelined")), 2.0);
  KernelProduct product = session.product(kernelInfo("joint-8x32"));
  EXPECT_TRUE(compareToReference(product.c, reference).passed);

  // Patterns that differ from the CPU's fail the check even where C comes out right.
  FakeBackend corrupt({.corruptPatterns = true});
  MultiplySession wrong(corrupt, data.a, data.b, DType::Fp32);
  VerifyResult result = wrong.verify(kernelInfo("joint-8x32"), data, reference);
  EXPECT_FALSE(result.passed());
  EXPECT_NE(result.failure.find("device A-pattern"), std::string::npos) << result.failure;
}

// The same use case on Vulkan (lavapipe in CI), with the validation layers where
// TILESKIP_VALIDATION=1: any message they report fails.
TEST(Multiply, OnVulkanNamedAutoAndReordered) {
  std::unique_ptr<Backend> vulkan;
  try {
    vulkan = openBackend("vulkan", {.deviceIndex = -1, .validation = envFlag("TILESKIP_VALIDATION")});
  } catch (const Error& e) {
    if (backendRequired("vulkan")) FAIL() << "vulkan is required here but unavailable: " << e.what();
    GTEST_SKIP() << "vulkan unavailable: " << e.what();
  }
  const Matrix a = scrambledBlocks();
  const Matrix b = wholeNumbers(generate("uniform", Operand::B, 64, 40, 1.0, 6));
  const Matrix exact = referenceExact(a, b);
  MultiplyResult named = multiply(*vulkan, requestFor(a, b, "joint-8x32"));
  EXPECT_EQ(named.kernel->id, "joint-8x32");
  EXPECT_TRUE(named.verification->passed);
  EXPECT_TRUE(sameBits(named.c, exact));

  MultiplyResult chosen = multiply(*vulkan, requestFor(a, b));
  EXPECT_TRUE(chosen.automatic);
  EXPECT_TRUE(vulkan->implements(chosen.kernel->id));
  EXPECT_TRUE(sameBits(chosen.c, exact));

  MultiplyRequest request = requestFor(a, b, "joint-32x32");
  request.reorder = true;
  request.repeat = 2;
  MultiplyResult reordered = multiply(*vulkan, std::move(request));
  EXPECT_EQ(reordered.timedRuns, 2);
  EXPECT_GT(reordered.kernelMs, 0.0);
  EXPECT_GT(reordered.prepareMs, 0.0);  // the patterns, built on the device
  EXPECT_TRUE(sameBits(reordered.c, exact));
  EXPECT_TRUE(vulkan->takeDiagnostics().empty());
}

}  // namespace
}  // namespace tileskip
