#include "core/measure/inspect.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <cstdio>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>

#include "core/model/backend.hpp"
#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"
#include "core/model/live_columns.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reference.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"
#include "core/measure/modelled_device.hpp"

namespace tileskip {

namespace {

std::uint8_t fullByte(int depth, int kBlock) {
  const int realBits = std::min(kKBlock, depth - kBlock * kKBlock);
  return static_cast<std::uint8_t>((1u << realBits) - 1u);
}

// The patterns of one operand at every granularity asked for, built once: a granularity that is
// a multiple of 8 is the OR of the 8-row (8-column) tiles it covers, so only that one reads the
// matrix.
class PatternCache {
 public:
  PatternCache(const Matrix& m, Operand operand) : matrix_(m), operand_(operand) {}

  const Pattern& at(int granularity) {
    auto it = cache_.find(granularity);
    if (it != cache_.end()) return it->second;
    Pattern p;
    if (granularity % kKBlock == 0 && granularity > kKBlock) {
      p = coarsen(at(kKBlock), granularity);
    } else {
      p = operand_ == Operand::A ? buildAPattern(matrix_, granularity) : buildBPattern(matrix_, granularity);
    }
    return cache_.emplace(granularity, std::move(p)).first->second;
  }

  int extent() const { return operand_ == Operand::A ? matrix_.rows() : matrix_.cols(); }
  int depth() const { return operand_ == Operand::A ? matrix_.cols() : matrix_.rows(); }

 private:
  static Pattern coarsen(const Pattern& fine, int granularity) {
    const int factor = granularity / fine.granularity;
    Pattern p = fine;
    p.granularity = granularity;
    p.tiles = ceilDiv(fine.extent, granularity);
    p.bits.assign(static_cast<std::size_t>(p.tiles) * p.kBlocks, 0);
    for (int t = 0; t < fine.tiles; ++t) {
      std::uint8_t* out = &p.bits[static_cast<std::size_t>(t / factor) * p.kBlocks];
      const std::uint8_t* in = &fine.bits[static_cast<std::size_t>(t) * fine.kBlocks];
      for (int kb = 0; kb < fine.kBlocks; ++kb) out[kb] |= in[kb];
    }
    return p;
  }

