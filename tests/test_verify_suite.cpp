#include <gtest/gtest.h>

#include "core/verify_suite.hpp"
#include "fake_backend.hpp"

using namespace tileskip;
using tileskip::testing::FakeBackend;
using tileskip::testing::FakeFaults;

namespace {

std::vector<VerifyResult> verifyFake(const FakeFaults& faults, const std::string& kernel) {
  FakeBackend backend(faults);
  return runVerify(backend, {&kernelInfo(kernel)}, verifyCases());
}

int failures(const std::vector<VerifyResult>& results) {
  return static_cast<int>(std::count_if(results.begin(), results.end(), [](const VerifyResult& r) { return !r.passed(); }));
}

}  // namespace

TEST(VerifySuite, ACorrectSkippingKernelPassesEverything) {
  for (const char* kernel : {"warptile", "joint-8x32", "a-warp", "b-group8"}) {
    std::vector<VerifyResult> results = verifyFake({}, kernel);
    EXPECT_GT(results.size(), 20u);
    for (const VerifyResult& r : results) EXPECT_TRUE(r.passed()) << kernel << " " << r.caseName << ": " << r.failure;
  }
}

TEST(VerifySuite, CatchesASkipThatIsTooEager) {
  // The fake drops K-blocks whose joint byte holds a single product; the single-product cases
  // must catch it.
  std::vector<VerifyResult> results = verifyFake({.skipSingleProducts = true}, "joint-8x32");
  bool singleProductCaught = false;
  for (const VerifyResult& r : results) {
    if (r.caseName.rfind("single-product", 0) == 0) singleProductCaught = singleProductCaught || !r.passed();
  }
  EXPECT_TRUE(singleProductCaught);
}

TEST(VerifySuite, CatchesDevicePatternsThatDiffer) {
  std::vector<VerifyResult> results = verifyFake({.corruptPatterns = true}, "joint-8x32");
  EXPECT_GT(failures(results), 0);
  for (const VerifyResult& r : results) {
    if (!r.passed()) {
      EXPECT_FALSE(r.patternsMatch);
      EXPECT_NE(r.failure.find("A-pattern"), std::string::npos);
    }
  }
}

TEST(VerifySuite, CatchesAnUnwrittenRow) {
  EXPECT_EQ(failures(verifyFake({.leaveLastRowUnwritten = true}, "warptile")), static_cast<int>(verifyCases().size()));
}

TEST(VerifySuite, CoversTheAdversarialInputs) {
  std::vector<VerifyCase> cases = verifyCases();
  auto has = [&](const std::string& prefix) {
    return std::any_of(cases.begin(), cases.end(), [&](const VerifyCase& c) { return c.name.rfind(prefix, 0) == 0; });
  };
  for (const char* name : {"dense 1x1x1", "dense 7x13x5", "dense 100x37x259", "zero-A", "zero-B", "single-product",
                           "single-nonzero-A", "overlap-without-product", "uniform", "segments", "blocks", "nm",
                           "banded", "relu"}) {
    EXPECT_TRUE(has(name)) << name;
  }
}
