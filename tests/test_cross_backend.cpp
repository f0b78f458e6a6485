// On a machine with more than one kernel backend (an NVIDIA GPU has both CUDA and Vulkan), every
// kernel id gives the same C on each of them, within the fp32 tolerance, on the same inputs.
#include <gtest/gtest.h>

#include "backends/backend_registry.hpp"
#include "core/model/problem.hpp"
#include "core/model/reference.hpp"

using namespace tileskip;

TEST(CrossBackend, EveryKernelIdGivesTheSameCOnEveryBackend) {
  std::vector<std::unique_ptr<Backend>> backends;
  for (BackendStatus& s : discoverBackends()) {
    if (s.backend && s.name != "cpu") backends.push_back(std::move(s.backend));
  }
  if (backends.size() < 2) GTEST_SKIP() << "needs two kernel backends on one machine (CUDA and Vulkan on a GPU)";

  ProblemSpec spec;
  spec.m = 300;
  spec.n = 260;
  spec.k = 520;
  spec.generator = "segments";
  spec.densityA = spec.densityB = 0.5;
  ProblemData data = generateProblem(spec);
  ReferenceProduct reference = referenceProduct(data.a, data.b);
  std::vector<std::unique_ptr<DeviceProblem>> onDevice;
  for (auto& b : backends) onDevice.push_back(b->upload(data.a, data.b));

  int compared = 0;
  for (const KernelInfo& kernel : twinKernels()) {
    if (!kernel.takes(DType::Fp32)) continue;  // an fp32 problem (the tensor-core kernels: Inputs.*, verify)
    std::vector<std::pair<std::string, Matrix>> results;
    for (std::size_t i = 0; i < backends.size(); ++i) {
      if (!backends[i]->implements(kernel.id)) continue;
      onDevice[i]->prepare(kernel);
      onDevice[i]->poisonC();
      onDevice[i]->run(kernel);
      results.emplace_back(std::string(backends[i]->name()), onDevice[i]->downloadC());
    }
    // Each within the bound of the float64 reference: any two differ by at most twice the bound.
    for (std::size_t i = 0; i < results.size(); ++i) {
      ErrorReport e = compareToReference(results[i].second, reference);
      EXPECT_TRUE(e.passed) << kernel.id << " on " << results[i].first << ": " << e.summary();
      compared += i > 0;
    }
  }
  EXPECT_GT(compared, 0);
}