  const Matrix& matrix_;
  Operand operand_;
  std::map<int, Pattern> cache_;
};

struct Operands {
  PatternCache a, b;
};

// Which pattern tiles of one operand a block tile of `blockExtent` covers along that operand's
// extent: [first, last). A pattern tile coarser than the block tile covers it whole.
struct TileRange {
  int first, last;
};
TileRange tilesOfBlock(int block, int blockExtent, int granularity, int tiles) {
  const int first = block * blockExtent / granularity;
  const int last = std::min(tiles, std::max(first + 1, ceilDiv((block + 1) * blockExtent, granularity)));
  return {first, last};
}

// Per K-block, the bits any pattern tile of `tiles` keeps (what the block loads for) and the
// bits every one keeps (whether the block can take the dense path).
void combineTiles(const Pattern& pattern, TileRange tiles, std::vector<std::uint8_t>& any,
                  std::vector<std::uint8_t>& every) {
  std::fill(any.begin(), any.end(), 0);
  std::fill(every.begin(), every.end(), 0xFF);
  for (int t = tiles.first; t < tiles.last; ++t) {
    for (int kb = 0; kb < pattern.kBlocks; ++kb) any[kb] |= pattern.at(t, kb), every[kb] &= pattern.at(t, kb);
  }
}

// `pattern` as a packed A's kept blocks see it: a run of `depth` K-blocks is all kept where any of
// it is (a bsr kernel multiplies a kept block whole), and nothing where none is.
Pattern keptBlocksOf(Pattern pattern, int depth) {
  for (int t = 0; t < pattern.tiles; ++t) {
    for (int first = 0; first < pattern.kBlocks; first += depth) {
      const int last = std::min(pattern.kBlocks, first + depth);
      bool any = false;
      for (int kb = first; kb < last; ++kb) any = any || pattern.at(t, kb) != 0;
      for (int kb = first; kb < last; ++kb) pattern.bits[static_cast<std::size_t>(t) * pattern.kBlocks + kb] = any ? fullByte(pattern.depth, kb) : 0;
    }
  }
  return pattern;
}

// The skip features of a kernel whose blocks load only the K-blocks their tiles need (or, for
// a divergent kernel, load every K-block and skip per thread).
KernelInspection inspectSkipping(const KernelInfo& kernel, Operands& ops) {
  KernelInspection r;
  r.kernel = &kernel;
  const int m = ops.a.extent(), n = ops.b.extent(), k = ops.a.depth();
  const int aG = kernel.usesAPattern() ? kernel.aGranularity : kernel.tile.BM;
  const int bG = kernel.usesBPattern() ? kernel.bGranularity : kernel.tile.BN;
  const Pattern aPat = kernel.readsPackedA() ? keptBlocksOf(ops.a.at(aG), kernel.loadKBlocks())
                       : kernel.usesAPattern() ? ops.a.at(aG)
                                               : fullPattern(Operand::A, m, k, aG);
  const Pattern bPat = kernel.usesBPattern() ? ops.b.at(bG) : fullPattern(Operand::B, n, k, bG);
  r.aGranularity = kernel.usesAPattern() ? aG : 0;
  r.bGranularity = kernel.usesBPattern() ? bG : 0;
  r.aPatternDensity = aPat.density();
  r.bPatternDensity = bPat.density();
  const JointStats joint = computeJointStats(aPat, bPat);
  r.jointDensity = joint.jointDensity;
  r.idealSpeedup = joint.idealSpeedup();

  const int BM = kernel.tile.BM, BN = kernel.tile.BN, kBlocks = aPat.kBlocks;
  const int blockRows = ceilDiv(m, BM), blockCols = ceilDiv(n, BN);
  const bool skipsLoads = !kernel.divergent();
  double denseTiles = 0.0, loads = 0.0, work = 0.0, partial = 0.0, allLoads = 0.0;
  std::vector<std::uint8_t> aAny(kBlocks), aEvery(kBlocks), bAny(kBlocks), bEvery(kBlocks);
  const int depth = kernel.loadKBlocks();
  // A compaction kernel's ranges of columns it copies whole where enough are live (only where the
  // copy engine can move B's rows: N a multiple of 8; A transposed's rows are padded), in K-blocks.
  const int wholeRange = kernel.tile.BK / kKBlock;
  const int wholeLive = n % 8 == 0 ? kernel.structure.wholeRangeColumns : 0;
  for (int bi = 0; bi < blockRows; ++bi) {
    const TileRange rows = tilesOfBlock(bi, BM, aG, aPat.tiles);
    combineTiles(aPat, rows, aAny, aEvery);
    const int rowsInBlock = std::min(BM, m - bi * BM);
    for (int bj = 0; bj < blockCols; ++bj) {
      const TileRange cols = tilesOfBlock(bj, BN, bG, bPat.tiles);
      combineTiles(bPat, cols, bAny, bEvery);
      int partlyKept = 0;
      bool dense = true;
      for (int kb = 0; kb < kBlocks; ++kb) {
        const bool needed = (aAny[kb] & bAny[kb]) != 0;
        const bool everyKept = (aEvery[kb] & bEvery[kb]) == fullByte(k, kb);
        partlyKept += needed && !everyKept;
        dense = dense && everyKept;
      }
      // K-blocks copied: every run of `depth` in which the tile keeps a product; for a compaction
      // kernel, its live columns alone, as a share of K (live_columns' live fraction), or a range of
      // them whole where the kernel copies it so. The columns it gathers one by one (not in a whole
      // range) are its partial feature: a gathered column costs more than one of a range.
      double copied = 0.0, gathered = 0.0;
      if (kernel.compacts()) {
        for (int first = 0; first < kBlocks; first += wholeRange) {
          const int last = std::min(kBlocks, first + wholeRange);
          int live = 0;
          for (int kb = first; kb < last; ++kb) live += std::popcount(static_cast<unsigned>(aAny[kb] & bAny[kb]));
          const bool whole = wholeLive > 0 && live >= wholeLive;
          copied += whole ? std::min(k, last * kKBlock) - first * kKBlock : live;
          gathered += whole ? 0 : live;
        }
        copied *= static_cast<double>(kBlocks) / k;
        gathered /= k;
      }
      for (int first = 0; first < kBlocks && !kernel.compacts(); first += depth) {
        const int last = std::min(kBlocks, first + depth);
        for (int kb = first; kb < last; ++kb) {
          if ((aAny[kb] & bAny[kb]) != 0) {
            copied += last - first;
            break;
          }
        }
      }
      const double tileLoads = skipsLoads ? copied / kBlocks : 1.0;
      allLoads += tileLoads;
      if (dense) {
        denseTiles += 1.0;
        continue;
      }
      // Kept updates of the pattern tile pairs inside this block, weighted by the part of each
      // pair's area that lies in the block.
      const int colsInBlock = std::min(BN, n - bj * BN);
      double kept = 0.0;
      for (int rt = rows.first; rt < rows.last; ++rt) {
        const int r0 = std::max(rt * aG, bi * BM), r1 = std::min({(rt + 1) * aG, bi * BM + rowsInBlock, m});
        for (int ct = cols.first; ct < cols.last; ++ct) {
          const int c0 = std::max(ct * bG, bj * BN), c1 = std::min({(ct + 1) * bG, bj * BN + colsInBlock, n});
          kept += static_cast<double>(joint.work(rt, ct)) * std::max(0, r1 - r0) * std::max(0, c1 - c0);
        }
      }
      loads += tileLoads;
      work += kept / (static_cast<double>(rowsInBlock) * colsInBlock);
      partial += kernel.compacts() ? gathered : static_cast<double>(partlyKept) / kBlocks;
    }
  }
  const double tiles = static_cast<double>(blockRows) * blockCols;
  r.features = {denseTiles / tiles, loads / tiles, work / tiles, partial / tiles};
  r.loadBoundSpeedup = allLoads > 0.0 ? tiles / allLoads : INFINITY;
  r.loadedFraction = allLoads / tiles;
  return r;
}

KernelInspection inspectOne(const KernelInfo& kernel, Operands& ops, double aElementDensity, const SpeedModel& model) {
  KernelInspection r;
  if (kernel.skips()) {
    r = inspectSkipping(kernel, ops);
  } else {
    r.kernel = &kernel;
    if (kernel.runs(VendorRoutine::CusparseCsrSpmm)) {  // CSR SpMM: its work follows A's non-zeros, not tiles
      r.features = {0.0, 0.0, aElementDensity, 0.0};
      r.jointDensity = aElementDensity;
      r.idealSpeedup = aElementDensity > 0.0 ? 1.0 / aElementDensity : INFINITY;
    }
  }
  r.predictedSpeedup = model.predictedSpeedup(kernel, r.features);
  return r;
}

// The tiles a kernel skips, naming the operand whose zeros they are.
std::string tileWords(const KernelInspection& r) {
  std::string s;
  if (r.aGranularity > 0) s += std::to_string(r.aGranularity) + "-row tiles of A";
  if (r.aGranularity > 0 && r.bGranularity > 0) s += " and ";
  if (r.bGranularity > 0) s += std::to_string(r.bGranularity) + "-column tiles of B";
  return s;
}

// A compaction kernel's work in words: the live columns it multiplies and how much of K it copies.
std::string compactionWords(const KernelInspection& r) {
  return std::to_string(r.aGranularity) + "-row tiles of A need " + fixed(r.jointDensity, 2) + " of K and it copies " +
         fixed(r.loadedFraction, 2) + " of K (ranges whole where enough of them is live)";
}

Recommendation recommendAmong(const std::vector<KernelInspection>& kernels) {
  const KernelInspection* bestDense = nullptr;
  const KernelInspection* bestSkip = nullptr;
  const KernelInspection* bestIdeal = nullptr;
  const KernelInspection* bestCompaction = nullptr;  // among the skipping kernels, the compaction ones
  for (const KernelInspection& r : kernels) {
    if (!r.refusal.empty()) continue;
    // A kernel that skips per thread diverges within its warps, which the model does not see:
    // it is never the model's choice (noteDivergent says when it is predicted faster).
    if (r.kernel->divergent()) continue;
    if (r.kernel->skips()) {
      if (bestSkip == nullptr || r.predictedSpeedup > bestSkip->predictedSpeedup) bestSkip = &r;
      if (bestIdeal == nullptr || r.idealSpeedup > bestIdeal->idealSpeedup) bestIdeal = &r;
      if (r.kernel->compacts() && (bestCompaction == nullptr || r.predictedSpeedup > bestCompaction->predictedSpeedup)) {
        bestCompaction = &r;
      }
    } else if (!r.kernel->runs(VendorRoutine::CusparseCsrSpmm)) {
      if (bestDense == nullptr || r.predictedSpeedup > bestDense->predictedSpeedup) bestDense = &r;
    }
  }
  const KernelInspection* csr = nullptr;
  for (const KernelInspection& r : kernels) {
    if (r.refusal.empty() && r.kernel->runs(VendorRoutine::CusparseCsrSpmm)) csr = &r;
  }
  if (bestDense == nullptr && bestSkip == nullptr) {
    for (const KernelInspection& r : kernels) {
      if (r.refusal.empty()) return {r.kernel, "the only kernel this device runs on this problem"};
    }
    return {nullptr, ""};
  }
  const double denseSpeed = bestDense != nullptr ? bestDense->predictedSpeedup : 0.0;
  if (csr != nullptr && csr->predictedSpeedup > kSkipMargin * std::max(denseSpeed, bestSkip ? bestSkip->predictedSpeedup : 0.0)) {
    return {csr->kernel, "A is " + fixed(100.0 * (1.0 - csr->jointDensity), 2) + " % zeros: CSR SpMM, predicted " +
                             fixed(csr->predictedSpeedup, 2) + "x"};
  }
  if (bestSkip != nullptr && (bestDense == nullptr || bestSkip->predictedSpeedup > kSkipMargin * denseSpeed)) {
    if (bestSkip->idealSpeedup < 1.01) {
      return {bestSkip->kernel, "nothing to skip, and " + std::string(bestSkip->kernel->id) +
                                    "'s dense path is predicted fastest on this device: " +
                                    fixed(bestSkip->predictedSpeedup, 2) + "x"};
    }
    const std::string overDense =
        bestDense != nullptr ? " (" + fixed(bestSkip->predictedSpeedup / denseSpeed, 2) + "x " + std::string(bestDense->kernel->id) + ")" : "";
    if (bestSkip->kernel->compacts()) {
      return {bestSkip->kernel, "compact: zeros spread over K, " + compactionWords(*bestSkip) + ": predicted " +
                                    fixed(bestSkip->predictedSpeedup, 2) + "x" + overDense};
    }
    return {bestSkip->kernel, "zeros fill whole " + tileWords(*bestSkip) + " (joint density " +
                                  fixed(bestSkip->jointDensity, 2) + ", load bound " + fixed(bestSkip->loadBoundSpeedup, 2) +
                                  "x): predicted " + fixed(bestSkip->predictedSpeedup, 2) + "x" + overDense};
  }
  std::string why;
  if (bestIdeal == nullptr) {
    why = "this backend has no skipping kernel";
  } else if (bestIdeal->idealSpeedup < 1.1) {
    why = "no tile-aligned zeros: joint density " + fixed(bestIdeal->jointDensity, 2) + " at the finest tiles (" +
          tileWords(*bestIdeal) + ")";
  } else if (bestIdeal->loadBoundSpeedup < 1.1) {
    // The kernel whose tiles hold the most zeros, so the reason is about the operand that has them.
    why = "zeros are not block-aligned: " + std::string(bestIdeal->kernel->id) + " finds whole " + tileWords(*bestIdeal) +
          " zero but its blocks still load " + fixed(100.0 / bestIdeal->loadBoundSpeedup, 2) + " % of their K-blocks";
  } else {
    why = "the best skipping kernel, " + std::string(bestSkip->kernel->id) + " (zeros in " + tileWords(*bestSkip) +
          "), is predicted at " + fixed(bestSkip->predictedSpeedup, 2) + "x, not enough over " + fixed(denseSpeed, 2) + "x";
  }
  // Zeros spread over K that leave columns to gather: say what compaction would do, and why not.
  if (bestCompaction != nullptr && bestCompaction->idealSpeedup >= 1.1) {
    why += "; compaction: " + std::string(bestCompaction->kernel->id) + ": " + compactionWords(*bestCompaction) +
           ", predicted " + fixed(bestCompaction->predictedSpeedup, 2) + "x, not enough over " + fixed(denseSpeed, 2) +
           "x (--reorder sorts K by how often each column fires, which puts the live columns together)";
  }
  return {bestDense->kernel, "stay dense: " + why};
}

// The model's choice among the kernels the device runs; where it runs none, the choice among all,
// saying that the device refuses it and why.
Recommendation recommend(const std::vector<KernelInspection>& kernels) {
  Recommendation choice = recommendAmong(kernels);
  if (choice.kernel != nullptr) return choice;
  std::vector<KernelInspection> all = kernels;
  for (KernelInspection& r : all) r.refusal.clear();
  choice = recommendAmong(all);
  const auto refused = std::find_if(kernels.begin(), kernels.end(), [&](const KernelInspection& r) { return r.kernel == choice.kernel; });
  return {choice.kernel, "no kernel runs this problem on this device; " + refused->refusal};
}

// A per-thread skipping kernel predicted faster than the choice is named, not chosen: its warps
// diverge, and the lesson measures a-row at 0.77x of pipelined on the H200 where the model
// predicted a gain. Only a measurement on the device (auto on a GPU times it) picks it.
void noteDivergent(Inspection& inspection) {
  const KernelInspection* chosen = nullptr;
  const KernelInspection* divergent = nullptr;
  for (const KernelInspection& r : inspection.kernels) {
    if (r.kernel == inspection.recommendation.kernel) chosen = &r;
    if (r.refusal.empty() && r.kernel->divergent() && (divergent == nullptr || r.predictedSpeedup > divergent->predictedSpeedup)) {
      divergent = &r;
    }
  }
  if (chosen == nullptr || divergent == nullptr || !(divergent->predictedSpeedup > kSkipMargin * chosen->predictedSpeedup)) return;
  inspection.recommendation.reason += "; " + std::string(divergent->kernel->id) + " is predicted " +
                                      fixed(divergent->predictedSpeedup, 2) +
                                      "x but skips per thread, which diverges: trust it only measured (auto does on a GPU)";
}

// Where tiles are not the right tool: an A this sparse is CSR's (cuSPARSE), and weights pruned
// 2:4 are what the sparse tensor cores of Ampere and later run (cuSPARSELt), which no tile skip
// can use.
bool twoFourAlongK(const Matrix& m, bool alongRows) {
  const int groups = (alongRows ? m.cols() : m.rows()) / 4, lines = alongRows ? m.rows() : m.cols();
  if (groups == 0) return false;
  for (int line = 0; line < lines; ++line) {
    for (int g = 0; g < groups; ++g) {
      int nonZeros = 0;
      for (int i = 4 * g; i < 4 * g + 4; ++i) nonZeros += (alongRows ? m(line, i) : m(i, line)) != 0.0f;
      if (nonZeros > 2) return false;
    }
  }
  return true;
}

void notePointers(Inspection& inspection, const Matrix& a, const Matrix& b) {
  std::string& reason = inspection.recommendation.reason;
  const KernelInfo* csr = nullptr;
  for (const KernelInfo& k : kCatalogue) {
    if (k.runs(VendorRoutine::CusparseCsrSpmm)) csr = &k;
  }
  // Only where CSR SpMM takes the operands' precision: in 16 bits the tensor cores' dense product is
  // an order of magnitude past the fp32 one that CSR competes with.
  if (inspection.a.density <= kSparseElementDensity && !inspection.recommendation.kernel->runs(VendorRoutine::CusparseCsrSpmm) &&
      (csr == nullptr || csr->takes(inspection.dtype))) {
    const auto here = std::find_if(inspection.kernels.begin(), inspection.kernels.end(),
                                   [](const KernelInspection& r) { return r.kernel->runs(VendorRoutine::CusparseCsrSpmm); });
    reason += "; A is " + fixed(100.0 * (1.0 - inspection.a.density), 1) + " % zeros, where CSR SpMM (" +
              std::string(csr != nullptr ? csr->id : "cuSPARSE") + ") can beat any tile" +
              (here != inspection.kernels.end() ? ": auto measures it on a GPU" : ": on a CUDA GPU");
  }
  // 2:4 means half the values kept; much sparser operands pass the test trivially.
  for (const auto& [m, name, alongRows, density] : {std::tuple{&a, "A", true, inspection.a.density},
                                                    std::tuple{&b, "B", false, inspection.b.density}}) {
    if (density > 0.25 && density <= 0.5 && twoFourAlongK(*m, alongRows)) {
      reason += "; " + std::string(name) +
                " is 2:4 sparse along K: the sparse tensor cores of Ampere and later run exactly that (cuSPARSELt, "
                "PyTorch's to_sparse_semi_structured), and it leaves no tile to skip";
    }
  }
}

// Where the model was calibrated on problems larger than this one, the recommendation says so.
void noteASmallProblem(Inspection& inspection) {
  const double outputs = static_cast<double>(inspection.a.rows) * inspection.b.cols;
  if (outputs < kSmallProblemOutputs) {
    inspection.recommendation.reason += "; a guess at this size (launches and idle SMs decide; auto measures on a GPU)";
  }
}

// JSON has no Inf: a speedup over nothing left to do is null.
nlohmann::json finiteOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json operandJson(const OperandSummary& s) {
  return {{"source", s.source}, {"rows", s.rows}, {"cols", s.cols}, {"density", s.density}};
}

}  // namespace

OperandSummary summarizeOperand(const Matrix& m, std::string source) {
  return {std::move(source), m.rows(), m.cols(), m.nonZeroFraction()};
}

struct ProblemInspector::Patterns {
  Operands ops;
};

ProblemInspector::ProblemInspector(const Matrix& a, const Matrix& b) : a_(a) {
  checkMultiplicable(a, b);
  patterns_ = std::make_unique<Patterns>(Patterns{Operands{PatternCache(a, Operand::A), PatternCache(b, Operand::B)}});
}

ProblemInspector::~ProblemInspector() = default;

KernelInspection ProblemInspector::inspect(const KernelInfo& kernel, const SpeedModel& model) {
  if (kernel.runs(VendorRoutine::CusparseCsrSpmm) && aDensity_ < 0.0) aDensity_ = a_.nonZeroFraction();
  return inspectOne(kernel, patterns_->ops, aDensity_, model);
}

KernelInspection inspectKernel(const Matrix& a, const Matrix& b, const KernelInfo& kernel, const SpeedModel& model) {
  return ProblemInspector(a, b).inspect(kernel, model);
}

Inspection inspectProblem(const Matrix& a, const Matrix& b, std::span<const KernelInfo* const> kernels,
                          const SpeedModel& model, OperandSummary aSummary, OperandSummary bSummary, DType dtype) {
  checkMultiplicable(a, b);
  if (kernels.empty()) throw InputError("inspect: the backend implements no kernel");
  Inspection result;
  result.a = std::move(aSummary);
  result.b = std::move(bSummary);
  result.modelName = model.name();
  result.dtype = dtype;
  ProblemInspector inspector(a, b);
  for (const KernelInfo* kernel : kernels) result.kernels.push_back(inspector.inspect(*kernel, model));
  result.recommendation = recommend(result.kernels);
  noteDivergent(result);
  notePointers(result, a, b);
  noteASmallProblem(result);
  return result;
}

Inspection inspectOnBackend(const Backend& backend, const Matrix& a, const Matrix& b, std::string aSource,
                            std::string bSource, DType dtype) {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo* k : backend.kernels()) {
    if (backend.takes(*k, dtype)) kernels.push_back(k);
  }
  if (kernels.empty()) {
    throw InputError("backend " + std::string(backend.name()) + " has no kernel that takes " + std::string(dtypeName(dtype)) +
                     " inputs (see `tileskip list`)");
  }
  const std::optional<SpeedModel> model =
      SpeedModel::forInputs(backend.name(), backend.device().name, backend.device().isGpu, dtype);
  Inspection inspection = inspectProblem(a, b, kernels, model ? *model : SpeedModel::uncalibrated(),
                                         summarizeOperand(a, std::move(aSource)), summarizeOperand(b, std::move(bSource)), dtype);
  bool refusals = false;
  for (KernelInspection& k : inspection.kernels) {
    k.refusal = backend.refusal(*k.kernel, a.rows(), b.cols(), a.cols()).value_or("");
    refusals = refusals || !k.refusal.empty();
  }
  if (refusals) {
    inspection.recommendation = recommend(inspection.kernels);
    noteDivergent(inspection);
    notePointers(inspection, a, b);
    noteASmallProblem(inspection);
  }
  if (model) {
    // The verdict names what it stands on: this device's calibration, another GPU's, or none.
    inspection.recommendation.reason += "; model: " + model->name();
    if (!backend.device().isGpu) inspection.recommendation.reason += " (--model " + modelledDeviceList() + " predicts for a GPU)";
    return inspection;
  }
  const std::string type(dtypeName(dtype));
  inspection.ranked = false;
  inspection.modelName = "none for " + type + " inputs on " + std::string(backend.name()) + " (no calibration measured them)";
  for (KernelInspection& k : inspection.kernels) k.predictedSpeedup = std::numeric_limits<double>::quiet_NaN();
  // The dense kernel of that precision, else the first the device runs.
  const KernelInspection* dense = nullptr;
  for (const KernelInspection& k : inspection.kernels) {
    if (k.refusal.empty() && (dense == nullptr || k.kernel->id == denseReferenceKernel(dtype))) dense = &k;
  }
  if (dense == nullptr) return inspection;  // refused everywhere: recommend() said why
  inspection.recommendation = {dense->kernel, "the dense kernel for " + type + " inputs: no model ranks the " + type +
                                                  " kernels yet (--kernel auto measures them on a GPU)"};
  return inspection;
}

