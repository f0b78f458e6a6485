// The cuda backend as a process sees it: loading libtileskip_cuda.so from beside the executable,
// the reasons it gives when it cannot run (no module, a foreign library, no driver, no GPU),
// and, on a GPU, the parts of its contract the verify suite does not reach. Built only when the
// CUDA backend is; the tests that need a device skip with the backend's own reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "backends/backend_registry.hpp"
#include "core/model/error.hpp"
#include "core/model/dtype.hpp"
#include "core/model/generators.hpp"
#include "core/model/pattern.hpp"
#include "core/process/runtime_module.hpp"
#include "run_command.hpp"
#include "scoped_env.hpp"

using namespace tileskip;
using tileskip::testing::ScopedEnv;

namespace {


std::string unavailableReason(const BackendOptions& options = {}) {
  try {
    openBackend("cuda", options);
  } catch (const UnavailableError& e) {
    return e.what();
  }
  return "";
}

bool mentionsAny(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(CudaModule, SitsBesideTheExecutable) {
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::path(executableFolder()) / "libtileskip_cuda.so"))
      << "the build puts libtileskip_cuda.so in " << executableFolder();
}

// Opening either works (a GPU) or fails with UnavailableError, which also shows that an
// exception thrown inside the module is caught by its type out here.
TEST(CudaModule, OpensOrSaysWhyNot) {
  try {
    std::unique_ptr<Backend> cuda = openBackend("cuda");
    EXPECT_TRUE(cuda->device().isGpu);
    EXPECT_EQ(cuda->device().subgroupSize, 32);
    EXPECT_NE(cuda->device().api.find("TF32 off"), std::string::npos) << cuda->device().api;
    for (const KernelInfo& k : kCatalogue) {
      EXPECT_EQ(cuda->implements(k.id), k.id != "cpu") << k.id;
    }
  } catch (const UnavailableError& e) {
    EXPECT_TRUE(mentionsAny(e.what(), {"driver", "GPU", "device", "CUDA", "module"})) << e.what();
  }
}

TEST(CudaModule, AMissingModuleIsUnavailableNamingItsPath) {
  ScopedEnv module("TILESKIP_CUDA_MODULE", "/nonexistent/libtileskip_cuda.so");
  const std::string reason = unavailableReason();
  EXPECT_NE(reason.find("/nonexistent/libtileskip_cuda.so"), std::string::npos) << reason;
  EXPECT_NE(reason.find("LD_LIBRARY_PATH"), std::string::npos) << reason;
}

TEST(CudaModule, ALibraryThatIsNotTheModuleIsRefused) {
  ScopedEnv module("TILESKIP_CUDA_MODULE", "libm.so.6");
  const std::string reason = unavailableReason();
  EXPECT_NE(reason.find("is not a tileskip CUDA module"), std::string::npos) << reason;
}

TEST(CudaModule, TheRestWorksWhateverCudaSays) {
  ScopedEnv module("TILESKIP_CUDA_MODULE", "/nonexistent/libtileskip_cuda.so");
  std::vector<BackendStatus> found = discoverBackends();
  bool sawCuda = false, sawCpu = false;
  for (const BackendStatus& s : found) {
    if (s.name == "cuda") {
      sawCuda = true;
      EXPECT_FALSE(s.backend);
      EXPECT_FALSE(s.unavailableReason.empty());
    }
    if (s.name == "cpu") sawCpu = s.backend != nullptr;
  }
  EXPECT_TRUE(sawCuda);
  EXPECT_TRUE(sawCpu);
  EXPECT_NO_THROW(openBestBackend());
}

// ---- on a device ----

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      cuda_ = openBackend("cuda");
    } catch (const UnavailableError& e) {
      GTEST_SKIP() << "cuda unavailable: " << e.what();
    }
  }
  std::unique_ptr<Backend> cuda_;
};

TEST_F(CudaDevice, ADeviceIndexThatDoesNotExistIsAnInputError) {
  EXPECT_THROW(openBackend("cuda", {.deviceIndex = 4096, .validation = false}), InputError);
}

TEST_F(CudaDevice, PreparationIsTimedWhereThereIsWork) {
  Matrix a = generate("segments", Operand::A, 300, 260, 0.5, 3);
  Matrix b = generate("segments", Operand::B, 260, 200, 0.5, 4);
  std::unique_ptr<DeviceProblem> problem = cuda_->upload(a, b);
  EXPECT_EQ(problem->prepare(kernelInfo("warptile")), 0.0);
  EXPECT_GT(problem->prepare(kernelInfo("joint-8x32")), 0.0);
  EXPECT_GT(problem->prepare(kernelInfo("cusparse-csr")), 0.0);
  EXPECT_GT(problem->run(kernelInfo("joint-8x32")), 0.0);
  EXPECT_GT(problem->run(kernelInfo("cublas")), 0.0);
}

