// `bench --suite weights`: block-sparse weights as a pruned or block-sparse-trained model has them,
// packed once, multiplied by a batch of tokens: C = W·X with W LLaMA-shaped (4096 x 4096, 11008 x
// 4096 and 4096 x 11008: out x in), its blocks of 32, 64 or 128 kept at 0.5, 0.25 and 0.1, and X
// of 1, 16, 64, 512 and 4096 tokens. Two regimes: at many tokens the products decide the time, and
// a kernel is judged against the packed ceiling (the vendor GEMM on the kept products packed,
// core/measure/ceiling.hpp); at a few tokens the bytes do, and it is judged against the memory
// bound: the kept blocks, X and C once each at the device's copy bandwidth. The bound that binds is
// the longer of the two. Each case times, in one process, every fast kernel of each backend with the
// bsr kernels among them, auto's choice, and the vendor GEMM in the same dtype.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/bench.hpp"
#include "core/measure/ceiling.hpp"
#include "core/model/backend.hpp"

namespace tileskip {

inline constexpr const char* kWeightsSchema = "tileskip.weights/1";

struct WeightsOptions {
  // The scale: LLaMA's 4096 (its MLP's 11008 = 2.6875 x 4096); another size scales the shapes and
  // the tokens with it (weightsShapes, weightsTokens).
  int size = 4096;
  DType dtype = DType::Bf16;
  std::vector<int> blocks = {32, 64, 128};
  std::vector<double> densities = {0.5, 0.25, 0.1};
  std::vector<int> tokens = {};  // empty: weightsTokens(size)
  int warmup = 2;
  int repeat = 10;
  double warmupMilliseconds = BenchOptions{}.warmupMilliseconds;
  std::uint64_t seed = 42;
  double stableWithin = 0.0;  // BenchOptions::stableWithin
};

// The weights' shapes (out x in) at a size: size x size, the MLP's up projection (2.6875 size x
// size, rounded to a multiple of 16) and its down projection (the transpose).
std::vector<std::array<int, 2>> weightsShapes(int size);
// The token counts at a size: 1, 16, 64, size / 8 and size (512 and 4096 at LLaMA's), those up to size.
std::vector<int> weightsTokens(int size);

struct WeightsCase {
  int m = 0, k = 0, n = 0;  // W is m x k (out x in), X is k x n (n tokens)
  int block = 0;
  double density = 0.0;       // the blocks' kept fraction asked for
  double keptFraction = 0.0;  // the one the generated weight has
  std::int64_t bytes = 0;     // the kept blocks, X and C, once each
  std::string baseline;       // the vendor GEMM that ran
  std::optional<double> baselineMs, ceilingMs, bytesBoundMs;
  int packedK = 0;
  std::vector<CeilingKernel> kernels;  // verified ones, fastest first
  std::vector<std::string> failures;
  // The bound that binds: the longer of the bytes bound and the packed ceiling.
  std::optional<double> boundMs() const;
};

struct WeightsReport {
  std::string date, host;
  std::vector<std::string> devices;
  WeightsOptions options;
  std::optional<double> copyBandwidth;  // bytes per second, read and write, on the vendor GEMM's device
  std::string bandwidthDevice;          // the backend it was measured on
  std::vector<WeightsCase> cases;
  std::vector<BenchReport> runs;
};

WeightsReport runWeightsSuite(const std::vector<Backend*>& backends, const WeightsOptions& options, const ProgressCallback& progress = {});

std::string formatWeightsTable(const WeightsReport& report);
std::string formatWeightsJson(const WeightsReport& report);
int weightsExitCode(const WeightsReport& report);

}  // namespace tileskip