std::vector<CompactionBound> compactionBounds(const Matrix& a) {
  std::vector<CompactionBound> bounds;
  for (int rows : kCompactionRows) {
    for (const LiveColumns& live : findLiveColumns(a, rows, kCompactionGranularities)) {
      bounds.push_back({rows, live.granularity, live.meanLiveFraction(), live.maxLiveFraction()});
    }
  }
  return bounds;
}

std::string compactionNote(const Inspection& r) {
  if (r.compaction.empty()) return "";
  const CompactionBound* best = &r.compaction.front();
  for (const CompactionBound& c : r.compaction) {
    if (c.meanLiveFraction < best->meanLiveFraction) best = &c;
  }
  double tileLoads = 1.0;
  for (const KernelInspection& k : r.kernels) {
    if (k.kernel->skips() && !k.kernel->compacts() && k.refusal.empty()) tileLoads = std::min(tileLoads, k.loadedFraction);
  }
  // The compaction kernels of the catalogue, and the row tiles each gathers single columns of.
  std::string gatherers;
  for (const KernelInfo& k : twinKernels()) {
    if (k.compacts()) gatherers += (gatherers.empty() ? "" : ", ") + std::string(k.id) + " at " + std::to_string(k.aGranularity) + " rows";
  }
  char text[400];
  if (best->meanLiveFraction >= kNothingToGather) {
    std::snprintf(text, sizeof text, "nothing to gather: every row tile keeps %.2f of K or more live (%d rows, %d-column groups at best)",
                  best->meanLiveFraction, best->rows, best->granularity);
  } else {
    std::snprintf(text, sizeof text,
                  "gathering A's live columns would multiply %.3f of K (%d-row tiles, %d-column groups; the slowest tile "
                  "%.3f), where the best tile skip loads %.3f; gathered by %s",
                  best->meanLiveFraction, best->rows, best->granularity, best->maxLiveFraction, tileLoads, gatherers.c_str());
  }
  return text;
}

