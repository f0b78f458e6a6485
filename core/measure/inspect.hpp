// Will skipping help these matrices? For every kernel of a backend: the patterns at the kernel's
// granularities, the joint density, the ideal speedup, the load bound and the speedup a model
// calibrated on the device predicts; then the kernel to use and why. `tileskip inspect` prints
// it, `--kernel auto` runs its recommendation, and the bench harness puts the prediction beside
// each measured row (bench/calibrate_model.py fits the model from such rows).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/model/block_sparse.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/matrix.hpp"
#include "core/measure/speed_model.hpp"

namespace tileskip {

struct OperandSummary {
  std::string source;  // a file name, or "generator NAME density D"
  int rows = 0, cols = 0;
  double density = 0.0;  // fraction of non-zero elements
};

OperandSummary summarizeOperand(const Matrix& m, std::string source);

struct KernelInspection {
  const KernelInfo* kernel = nullptr;
  int aGranularity = 0, bGranularity = 0;      // 0 where the kernel does not inspect that operand
  double aPatternDensity = 1.0, bPatternDensity = 1.0;  // at those granularities
  double jointDensity = 1.0;       // kept rank-1 updates weighted by tile area, over M·N·K
  double idealSpeedup = 1.0;       // 1 / jointDensity
  double loadBoundSpeedup = 1.0;   // 1 / loadedFraction
  // What a block copies over what a dense block copies: the runs of K-blocks it copies
  // (KernelInfo::loadKBlocks) over every K-block. Over jointDensity: the union waste.
  double loadedFraction = 1.0;
  SkipFeatures features;           // what the speed model reads
  double predictedSpeedup = 1.0;   // over the backend's dense reference kernel
  // Why the device refuses to run it on this problem (Backend::refusal); empty where it runs.
  // A refused kernel is never recommended.
  std::string refusal;
};

struct Recommendation {
  const KernelInfo* kernel = nullptr;
  std::string reason;  // one line
};

// What K-compaction could gather from A (core/model/live_columns.hpp) at one row tile height and
// K-group width: the fraction of K its row tiles keep, on average (weighted by rows) and at most.
struct CompactionBound {
  int rows = 0, granularity = 0;
  double meanLiveFraction = 1.0, maxLiveFraction = 1.0;
};

class Backend;

// What a packed weight's bytes allow at a batch of tokens (C = W·X, X `tokens` columns wide): at a
// few tokens a kernel's time is the bytes it must read and write, at many its products. The bytes
// bound reads the kept blocks (or the dense weight), X and C once each at the device's copy
// bandwidth; its ratio is the most a bytes-bound kernel can gain over a dense GEMM that reads the
// whole weight. The products' is 1 / the kept fraction, which the packed ceiling (bench --suite
// weights measures it) does not reach.
struct PackedWeightBounds {
  int block = 0, keptBlocks = 0, blocks = 0;
  double keptFraction = 0.0;
  DType dtype = DType::Fp32;
  int tokens = 0;
  std::int64_t keptBytes = 0, denseBytes = 0;  // the weight's, packed and dense, in its dtype
  std::int64_t otherBytes = 0;                 // X and C (C in fp32)
  std::optional<double> bandwidth;             // bytes per second, read and write
  bool bandwidthIsPeak = false;                // a data sheet's, not a copy timed on the device
  double bytesSpeedup() const { return static_cast<double>(denseBytes + otherBytes) / static_cast<double>(keptBytes + otherBytes); }
  double productsSpeedup() const { return keptFraction > 0.0 ? 1.0 / keptFraction : INFINITY; }
  std::optional<double> packedMs() const;  // the bytes bound, packed
  std::optional<double> denseMs() const;   // and dense
};

// The bounds of `weight` (packed, in `dtype`) times `tokens` columns on `backend`'s device.
PackedWeightBounds packedWeightBounds(const BlockSparseMatrix& weight, int tokens, DType dtype, Backend& backend);
// One line of them for the report.
std::string packedWeightNote(const PackedWeightBounds& bounds);

struct Inspection {
  OperandSummary a, b;
  // A packed weight's bytes and products bounds at B's columns (where A is packed: ProblemData::packedA).
  std::optional<PackedWeightBounds> packed;
  // At every kCompactionRows x kCompactionGranularities: what spread-out zeros leave to gather,
  // beside what the kernels' tiles skip (compactionBounds; what `tileskip inspect` reports, empty
  // where the caller did not ask, as auto does not).
  std::vector<CompactionBound> compaction;
  DType dtype = DType::Fp32;  // the operands' precision (inspectOnBackend's)
  std::string modelName;  // which calibration the predictions come from
  bool ranked = true;     // whether a model ranked the kernels (none does for some precisions)
  std::vector<KernelInspection> kernels;
  Recommendation recommendation;
};

// A skipping kernel is recommended only when the model predicts it beats the fastest kernel
// that does not skip by this factor: the model's error on its calibration runs, with room.
inline constexpr double kSkipMargin = 1.05;

// At or below this element density of A, CSR SpMM may beat every tiled kernel; the model has no
// calibration there (its runs had A at least a quarter non-zero), so the verdict names CSR and
// auto on a GPU measures it.
inline constexpr double kSparseElementDensity = 0.1;

// Below this many outputs (M·N) a recommendation says its prediction is a guess: on the H200,
// problems this small (bench --suite real) ran fastest on the small-tile teaching kernels,
// launch-bound, which a model fitted at 4096^3 does not see (lab/10-skip-nothing-one-warp-model).
inline constexpr double kSmallProblemOutputs = 1024.0 * 1024.0;

// Inspects A·B for each of `kernels` (catalogue entries a backend implements) under `model`, the
// operands in `dtype` (which the verdict's pointers to other tools respect: no fp32-only CSR SpMM
// for a bf16 problem). Throws InputError when the shapes do not multiply or no kernel is given.
Inspection inspectProblem(const Matrix& a, const Matrix& b, std::span<const KernelInfo* const> kernels,
                          const SpeedModel& model, OperandSummary aSummary, OperandSummary bSummary,
                          DType dtype = DType::Fp32);

class Backend;
// inspectProblem for the kernels `backend` implements that take `dtype`, under its device's
// speed model, each with the device's refusal, if any: the recommendation is among the kernels
// the device runs (where it runs none, it is the model's choice and its reason says why not). The
// model is SpeedModel::forInputs's for `dtype` (for fp16 and bf16 its predictions are over the
// dense `mma`). Where no model ranks that precision (tf32; Vulkan's 16-bit kernels) every kernel's
// prediction is NaN (null in JSON), the model line says so, `ranked` is false and the
// recommendation is the dense kernel of that precision (denseReferenceKernel), where `--kernel
// auto` measures instead on a GPU. InputError where the backend has no kernel that takes `dtype`.
Inspection inspectOnBackend(const Backend& backend, const Matrix& a, const Matrix& b, std::string aSource,
                            std::string bSource, DType dtype = DType::Fp32);

// A's live columns at every kCompactionRows x kCompactionGranularities, reading A once per height.
std::vector<CompactionBound> compactionBounds(const Matrix& a);

// At or above this live fraction in every configuration, spread-out zeros leave nothing to gather.
inline constexpr double kNothingToGather = 0.9;

// One line on inspection.compaction beside the kernels' loads: what gathering A's live columns
// would multiply at its best configuration, against what the best tile skip loads; empty where
// the inspection holds no compaction bounds.
std::string compactionNote(const Inspection& inspection);

// The report as `tileskip inspect --format json` writes it (and tileskip.inspect() in Python
// returns): fixed field names, docs/inspect.md "What inspect prints"; null where a speedup is
// infinite.
std::string inspectionJson(const Inspection& inspection, const Backend& backend);

// Only the statistics and prediction of one kernel.
KernelInspection inspectKernel(const Matrix& a, const Matrix& b, const KernelInfo& kernel, const SpeedModel& model);

// Many kernels on one problem, each operand's patterns built once (the bench harness fills its
// rows with it). Holds references to A and B: they must outlive it.
class ProblemInspector {
 public:
  ProblemInspector(const Matrix& a, const Matrix& b);  // throws InputError unless they multiply
  ~ProblemInspector();
  KernelInspection inspect(const KernelInfo& kernel, const SpeedModel& model);

 private:
  struct Patterns;
  std::unique_ptr<Patterns> patterns_;
  const Matrix& a_;
  double aDensity_ = -1.0;  // A's element density, counted when cusparse-csr first asks
};

}  // namespace tileskip
