// Every kernel of every backend compiled into this build, against the CPU reference on the
// whole correctness suite (core/measure/verify_suite.hpp), with device patterns compared byte for
// byte. A backend that cannot run here (no GPU, no driver) skips with its reason, unless it is
// named in TILESKIP_REQUIRE_BACKENDS (comma separated), where being unavailable is a failure.
// TILESKIP_VALIDATION=1 turns on API validation; any message it reports fails the test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "backends/backend_registry.hpp"
#include "core/model/error.hpp"
#include "core/measure/verify_suite.hpp"
#include "core/process/sanitizers.hpp"
#include "test_environment.hpp"

using namespace tileskip;

namespace {

using tileskip::testing::envFlag;

// Opened once per process: opening a GPU backend costs far more than one kernel's suite.
BackendStatus& backendStatus(const std::string& name) {
  static std::map<std::string, BackendStatus> opened;
  auto it = opened.find(name);
  if (it == opened.end()) {
    BackendStatus status{name, nullptr, {}};
    try {
      status.backend = openBackend(name, {.deviceIndex = -1, .validation = envFlag("TILESKIP_VALIDATION")});
    } catch (const std::exception& e) {
      status.unavailableReason = e.what();
    }
    it = opened.emplace(name, std::move(status)).first;
  }
  return it->second;
}

struct KernelOnBackend {
  std::string backend;
  std::string kernel;
};

void PrintTo(const KernelOnBackend& p, std::ostream* out) { *out << p.backend << " " << p.kernel; }

std::vector<KernelOnBackend> everyPair() {
  std::vector<KernelOnBackend> pairs;
  for (const BackendEntry& entry : compiledBackends()) {
    for (const KernelInfo& k : kCatalogue) pairs.push_back({std::string(entry.name), std::string(k.id)});
  }
  return pairs;
}

#define OPEN_OR_SKIP(name, backend)                                                                    \
  BackendStatus& status_ = backendStatus(name);                                                        \
  if (!status_.backend) {                                                                              \
    if (tileskip::testing::backendRequired(name)) FAIL() << name << " is required here but unavailable: " << status_.unavailableReason; \
    GTEST_SKIP() << name << " unavailable: " << status_.unavailableReason;                             \
  }                                                                                                    \
  Backend& backend = *status_.backend

}  // namespace

class KernelConformance : public ::testing::TestWithParam<KernelOnBackend> {};

namespace {

// The whole verify suite, or the quick one (every adversarial input at one odd shape, the partial
// tiles and K-blocks included) where the whole adds nothing the run is there for: under
// AddressSanitizer, which checks the host side of each backend (uploads, descriptors, passes)
// and never sees lavapipe run the shaders on more shapes, and in the Vulkan runs at lavapipe's
// other subgroup sizes (TILESKIP_QUICK_CONFORMANCE, set by tests/CMakeLists.txt), which change how
// a subgroup's votes and shuffles fall, not which shapes reach the kernel.
std::vector<VerifyCase> conformanceCases() {
#if defined(TILESKIP_ADDRESS_SANITIZER)
  return verifyCases(true);
#else
  return verifyCases(std::getenv("TILESKIP_QUICK_CONFORMANCE") != nullptr);
#endif
}

}  // namespace