std::optional<double> PackedWeightBounds::packedMs() const {
  if (!bandwidth) return std::nullopt;
  return static_cast<double>(keptBytes + otherBytes) / *bandwidth * 1e3;
}

std::optional<double> PackedWeightBounds::denseMs() const {
  if (!bandwidth) return std::nullopt;
  return static_cast<double>(denseBytes + otherBytes) / *bandwidth * 1e3;
}

PackedWeightBounds packedWeightBounds(const BlockSparseMatrix& weight, int tokens, DType dtype, Backend& backend) {
  PackedWeightBounds b;
  b.block = weight.block();
  b.keptBlocks = weight.keptBlocks();
  b.blocks = weight.blockRows() * weight.blockCols();
  b.keptFraction = weight.density();
  b.dtype = dtype;
  b.tokens = tokens;
  const std::int64_t word = dtype == DType::Fp16 || dtype == DType::Bf16 ? 2 : 4;
  b.keptBytes = static_cast<std::int64_t>(weight.keptBlocks()) * weight.blockValues() * word;
  b.denseBytes = static_cast<std::int64_t>(weight.rows()) * weight.cols() * word;
  b.otherBytes = static_cast<std::int64_t>(weight.cols()) * tokens * word + static_cast<std::int64_t>(weight.rows()) * tokens * 4;
  b.bandwidth = backend.copyBandwidth();
  b.bandwidthIsPeak = backend.bandwidthIsPeak();
  return b;
}

