// `bench --suite activations`: zeros spread out over K as ReLU activations leave them (the
// `neurons` generator: each K index a neuron firing on a token with its own probability, a power
// law over the neurons), where tile skipping finds nothing and compaction gathers the live columns
// of each row tile. Each case is measured against the packed ceiling of its live columns (the
// vendor GEMM with K' = K x the live fraction) by the blocksparse suite's machinery
// (core/measure/ceiling.hpp): every fast kernel of each backend, auto's choice, the vendor GEMM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/bench.hpp"
#include "core/measure/ceiling.hpp"
#include "core/model/backend.hpp"

namespace tileskip {

inline constexpr const char* kActivationsSchema = "tileskip.activations/1";

struct ActivationsOptions {
  int size = 4096;  // M = N (tokens, outputs), and K of the square cases
  DType dtype = DType::Bf16;
  int warmup = 2;
  int repeat = 10;
  // On a GPU, warm-up also lasts this long (BenchOptions::warmupMilliseconds).
  double warmupMilliseconds = BenchOptions{}.warmupMilliseconds;
  std::uint64_t seed = 42;
  double stableWithin = 0.0;  // BenchOptions::stableWithin
};

// One case: A (M x K) from `neurons` with `inactive` of each token's neurons off and firing
// exponent `skew` (a dense A where inactive is 0), B (K x N) dense.
struct ActivationsShape {
  int m = 0, n = 0, k = 0;
  double inactive = 0.0, skew = 1.0;
  bool llamaDownProjection = false;  // K scaled from LLaMA-2-7B's MLP (11008 for 4096 tokens)
  // The neurons permuted by how many tokens fire each (firingOrder, as `--reorder` sorts them for
  // the compaction kernels): A's columns and B's rows together, so A·B is unchanged.
  bool sorted = false;
  std::string name() const;  // "90 % inactive, exponent 2.0, sorted by firing, 4096x4096x4096"
};

// The cases of the suite for M = N = size: a dense A (where nothing can be gained), 90 % inactive
// at exponents 1, 1.5, 2 and 2.5, and LLaMA-2-7B's down projection (K = 11008 at size 4096,
// scaled with size) at exponent 2; each sparse one as generated, then sorted by firing.
std::vector<ActivationsShape> activationsShapes(int size);

// The row height the compaction kernels gather at (the first compaction row's; 64 if none).
int compactionRowHeight();

// The whole layer of the down projection's case, relu(X·W1)·W2 (core/measure/mlp.hpp) with X, W1
// and W2 from generateMlpLayer at the case's inactive fraction and exponent (tokens x width ->
// hidden -> width: the case's M, N and K), on one backend: as tileskip runs it (fused where the
// backend fuses K14 to S15, else each GEMM by auto; for a sorted case with `mlp --reorder`'s
// neuron order) and by the backend's vendor GEMM twice.
struct LayerMeasurement {
  std::string backend;
  std::string first, second;  // the two GEMMs' kernels
  bool fused = false;
  double hiddenDensity = 0.0;
  double mlpMs = 0.0;             // MlpPass::layerMs
  std::string baseline;           // "cublas", "cpu"; empty where the backend has no vendor GEMM
  std::optional<double> baselineMs;  // the same layer by it twice
};

struct ActivationsCase {
  ActivationsShape shape;
  double liveFraction = 1.0;           // measured: A-pattern bits at the compaction height over K
  double predictedLiveFraction = 1.0;  // inspect's K-compaction bound (core/model/live_columns.hpp)
  // The same in K-groups of kFiringGroup columns: what sorting by firing changes (it moves live
  // columns together; the count of single live columns per tile stays), and what lets a compaction
  // kernel copy ranges whole instead of gathering column by column.
  double liveGroupFraction = 1.0;
  CeilingMeasurement measured;         // the kernels, the vendor GEMM and the live columns' packed ceiling
  std::vector<LayerMeasurement> layers;  // the down projection's case: one per backend that ran it
};

struct ActivationsReport {
  std::string date, host;
  std::vector<std::string> devices;
  ActivationsOptions options;
  std::vector<ActivationsCase> cases;
};

ActivationsReport runActivationsSuite(const std::vector<Backend*>& backends, const ActivationsOptions& options,
                                      const ProgressCallback& progress = {});

std::string formatActivationsTable(const ActivationsReport& report);
std::string formatActivationsJson(const ActivationsReport& report);
int activationsExitCode(const ActivationsReport& report);

}  // namespace tileskip