TEST_P(KernelConformance, PassesTheVerifySuite) {
  const KernelOnBackend& p = GetParam();
  OPEN_OR_SKIP(p.backend, backend);
  if (!backend.implements(p.kernel)) GTEST_SKIP() << p.backend << " does not implement " << p.kernel;
  RecordProperty("device", backend.device().describe());
  std::vector<VerifyResult> results = runVerify(backend, {&kernelInfo(p.kernel)}, conformanceCases());
  ASSERT_FALSE(results.empty());
  for (const VerifyResult& r : results) {
    EXPECT_TRUE(r.passed()) << p.backend << " " << p.kernel << " " << r.caseName << ": " << r.failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, KernelConformance, ::testing::ValuesIn(everyPair()),
                         [](const ::testing::TestParamInfo<KernelOnBackend>& param) {
                           std::string name = param.param.backend + "_" + param.param.kernel;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

class BackendContract : public ::testing::TestWithParam<std::string> {};

// A GPU backend implements every twin kernel of the catalogue, not a subset.
TEST_P(BackendContract, GpuBackendsImplementTheWholeCatalogue) {
  OPEN_OR_SKIP(GetParam(), backend);
  if (GetParam() == "cpu") GTEST_SKIP() << "the cpu backend is a baseline only";
  for (const KernelInfo& k : twinKernels()) {
    // A tensor-core kernel needs the device's matrix units: a CPU device (lavapipe) has none.
    if (k.usesTensorCores() && !backend.device().isGpu) continue;
    if (k.needsHopper()) {
      // Hopper's own instructions: the cuda backend on compute capability 9.0 only, never Vulkan.
      const bool hopper = GetParam() == "cuda" && backend.device().api.find("compute capability 9.0") != std::string::npos;
      EXPECT_EQ(backend.implements(k.id), hopper) << GetParam() << " " << k.id << " on " << backend.device().api;
      continue;
    }
    EXPECT_TRUE(backend.implements(k.id)) << GetParam() << " lacks " << k.id;
  }
}

TEST_P(BackendContract, DescribesItsDevice) {
  OPEN_OR_SKIP(GetParam(), backend);
  EXPECT_FALSE(backend.device().name.empty());
  EXPECT_FALSE(backend.kernels().empty());
}

TEST_P(BackendContract, RejectsShapesThatDoNotMultiply) {
  OPEN_OR_SKIP(GetParam(), backend);
  EXPECT_THROW(backend.upload(Matrix(4, 5), Matrix(6, 4)), InputError);
}

std::vector<std::string> compiledNames() {
  std::vector<std::string> names;
  for (const BackendEntry& e : compiledBackends()) names.emplace_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Compiled, BackendContract, ::testing::ValuesIn(compiledNames()));

TEST(Registry, UnknownAndMissingBackendsAreInputErrors) {
  EXPECT_THROW(openBackend("opencl"), InputError);
  try {
    openBackend("nonsense");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos);  // lists what is there
  }
}

// Where the cuda and the vulkan backend both run (an NVIDIA GPU has both), the two twins of every
// kernel give the same C on the same inputs, within the fp32 tolerance of the one error measure.
TEST(CrossBackend, CudaAndVulkanTwinsGiveTheSameC) {
  BackendStatus& cuda = backendStatus("cuda");
  BackendStatus& vulkan = backendStatus("vulkan");
  if (!cuda.backend || !vulkan.backend) {
    GTEST_SKIP() << "needs both the cuda and the vulkan backend; cuda: "
                 << (cuda.backend ? "available" : cuda.unavailableReason)
                 << "; vulkan: " << (vulkan.backend ? "available" : vulkan.unavailableReason);
  }
  Matrix a = generate("segments", Operand::A, 300, 260, 0.5, 11);
  Matrix b = generate("segments", Operand::B, 260, 200, 0.5, 12);
  ReferenceProduct reference = referenceProduct(a, b);
  std::unique_ptr<DeviceProblem> onCuda = cuda.backend->upload(a, b);
  std::unique_ptr<DeviceProblem> onVulkan = vulkan.backend->upload(a, b);
  int compared = 0;
  for (const KernelInfo& k : twinKernels()) {
    // An fp32 problem: the tensor-core kernels take 16-bit inputs (checked by Inputs.* and verify).
    if (!k.takes(DType::Fp32) || !cuda.backend->implements(k.id) || !vulkan.backend->implements(k.id)) continue;
    onCuda->poisonC();
    onVulkan->poisonC();
    onCuda->run(k);
    onVulkan->run(k);
    // Each within the bound of the float64 reference: the two differ by at most twice the bound.
    ErrorReport onCudaError = compareToReference(onCuda->downloadC(), reference);
    ErrorReport onVulkanError = compareToReference(onVulkan->downloadC(), reference);
    EXPECT_TRUE(onCudaError.passed) << k.id << ": cuda " << onCudaError.summary();
    EXPECT_TRUE(onVulkanError.passed) << k.id << ": vulkan " << onVulkanError.summary();
    ++compared;
  }
  EXPECT_GT(compared, 0);
}