// A 16-bit problem's patterns come from its 16-bit copies where their rows are whole 16-byte
// words, else from the fp32 values: either way the host's bytes. Its copies are made once, timed
// apart from any kernel's preparation.
TEST_F(CudaDevice, SixteenBitPatternsEqualTheHostsAndTheRoundingIsTimedApart) {
  struct Shape {
    int m, n, k;
  };
  for (Shape s : {Shape{130, 264, 256}, Shape{67, 70, 130}}) {
    GeneratorOptions options;
    options.block = 8;
    Matrix a = generate("segments", Operand::A, s.m, s.k, 0.4, 11, options);
    Matrix b = generate("segments", Operand::B, s.k, s.n, 0.4, 12, options);
    roundMatrix(a, DType::Bf16);
    roundMatrix(b, DType::Bf16);
    std::unique_ptr<DeviceProblem> problem = cuda_->upload(a, b, DType::Bf16);
    EXPECT_EQ(problem->roundingMs(), 0.0);
    const KernelInfo& joint = kernelInfo("mma-joint-64x32");
    problem->prepare(joint);
    const double rounding = problem->roundingMs();
    EXPECT_GT(rounding, 0.0);
    problem->prepare(joint);
    EXPECT_EQ(problem->roundingMs(), rounding) << "made once per problem";
    const std::string where = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    EXPECT_EQ(problem->downloadPattern(Operand::A, joint.aGranularity).bits, buildAPattern(a, joint.aGranularity).bits) << where;
    EXPECT_EQ(problem->downloadPattern(Operand::B, joint.bGranularity).bits, buildBPattern(b, joint.bGranularity).bits) << where;
    // A static A: B's pattern alone is built again per call, and both stay right.
    const std::optional<double> keepingA = problem->prepareKeepingA(joint);
    ASSERT_TRUE(keepingA.has_value()) << where;
    EXPECT_GT(*keepingA, 0.0) << where;
    EXPECT_EQ(problem->downloadPattern(Operand::A, joint.aGranularity).bits, buildAPattern(a, joint.aGranularity).bits) << where;
    EXPECT_EQ(problem->downloadPattern(Operand::B, joint.bGranularity).bits, buildBPattern(b, joint.bGranularity).bits) << where;
  }
}

TEST_F(CudaDevice, MisuseIsAnInputErrorNotACrash) {
  std::unique_ptr<DeviceProblem> problem = cuda_->upload(Matrix(40, 30), Matrix(30, 20));
  EXPECT_THROW(problem->downloadPattern(Operand::A, 8), InputError);  // nothing prepared yet
  EXPECT_THROW(problem->run(kernelInfo("cpu")), InputError);
  problem->run(kernelInfo("a-row"));  // prepares its own pattern first
  EXPECT_EQ(problem->downloadPattern(Operand::A, 8).bits.size(), 5u * 4u);
  EXPECT_THROW(problem->downloadPattern(Operand::B, 32), InputError);
}

// A failure the GPU reports reaches the user as exit 3 with the driver's reason, and
// `run` writes no C. The faulting module (tests/cuda_fault/) is the product's with a kernel table
// whose kernels fail: a store to an unmapped address (the context is lost and the error shows at
// the next synchronisation), or a launch of a block no GPU allows (refused at once).
TEST_F(CudaDevice, AKernelThatFaultsOrALaunchThatIsRefusedIsExitThreeAndWritesNothing) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_cuda_fault_");
  ASSERT_EQ(tileskip::testing::runTileskip("gen --rows 64 --cols 64 --out " + (dir / "a.npy").string()).exitCode, 0);
  ASSERT_EQ(tileskip::testing::runTileskip("gen --rows 64 --cols 64 --operand B --out " + (dir / "b.npy").string()).exitCode, 0);
  const std::string operands = " --a " + (dir / "a.npy").string() + " --b " + (dir / "b.npy").string() + " --out ";
  for (const std::string fault : {"kernel", "launch"}) {
    std::filesystem::path out = tileskip::testing::emptyFolder(dir, fault) / "c.npy";
    const std::string prefix = "TILESKIP_CUDA_MODULE=" + std::string(TILESKIP_FAULTING_CUDA_MODULE) + " TILESKIP_TEST_CUDA_FAULT=" +
                               fault + " " + std::string(TILESKIP_BINARY) + " ";
    // The driver's words for a fault; for a refused launch, which error code it picks is its own.
    const std::string reason = fault == "kernel" ? "an illegal memory access was encountered" : "while launching kernel pipelined";
    tileskip::testing::Outcome run = tileskip::testing::runCommand(prefix + "run --backend cuda --kernel pipelined" + operands + out.string());
    EXPECT_EQ(run.exitCode, 3) << fault << "\n" << run.output;
    EXPECT_NE(run.output.find(reason), std::string::npos) << fault << "\n" << run.output;
    EXPECT_TRUE(std::filesystem::is_empty(out.parent_path())) << fault << ": run left a file behind";
    tileskip::testing::Outcome bench = tileskip::testing::runCommand(
        prefix + "bench --backend cuda --kernel pipelined --size 64 --warmup 0 --repeat 1 --no-baseline");
    EXPECT_EQ(bench.exitCode, 3) << fault << "\n" << bench.output;
    EXPECT_NE(bench.output.find(reason), std::string::npos) << fault << "\n" << bench.output;
  }
}
