// core/runtime_module: how the executables find, load and check the modules beside them (the
// CUDA backend's, the viewer's), and the reasons they give when a module cannot be used. The
// module here is a fixture built for the tests (runtime_module_fixture.cpp), so these run in
// every build, with or without CUDA and the viewer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/model/error.hpp"
#include "core/process/runtime_module.hpp"
#include "runtime_module_fixture.hpp"

using namespace tileskip;
namespace fs = std::filesystem;
using tileskip::testing::FixtureModule;

namespace {

constexpr const char* kPathVariable = "TILESKIP_TEST_MODULE";

RuntimeModuleSpec fixtureSpec(std::string_view fileName = "libtileskip_test_module.so",
                              std::string_view entrySymbol = "tileskip_test_module") {
  return {.description = "tileskip test module",
          .fileName = fileName,
          .pathVariable = kPathVariable,
          .entrySymbol = entrySymbol,
          .advice = "It needs the fixture's libraries (install them)"};
}

// The module path variable for the scope of a test.
class ModulePathOverride {
 public:
  explicit ModulePathOverride(const char* path) { setenv(kPathVariable, path, 1); }
  ~ModulePathOverride() { unsetenv(kPathVariable); }
  ModulePathOverride(const ModulePathOverride&) = delete;
  ModulePathOverride& operator=(const ModulePathOverride&) = delete;
};

std::string unavailableReason(const RuntimeModuleSpec& spec) {
  try {
    loadRuntimeModule<FixtureModule>(spec);
  } catch (const UnavailableError& e) {
    return e.what();
  }
  return "";
}

// The fixture's interface as a build whose ABI moved on would expect it.
struct NewerFixtureModule {
  ModuleStamp<2, int, double> stamp;
  int (*answer)();
};

// ... and as one where a type that crosses changed size.
struct ResizedFixtureModule {
  ModuleStamp<1, int, float> stamp;
  int (*answer)();
};

}  // namespace

TEST(RuntimeModule, ExecutableFolderHoldsTheRunningBinary) {
  EXPECT_TRUE(fs::is_regular_file(fs::path(executableFolder()) / "tileskip_tests")) << executableFolder();
}

TEST(RuntimeModule, BinaryFolderOfAnExecutableIsItsFolder) {
  // Core linked into an executable looks beside it (the Python extension: beside itself, which
  // tests/python checks).
  EXPECT_EQ(binaryFolder(), executableFolder());
}

TEST(RuntimeModule, LoadsTheModuleBesideTheExecutableAndCallsIt) {
  EXPECT_EQ(runtimeModulePath(fixtureSpec()), executableFolder() + "/libtileskip_test_module.so");
  const FixtureModule& module = loadRuntimeModule<FixtureModule>(fixtureSpec());
  EXPECT_EQ(module.answer(), 42);
  // Loading again finds the same module.
  EXPECT_EQ(&loadRuntimeModule<FixtureModule>(fixtureSpec()), &module);
}

TEST(RuntimeModule, AnExceptionThrownInsideIsCaughtByItsTypeOutside) {
  const FixtureModule& module = loadRuntimeModule<FixtureModule>(fixtureSpec());
  try {
    module.refuse();
    ADD_FAILURE() << "the fixture threw nothing";
  } catch (const UnavailableError& e) {
    EXPECT_STREQ(e.what(), "the fixture refuses");
    EXPECT_EQ(e.code(), ExitCode::Unavailable);
  }
}

TEST(RuntimeModule, AMissingModuleIsUnavailableNamingItsPathTheReasonAndWhatToDo) {
  const std::string reason = unavailableReason(fixtureSpec("libtileskip_no_such_module.so"));
  EXPECT_NE(reason.find(executableFolder() + "/libtileskip_no_such_module.so"), std::string::npos) << reason;
  EXPECT_NE(reason.find("No such file"), std::string::npos) << reason;  // the loader's own words
  EXPECT_NE(reason.find("It needs the fixture's libraries"), std::string::npos) << reason;
  EXPECT_NE(reason.find(kPathVariable), std::string::npos) << reason;
}

TEST(RuntimeModule, ThePathVariableLoadsAnotherFile) {
  ModulePathOverride elsewhere("/nonexistent/libtileskip_test_module.so");
  EXPECT_EQ(runtimeModulePath(fixtureSpec()), "/nonexistent/libtileskip_test_module.so");
  const std::string reason = unavailableReason(fixtureSpec());
  EXPECT_NE(reason.find("/nonexistent/libtileskip_test_module.so"), std::string::npos) << reason;
}

TEST(RuntimeModule, ALibraryWithoutTheEntrySymbolIsNotAModule) {
  ModulePathOverride elsewhere("libm.so.6");
  const std::string reason = unavailableReason(fixtureSpec());
  EXPECT_NE(reason.find("libm.so.6 is not a tileskip test module"), std::string::npos) << reason;
  EXPECT_NE(reason.find("tileskip_test_module"), std::string::npos) << reason;
}

TEST(RuntimeModule, AModuleFromAnotherBuildIsRefusedBeforeAnythingIsCalled) {
  auto refusal = [](auto loaded) -> std::string {
    try {
      loaded();
    } catch (const UnavailableError& e) {
      return e.what();
    }
    return "";
  };
  std::string newer = refusal([] { loadRuntimeModule<NewerFixtureModule>(fixtureSpec()); });
  std::string resized = refusal([] { loadRuntimeModule<ResizedFixtureModule>(fixtureSpec()); });
  for (const std::string& reason : {newer, resized}) {
    EXPECT_NE(reason.find("libtileskip_test_module.so comes from a different tileskip build"), std::string::npos)
        << reason;
  }
}

TEST(RuntimeModule, StampsCompareVersionSizesAndCompiler) {
  using Stamp = ModuleStamp<3, int, double>;
  EXPECT_EQ(Stamp{}, Stamp{});
  Stamp otherCompiler;
  otherCompiler.compiler = "another compiler";
  EXPECT_NE(otherCompiler, Stamp{});
  Stamp otherSize;
  otherSize.sizes[1] = 4;
  EXPECT_NE(otherSize, Stamp{});
  EXPECT_EQ(Stamp{}.sizes[1], sizeof(double));
}
