// The MLP layer use case that `tileskip mlp` and Python's tileskip.mlp share
// (core/measure/mlp.hpp): Y = act(X·W1)·W2 exactly where the values are whole numbers, on the
// cpu backend, the fake one (which can be made wrong) and, where it runs, Vulkan with the
// validation layers; the activation's edges; each GEMM's verification; the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backends/backend_registry.hpp"
#include "core/measure/mlp.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/dtype.hpp"
#include "core/model/reference.hpp"
#include "fake_backend.hpp"
#include "test_environment.hpp"

namespace tileskip {
namespace {

using testing::FakeBackend;

// Small whole numbers: every product and sum is exact in fp32 and float64 alike, so Y is known
// bit for bit whatever order a kernel sums in.
Matrix whole(int rows, int cols, std::uint64_t seed, double density = 1.0) {
  Matrix m = generate("uniform", Operand::A, rows, cols, density, seed);
  for (float& x : m.values()) x = std::nearbyint(6.0f * x);
  return m;
}

// act(X·W1)·W2 in float64, exact for whole numbers.
Matrix expectedLayer(const Matrix& x, const Matrix& w1, const Matrix& w2, Activation activation) {
  Matrix h = referenceExact(x, w1);
  applyActivation(h, activation);
  return referenceExact(h, w2);
}

bool sameBits(const Matrix& x, const Matrix& y) {
  return x.rows() == y.rows() && x.cols() == y.cols() && std::memcmp(x.data(), y.data(), x.bytes()) == 0;
}

MlpRequest layer(Matrix x, Matrix w1, Matrix w2) {
  MlpRequest request;
  request.x = std::move(x);
  request.w1 = std::move(w1);
  request.w2 = std::move(w2);
  return request;
}

MlpResult runOn(Backend& backend, MlpRequest request) {
  return runMlp([&backend]() -> Backend& { return backend; }, std::move(request));
}

TEST(Mlp, ReluLayerIsExactOnOddShapesAndEachGemmIsVerified) {
  const std::unique_ptr<Backend> cpu = openBackend("cpu");
  const Matrix x = whole(37, 23, 1), w1 = whole(23, 45, 2), w2 = whole(45, 19, 3);
  const Matrix expected = expectedLayer(x, w1, w2, Activation::Relu);
  MlpResult result = runOn(*cpu, layer(x, w1, w2));
  EXPECT_TRUE(sameBits(result.y, expected));
  ASSERT_TRUE(result.layer.first.verification && result.layer.second.verification);
  EXPECT_TRUE(result.layer.first.verification->passed && result.layer.second.verification->passed);
  // ReLU zeroed about half of H, and the density says how much exactly.
  Matrix h = referenceExact(x, w1);
  applyActivation(h, Activation::Relu);
  EXPECT_DOUBLE_EQ(result.hiddenDensity, h.nonZeroFraction());
  EXPECT_GT(result.hiddenDensity, 0.2);
  EXPECT_LT(result.hiddenDensity, 0.8);
  EXPECT_FALSE(result.compared);

  MlpRequest linear = layer(x, w1, w2);
  linear.activation = Activation::None;
  EXPECT_TRUE(sameBits(runOn(*cpu, std::move(linear)).y, expectedLayer(x, w1, w2, Activation::None)));
  EXPECT_FALSE(sameBits(expectedLayer(x, w1, w2, Activation::None), expected)) << "the activation changes this layer";
}

TEST(Mlp, SilentNeuronsGiveZerosAndOneLiveNeuronItsRowOfW2) {
  const std::unique_ptr<Backend> cpu = openBackend("cpu");
  Matrix x = whole(20, 9, 4);
  for (float& v : x.values()) v = std::fabs(v) + 1.0f;  // positive inputs
  Matrix w1(9, 30);
  for (float& v : w1.values()) v = -1.0f;  // every neuron negative on every token
  const Matrix w2 = whole(30, 11, 5);
  MlpResult silent = runOn(*cpu, layer(x, w1, w2));
  EXPECT_EQ(silent.hiddenDensity, 0.0);
  for (float v : silent.y.values()) ASSERT_EQ(v, 0.0f);
  EXPECT_FALSE(std::signbit(silent.y(0, 0))) << "ReLU writes +0";

  w1(0, 17) = 20.0f;  // neuron 17 fires on every token
  const Matrix expected = expectedLayer(x, w1, w2, Activation::Relu);
  MlpResult one = runOn(*cpu, layer(x, w1, w2));
  EXPECT_TRUE(sameBits(one.y, expected));
  EXPECT_DOUBLE_EQ(one.hiddenDensity, 1.0 / 30.0);
}

TEST(Mlp, ReluKeepsNaNAndClearsNegativeZero) {
  Matrix h(1, 5);
  h(0, 0) = -0.0f;
  h(0, 1) = std::numeric_limits<float>::quiet_NaN();
  h(0, 2) = -std::numeric_limits<float>::infinity();
  h(0, 3) = 2.5f;
  h(0, 4) = -3.0f;
  applyActivation(h, Activation::Relu);
  EXPECT_FALSE(std::signbit(h(0, 0)));
  EXPECT_EQ(h(0, 0), 0.0f);
  EXPECT_TRUE(std::isnan(h(0, 1)));
  EXPECT_EQ(h(0, 2), 0.0f);
  EXPECT_EQ(h(0, 3), 2.5f);
  EXPECT_EQ(h(0, 4), 0.0f);
}

TEST(Mlp, AWrongSecondGemmFailsVerificationWithItsKernel) {
  // A sparse H (sparse X and W1, then ReLU) and a sparse W2: an eager skip of H·W2 drops products
  // that count.
  const Matrix x = whole(96, 16, 6, 0.1), w1 = whole(16, 96, 7, 0.1), w2 = whole(96, 96, 8, 0.02);
  FakeBackend eager({.skipSingleProducts = true});
  MlpRequest request = layer(x, w1, w2);
  request.first = &kernelInfo("pipelined");
  request.second = &kernelInfo("joint-8x32");
  try {
    runOn(eager, std::move(request));
    FAIL() << "a wrong H·W2 passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::VerificationFailed);
    EXPECT_EQ(std::string(e.what()).rfind("kernel joint-8x32 gave a wrong C (", 0), 0u) << e.what();
  }
  FakeBackend right;
  MlpRequest same = layer(x, w1, w2);
  same.first = &kernelInfo("pipelined");
  same.second = &kernelInfo("joint-8x32");
  const MlpResult good = runOn(right, std::move(same));
  EXPECT_TRUE(sameBits(good.y, expectedLayer(x, w1, w2, Activation::Relu)));
  EXPECT_GT(good.hiddenDensity, 0.0);
  EXPECT_LT(good.hiddenDensity, 0.2);
}

TEST(Mlp, ComparedLayerAndReorderedNeuronsGiveTheSameY) {
  FakeBackend fake;
  const Matrix x = whole(64, 12, 9), w1 = whole(12, 80, 10), w2 = whole(80, 24, 11);
  const Matrix expected = expectedLayer(x, w1, w2, Activation::Relu);
  MlpRequest request = layer(x, w1, w2);
  request.compare = &kernelInfo("pipelined");
  request.reorder = true;
  request.repeat = 3;
  std::vector<std::string> told;
  request.onNote = [&](const std::string& note) { told.push_back(note); };
  MlpResult result = runOn(fake, std::move(request));
  EXPECT_TRUE(sameBits(result.y, expected));
  ASSERT_TRUE(result.compared);
  EXPECT_EQ(result.compared->first.kernel->id, "pipelined");
  EXPECT_EQ(result.compared->second.kernel->id, "pipelined");
  EXPECT_EQ(result.layer.second.timedRuns, 3);
  EXPECT_GT(result.compared->layerMs(), 0.0);
  EXPECT_DOUBLE_EQ(result.layer.layerMs(),
                   result.layer.first.kernelMs + result.layer.second.prepareMs + result.layer.second.kernelMs);
  // The reordering's note is the second GEMM's, said as it came and kept.
  EXPECT_EQ(told, result.notes);
  bool reorderSaid = false;
  for (const std::string& note : result.notes) reorderSaid |= note.rfind("H·W2: reordered", 0) == 0 || note.rfind("H·W2: sorted", 0) == 0;
  EXPECT_TRUE(reorderSaid) << ::testing::PrintToString(result.notes);
}

TEST(Mlp, BadShapesAndActivationsAreRefusedBeforeTheBackendOpens) {
  auto refused = [](Matrix x, Matrix w1, Matrix w2) {
    bool opened = false;
    try {
      runMlp([&]() -> Backend& {
        opened = true;
        throw UnavailableError("no backend here");
      }, layer(std::move(x), std::move(w1), std::move(w2)));
    } catch (const InputError& e) {
      EXPECT_FALSE(opened);
      return std::string(e.what());
    }
    ADD_FAILURE() << "accepted";
    return std::string();
  };
  EXPECT_EQ(refused(Matrix(4, 3), Matrix(5, 6), Matrix(6, 2)),
            "W1 is 5x6 but X has 3 columns: X·W1 needs W1 with as many rows as X has columns");
  EXPECT_EQ(refused(Matrix(4, 3), Matrix(3, 6), Matrix(7, 2)),
            "W2 is 7x2 but W1 has 6 columns (the hidden width): H·W2 needs W2 with as many rows as W1 has columns");
  EXPECT_EQ(refused(Matrix(), Matrix(3, 6), Matrix(6, 2)), "X, W1 and W2 must each hold at least one element");
  EXPECT_EQ(parseActivation("relu"), Activation::Relu);
  EXPECT_EQ(parseActivation("none"), Activation::None);
  EXPECT_THROW(parseActivation("gelu"), InputError);
  EXPECT_EQ(activationName(Activation::Relu), "relu");
}

// H as a fused first GEMM stores it (after the ReLU, rounded once to the 16-bit type) passes
// against the float64 product within one rounding more than fp32's bound; a value a few of the
// type's units off, or an H that missed the ReLU, does not.
TEST(Mlp, AStoredHiddenLayerIsCheckedAfterItsActivationAndOneRounding) {
  const Matrix x = generate("uniform", Operand::A, 24, 50, 1.0, 21), w1 = generate("uniform", Operand::B, 50, 40, 1.0, 22);
  const ReferenceProduct reference = referenceProduct(x, w1);
  Matrix h = reference.rounded();
  applyActivation(h, Activation::Relu);
  roundMatrix(h, DType::Bf16);
  EXPECT_TRUE(compareToReference(h, reference, {true, DType::Bf16}).passed);
  EXPECT_FALSE(compareToReference(h, reference).passed) << "fp32's bound alone is tighter than a bf16 rounding";
  Matrix off = h;
  int bumped = 0;
  for (float& v : off.values()) {
    if (v > 0.5f && bumped++ == 0) v *= 1.0f + 4.0f / 256.0f;  // four bf16 units
  }
  ASSERT_EQ(bumped > 0, true);
  EXPECT_FALSE(compareToReference(off, reference, {true, DType::Bf16}).passed);
  Matrix linear = reference.rounded();
  roundMatrix(linear, DType::Bf16);
  EXPECT_FALSE(compareToReference(linear, reference, {true, DType::Bf16}).passed) << "the ReLU was not applied";
  EXPECT_TRUE(compareToReference(linear, reference, {false, DType::Bf16}).passed);
}

// The layer on Vulkan (lavapipe in CI), with the validation layers where TILESKIP_VALIDATION=1:
// any message they report fails.
TEST(Mlp, OnVulkanTheLayerIsExact) {
  std::unique_ptr<Backend> vulkan;
  try {
    vulkan = openBackend("vulkan", {.deviceIndex = -1, .validation = testing::envFlag("TILESKIP_VALIDATION")});
  } catch (const Error& e) {
    if (testing::backendRequired("vulkan")) FAIL() << "vulkan is required here but unavailable: " << e.what();
    GTEST_SKIP() << "vulkan unavailable: " << e.what();
  }
  const Matrix x = whole(70, 40, 12), w1 = whole(40, 130, 13), w2 = whole(130, 33, 14);
  MlpRequest request = layer(x, w1, w2);
  request.first = &kernelInfo("warptile");
  request.compare = &kernelInfo("hoisted");
  MlpResult result = runOn(*vulkan, std::move(request));
  EXPECT_TRUE(sameBits(result.y, expectedLayer(x, w1, w2, Activation::Relu)));
  EXPECT_TRUE(vulkan->implements(result.layer.second.kernel->id));
  EXPECT_TRUE(vulkan->takeDiagnostics().empty());
}

}  // namespace
}  // namespace tileskip