std::string packedWeightNote(const PackedWeightBounds& b) {
  auto mib = [](std::int64_t bytes) { return fixed(static_cast<double>(bytes) / (1 << 20), 1) + " MiB"; };
  std::string note = "packed weight: " + std::to_string(b.keptBlocks) + " of " + std::to_string(b.blocks) + " " + std::to_string(b.block) +
                     "-blocks kept (" + fixed(b.keptFraction, 3) + "), " + mib(b.keptBytes) + " of " + std::string(dtypeName(b.dtype)) +
                     " against " + mib(b.denseBytes) + " dense. At " + std::to_string(b.tokens) + (b.tokens == 1 ? " token" : " tokens") +
                     " the bytes (the weight, X and C once each) bound a kernel";
  auto us = [](double ms) { return fixed(ms * 1e3, ms < 1e-2 ? 2 : 1) + " us"; };
  if (b.bandwidth) {
    note += " at " + us(*b.packedMs()) + " packed, " + us(*b.denseMs()) + " dense (" +
            fixed(*b.bandwidth / 1e12, 2) + " TB/s, " + (b.bandwidthIsPeak ? "the data sheet's peak" : "a copy timed on the device") + ")";
  }
  note += ": at most " + fixed(b.bytesSpeedup(), 2) + "x the vendor GEMM, which reads the weight whole; the products bound it at " +
          fixed(b.productsSpeedup(), 2) + "x (1 / the kept fraction; the packed ceiling, bench --suite weights, is below it). The "
          "bytes decide at few tokens, the products at many";
  return note;
}

