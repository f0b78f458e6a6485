#include "core/measure/mlp.hpp"

#include <chrono>
#include <cmath>
#include <utility>

#include "core/io/report.hpp"
#include "core/measure/bench.hpp"
#include "core/model/dtype.hpp"
#include "core/model/error.hpp"
#include "core/model/live_columns.hpp"
#include "core/model/problem.hpp"
#include "core/model/reference.hpp"

namespace tileskip {

namespace {

std::string shape(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

void checkLayerShapes(const Matrix& x, const Matrix& w1, const Matrix& w2) {
  if (x.empty() || w1.empty() || w2.empty()) throw InputError("X, W1 and W2 must each hold at least one element");
  if (w1.rows() != x.cols()) {
    throw InputError("W1 is " + shape(w1) + " but X has " + std::to_string(x.cols()) +
                     " columns: X·W1 needs W1 with as many rows as X has columns");
  }
  if (w2.rows() != w1.cols()) {
    throw InputError("W2 is " + shape(w2) + " but W1 has " + std::to_string(w1.cols()) +
                     " columns (the hidden width): H·W2 needs W2 with as many rows as W1 has columns");
  }
  checkMatrixShape(x.rows(), w1.cols(), "H");
  checkMatrixShape(x.rows(), w2.cols(), "Y");
}

struct PassInputs {
  Matrix x, w1, w2;
  const KernelInfo* first;
  const KernelInfo* second;
  bool reorder;
};

// One GEMM of the layer as a multiply: the request's dtype, verification and repeats.
MultiplyRequest gemmRequest(const MlpRequest& request, Matrix a, Matrix b, std::string fileA, std::string fileB,
                            const KernelInfo* kernel, std::function<void(const std::string&)> onNote) {
  MultiplyRequest gemm;
  gemm.a = std::move(a);
  gemm.b = std::move(b);
  gemm.fileA = std::move(fileA);
  gemm.fileB = std::move(fileB);
  gemm.dtype = request.dtype;
  gemm.kernel = kernel;
  gemm.verify = request.verify;
  gemm.repeat = request.repeat;
  gemm.onNote = std::move(onNote);
  return gemm;
}

// X·W1, the activation on the host, H·W2: Y into `y`, H's non-zero fraction into `density`.
// `tell` hears each note as it arises, the first build's among them; `notes` keeps the GEMMs' own.
MlpPass runPass(Backend& backend, const MlpRequest& request, PassInputs in, Matrix& y, double& density,
                const std::string& prefix, const std::function<void(const std::string&)>& tell,
                std::vector<std::string>& notes) {
  MlpPass pass;
  pass.first = multiply(backend, gemmRequest(request, std::move(in.x), std::move(in.w1), request.fileX, request.fileW1, in.first,
                                             [&](const std::string& note) { tell(prefix + "X·W1: " + note); }));
  for (const std::string& note : pass.first.notes) notes.push_back(prefix + "X·W1: " + note);

  Matrix h = std::move(pass.first.c);
  const auto start = std::chrono::steady_clock::now();
  applyActivation(h, request.activation);
  pass.activationMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  density = h.nonZeroFraction();

  MultiplyRequest second = gemmRequest(request, std::move(h), std::move(in.w2), "", request.fileW2, in.second,
                                       [&](const std::string& note) { tell(prefix + "H·W2: " + note); });
  second.reorder = in.reorder;
  pass.second = multiply(backend, std::move(second));
  for (const std::string& note : pass.second.notes) notes.push_back(prefix + "H·W2: " + note);
  y = std::move(pass.second.c);
  return pass;
}

// The layer fused on the device (Backend::uploadLayer): the first GEMM's epilogue writes H for
// the second, so there is no activation pass and no preparation of H. H is checked against
// act(X·W1) with one rounding to the dtype allowed (StoredOutput), Y against H·W2.
MlpPass runFused(Backend& backend, const MlpRequest& request, PassInputs in, Matrix& y, double& density,
                 std::vector<std::string>& notes) {
  for (auto [matrix, name] : {std::pair{&in.x, "X"}, std::pair{&in.w1, "W1"}, std::pair{&in.w2, "W2"}}) {
    if (std::string rounded = roundOperand(*matrix, request.dtype, name); !rounded.empty()) {
      notes.push_back(rounded);
      if (request.onNote) request.onNote(rounded);
    }
  }
  const bool relu = request.activation == Activation::Relu;
  std::unique_ptr<DeviceLayer> layer = backend.uploadLayer(in.x, in.w1, in.w2, request.dtype, relu, *in.first, *in.second);
  if (in.reorder) {
    // The neurons in the order of how many tokens fire each, learned from H of a first run: W1's
    // columns and W2's rows together, which leaves Y as it is, and clusters the live columns the
    // compaction kernel gathers. The layer is then uploaded in that order.
    const auto start = std::chrono::steady_clock::now();
    layer->run();
    const Matrix h = layer->downloadH();
    layer.reset();
    const std::vector<int> order = firingOrder(h);
    const int rows = in.second->aGranularity;
    // A tile's live columns are the same set in any order; what the order changes is how they
    // cluster, which groups of columns measure (S15 copies a range whole where enough of it is live).
    const double live = findLiveColumns(h, rows, kFiringGroup).meanLiveFraction();
    const double sortedLive = findLiveColumns(permuteCols(h, order), rows, kFiringGroup).meanLiveFraction();
    in.w1 = permuteCols(in.w1, order);
    in.w2 = permuteRows(in.w2, order);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string note = "H·W2: sorted the neurons (W1's columns, W2's rows) by how many tokens fire each in a first run, " +
                             fixed(took, 2) + " s: live " + std::to_string(kFiringGroup) + "-column groups in " +
                             std::to_string(rows) + "-row tiles " + fixed(live, 3) +
                             " -> " + fixed(sortedLive, 3);
    notes.push_back(note);
    if (request.onNote) request.onNote(note);
    layer = backend.uploadLayer(in.x, in.w1, in.w2, request.dtype, relu, *in.first, *in.second);
  }
  DeviceLayer::Times times = layer->run();
  if (request.repeat > 1) {  // that run was the warm-up
    std::vector<double> first, second;
    for (int i = 0; i < request.repeat; ++i) {
      const DeviceLayer::Times run = layer->run();
      first.push_back(run.firstMs);
      second.push_back(run.secondMs);
    }
    times = {summarize(std::move(first)).median, summarize(std::move(second)).median};
  }
  Matrix h = layer->downloadH();
  y = layer->downloadY();
  layer.reset();
  density = h.nonZeroFraction();
  // H is kept in the 16-bit type: finite inputs whose H overflows it (fp16 past 65504) are the
  // input's fault, as a run's operand beyond its dtype is, whether or not anything is verified.
  if (const NonFiniteCount inH = countNonFinite(h); inH.total() > 0 && !hasNonFinite(in.x) && !hasNonFinite(in.w1)) {
    throw InputError("H = " + std::string(activationName(request.activation)) + "(X·W1) holds " + inH.describe() +
                     " where X and W1 are finite: its values pass " + std::string(dtypeName(request.dtype)) +
                     "'s largest finite value, " + fixed(largestFinite(request.dtype), 0) +
                     " (scale the inputs, or choose bf16, whose range is fp32's)");
  }

  MlpPass pass;
  pass.fused = true;
  for (auto [gemm, kernel, ms] : {std::tuple{&pass.first, in.first, times.firstMs}, std::tuple{&pass.second, in.second, times.secondMs}}) {
    gemm->kernel = kernel;
    gemm->why = "requested";
    gemm->kernelMs = ms;
    gemm->timedRuns = request.repeat;
  }
  if (request.verify) {
    ErrorReport hidden = compareToReference(h, referenceProduct(in.x, in.w1), {relu, request.dtype});
    if (!hidden.passed) {
      throw Error(ExitCode::VerificationFailed, "kernel " + std::string(in.first->id) +
                                                    " with the layer's epilogue gave a wrong H (" + hidden.summary() + ")");
    }
    pass.first.verification = hidden;
    pass.second.verification = verifyProduct(y, h, in.w2, in.second->id);
  }
  return pass;
}

}  // namespace

std::string_view activationName(Activation activation) { return activation == Activation::Relu ? "relu" : "none"; }

Activation parseActivation(std::string_view name) {
  if (name == "relu") return Activation::Relu;
  if (name == "none") return Activation::None;
  throw InputError("unknown activation '" + std::string(name) + "': choose relu or none");
}

void applyActivation(Matrix& h, Activation activation) {
  if (activation == Activation::None) return;
  for (float& value : h.values()) {
    if (!(value > 0.0f) && !std::isnan(value)) value = 0.0f;
  }
}

MlpResult runMlp(const std::function<Backend&()>& openBackend, MlpRequest request) {
  checkLayerShapes(request.x, request.w1, request.w2);
  MlpResult result;
  auto tell = [&](const std::string& note) {
    if (request.onNote) request.onNote(note);
  };
  // The compared pass needs the operands as read; the first pass takes its own copies.
  std::optional<PassInputs> compared;
  if (request.compare != nullptr) {
    compared = PassInputs{request.x, request.w1, request.w2, request.compare, request.compare, false};
  }
  Backend& backend = openBackend();
  PassInputs own{std::move(request.x), std::move(request.w1), std::move(request.w2), request.first, request.second, request.reorder};
  // Fused where both kernels are named and the backend has their pair.
  if (request.first != nullptr && request.second != nullptr && backend.fusesLayer(*request.first, *request.second, request.dtype)) {
    result.layer = runFused(backend, request, std::move(own), result.y, result.hiddenDensity, result.notes);
  } else {
    result.layer = runPass(backend, request, std::move(own), result.y, result.hiddenDensity, "", tell, result.notes);
  }
  if (compared) {
    Matrix y;
    double density = 0.0;
    result.compared = runPass(backend, request, std::move(*compared), y, density,
                              std::string(request.compare->id) + " layer, ", tell, result.notes);
  }
  return result;
}

}  // namespace tileskip
