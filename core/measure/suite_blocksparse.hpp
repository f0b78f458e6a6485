// `bench --suite blocksparse`: block-sparse operands as trained models and pruning leave them (zeros
// in whole blocks of 32, 64 or 128), A alone and A with B, measured against what the zeros allow.
// Each case times, in one process: every kernel of each backend that takes the suite's dtype (the
// warp-tiled and tensor-core ones: the teaching kernels are slower by design), auto's choice, the
// vendor's dense GEMM in the same dtype, and the packed ceiling, the same vendor GEMM on only the
// kept products packed into a dense problem (K' = K · joint density): what a perfect skip would
// take. A kernel is judged by the fraction of that ceiling it reaches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/bench.hpp"
#include "core/measure/ceiling.hpp"
#include "core/model/backend.hpp"

namespace tileskip {

inline constexpr const char* kBlocksparseSchema = "tileskip.blocksparse/1";

struct BlocksparseOptions {
  int size = 4096;  // M = N = K
  DType dtype = DType::Bf16;
  std::vector<int> blocks = {32, 64, 128};  // the zero blocks' edge
  int warmup = 2;
  int repeat = 10;
  // On a GPU, warm-up also lasts this long (BenchOptions::warmupMilliseconds).
  double warmupMilliseconds = BenchOptions{}.warmupMilliseconds;
  std::uint64_t seed = 42;
  double stableWithin = 0.0;  // BenchOptions::stableWithin
};

// One case's shape: blocks of `block` at these densities; B dense (density 1) for an A-only case.
struct BlocksparseShape {
  int block = 0;
  double densityA = 1.0, densityB = 1.0;
  bool joint() const { return densityB < 1.0; }
  std::string name() const;  // "A 0.25, 128-blocks" or "A 0.25 & B 0.25, 64-blocks"
};

// The cases of the suite, in the order it runs them: for each block edge, A alone at 0.5, 0.25 and
// 0.1, then A and B at 0.5 / 0.5 and 0.25 / 0.25.
std::vector<BlocksparseShape> blocksparseShapes(const std::vector<int>& blocks);

// A kernel of a case, measured against the case's ceiling (core/measure/ceiling.hpp).
using BlocksparseKernel = CeilingKernel;

struct BlocksparseCase {
  BlocksparseShape shape;
  double jointDensity = 1.0;  // the kept products at the block edge, over M·N·K
  int packedK = 0;            // K · jointDensity, in whole K-blocks: the ceiling's K
  std::string baseline;       // the vendor GEMM that ran ("cublas", or "cpu" where there is no cuBLAS)
  std::optional<double> baselineMs, ceilingMs;
  std::vector<BlocksparseKernel> kernels;  // verified ones, fastest first
  std::vector<std::string> failures;       // "backend kernel: why" for the ones that did not run
};

struct BlocksparseReport {
  std::string date, host;
  std::vector<std::string> devices;
  BlocksparseOptions options;
  std::vector<BlocksparseCase> cases;
  std::vector<BenchReport> runs;  // every bench run the cases were computed from
};

BlocksparseReport runBlocksparseSuite(const std::vector<Backend*>& backends, const BlocksparseOptions& options,
                                      const ProgressCallback& progress = {});

std::string formatBlocksparseTable(const BlocksparseReport& report);
std::string formatBlocksparseJson(const BlocksparseReport& report);

// 1 where a kernel failed verification, else the first other failure's code (benchExitCode), else 0.
int blocksparseExitCode(const BlocksparseReport& report);

}  // namespace tileskip