std::string inspectionJson(const Inspection& r, const Backend& backend) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelInspection& k : r.kernels) {
    kernels.push_back({{"kernel", k.kernel->id},
                       {"a_granularity", k.aGranularity},
                       {"b_granularity", k.bGranularity},
                       {"a_pattern_density", k.aPatternDensity},
                       {"b_pattern_density", k.bPatternDensity},
                       {"joint_density", k.jointDensity},
                       {"ideal_speedup", finiteOrNull(k.idealSpeedup)},
                       {"load_bound_speedup", finiteOrNull(k.loadBoundSpeedup)},
                       {"loaded_fraction", k.loadedFraction},
                       {"union_waste", finiteOrNull(k.jointDensity > 0.0 ? k.loadedFraction / k.jointDensity : INFINITY)},
                       {"predicted_speedup", finiteOrNull(k.predictedSpeedup)},
                       {"refused", k.refusal.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.refusal)}});
  }
  nlohmann::json compaction = nlohmann::json::array();
  for (const CompactionBound& c : r.compaction) {
    compaction.push_back({{"rows", c.rows},
                          {"granularity", c.granularity},
                          {"live_fraction", c.meanLiveFraction},
                          {"max_live_fraction", c.maxLiveFraction}});
  }
  nlohmann::json document = {
      {"schema", kInspectSchema},
      {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
      {"a", operandJson(r.a)},
      {"b", operandJson(r.b)},
      {"backend", backend.name()},
      {"device", backend.device().describe()},
      {"dtype", dtypeName(r.dtype)},
      {"model", r.modelName},
      {"kernels", kernels},
      {"compaction", compaction},
      {"recommendation", {{"kernel", r.recommendation.kernel->id}, {"reason", r.recommendation.reason}}},
  };
  if (r.packed) {
    const PackedWeightBounds& p = *r.packed;
    auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    document["packed"] = {{"block", p.block},
                          {"kept_blocks", p.keptBlocks},
                          {"blocks", p.blocks},
                          {"kept_fraction", p.keptFraction},
                          {"tokens", p.tokens},
                          {"kept_bytes", p.keptBytes},
                          {"dense_bytes", p.denseBytes},
                          {"other_bytes", p.otherBytes},
                          {"bandwidth", optional(p.bandwidth)},
                          {"bandwidth_is_peak", p.bandwidthIsPeak},
                          {"bytes_bound_ms", optional(p.packedMs())},
                          {"dense_bytes_bound_ms", optional(p.denseMs())},
                          {"bytes_speedup", p.bytesSpeedup()},
                          {"products_speedup", finiteOrNull(p.productsSpeedup())}};
  } else {
    document["packed"] = nullptr;
  }
  return jsonDocumentText(document);
}

}  // namespace tileskip
