// tileskip mlp: Y = act(X·W1)·W2, an MLP layer, from .npy / .mtx files, written to .npy / .mtx.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli_common.hpp"
#include "core/io/matrix_io.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/mlp.hpp"
#include "core/model/error.hpp"

namespace tileskip::cli {

namespace {

struct MlpFlags {
  std::string x, w1, w2, out;
  BackendFlags backend;
  std::string activation = "relu";
  std::string firstKernel = "auto", kernel = "auto", compare;
  bool noVerify = false;
  int repeat = 1;
  bool reorder = false;
  std::string dtype = "fp32";
};

void validateMlp(const MlpFlags& flags) {
  formatFromPath(flags.x);
  formatFromPath(flags.w1);
  formatFromPath(flags.w2);
  formatFromPath(flags.out);  // refuse an unknown output extension before any work
  flags.backend.validate(false);
  parseActivation(flags.activation);
  parseMultiplyKernel(flags.firstKernel, "--first-kernel", "mlp", true);
  parseMultiplyKernel(flags.kernel, "--kernel", "mlp", true);
  if (!flags.compare.empty()) parseMultiplyKernel(flags.compare, "--compare", "mlp", false);
  checkBenchOptions({.warmup = 0, .repeat = flags.repeat});
  parseDType(flags.dtype);
}

std::string describeGemm(std::string_view what, const MultiplyResult& gemm) {
  std::ostringstream line;
  line << "  " << what << ": " << gemm.kernel->id << " " << gemm.kernelMs << " ms";
  if (gemm.prepareMs > 0.0) line << " + " << (gemm.kernel->skips() ? "patterns " : "preparation ") << gemm.prepareMs << " ms";
  line << (gemm.automatic ? " (auto: " + gemm.why + ")" : "") << "; " << gemm.checked() << "\n";
  if (!gemm.nonFiniteNote.empty()) line << "    note: " << gemm.nonFiniteNote << "\n";
  return line.str();
}

int runMlp(const MlpFlags& flags) {
  MlpRequest request;
  for (const auto& [matrix, path, name] : {std::tuple{&request.x, &flags.x, "X"}, std::tuple{&request.w1, &flags.w1, "W1"},
                                           std::tuple{&request.w2, &flags.w2, "W2"}}) {
    MatrixReadInfo info;
    *matrix = readMatrix(*path, &info);
    if (!info.note.empty()) note(std::string(name) + " (" + *path + "): " + info.note);
  }
  request.fileX = flags.x;
  request.fileW1 = flags.w1;
  request.fileW2 = flags.w2;
  request.dtype = parseDType(flags.dtype);
  request.activation = parseActivation(flags.activation);
  request.first = parseMultiplyKernel(flags.firstKernel, "--first-kernel", "mlp", true);
  request.second = parseMultiplyKernel(flags.kernel, "--kernel", "mlp", true);
  request.compare = flags.compare.empty() ? nullptr : parseMultiplyKernel(flags.compare, "--compare", "mlp", false);
  request.verify = !flags.noVerify;
  request.reorder = flags.reorder;
  request.repeat = flags.repeat;
  request.onNote = note;
  const int m = request.x.rows(), d = request.x.cols(), f = request.w1.cols(), n = request.w2.cols();

  std::unique_ptr<Backend> backend;
  auto openChosen = [&]() -> Backend& {
    backend = std::move(flags.backend.open().front());
    return *backend;
  };
  MlpResult result;
  try {
    result = tileskip::runMlp(openChosen, std::move(request));
  } catch (const Error& e) {
    if (e.code() != ExitCode::VerificationFailed) throw;
    throw Error(e.code(), std::string(e.what()) + "; nothing written");
  }
  writeMatrix(flags.out, result.y);
  const MlpPass& layer = result.layer;
  std::cout << "wrote " << flags.out << ": Y " << m << "x" << n << " = " << flags.activation << "(X " << m << "x" << d
            << " · W1 " << d << "x" << f << ") · W2 " << f << "x" << n << " by " << backend->name() << " on "
            << backend->device().name << ", " << flags.dtype << " inputs"
            << (flags.repeat > 1 ? ", times the median of " + std::to_string(flags.repeat) + " runs after one warm-up" : "")
            << "\n"
            << describeGemm("X·W1", layer.first)
            << (layer.fused ? "  " + flags.activation + " in X·W1's epilogue, which writes H as H·W2's kernel reads it " +
                                  "(transposed, " + flags.dtype + ", with the live columns of its row tiles)"
                            : "  " + flags.activation + " on the host: " + std::to_string(layer.activationMs) + " ms")
            << "; H " << result.hiddenDensity << " non-zero\n"
            << describeGemm("H·W2", layer.second) << "  layer: " << layer.layerMs()
            << " ms on the device (both kernels and what H·W2's kernel builds from H)\n";
  if (result.compared) {
    const MlpPass& other = *result.compared;
    std::cout << "  the same layer by " << other.first.kernel->id << " twice: " << other.layerMs() << " ms (X·W1 "
              << other.first.kernelMs << ", H·W2 " << other.second.kernelMs << "); this layer is "
              << std::fixed << std::setprecision(2) << other.layerMs() / layer.layerMs() << "x as fast\n";
  }
  return 0;
}

}  // namespace

Command addMlpCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "mlp", "an MLP layer, Y = act(X·W1)·W2, from .npy/.mtx files: the second GEMM multiplies the activation's zeros");
  auto flags = std::make_shared<MlpFlags>();
  app->add_option("--x", flags->x, "X, the layer's input, M x D (.npy or .mtx)")->required();
  app->add_option("--w1", flags->w1, "W1, D x F: F is the hidden width, the layer's neurons")->required();
  app->add_option("--w2", flags->w2, "W2, F x N")->required();
  app->add_option("--out", flags->out, "where Y goes (.npy or .mtx)")->required();
  flags->backend.addTo(app, "");
  app->add_option("--activation", flags->activation, "applied to X·W1: relu or none")->capture_default_str();
  app->add_option("--first-kernel", flags->firstKernel, "X·W1's kernel id, or auto")->capture_default_str();
  app->add_option("--kernel", flags->kernel,
                  "H·W2's kernel id, or auto: the kernel `tileskip inspect` recommends for the hidden activations H "
                  "and W2 (a compaction kernel where the activation's zeros are spread out). With --first-kernel wgmma "
                  "and --kernel compact-wgmma-128 in fp16 or bf16 on a Hopper GPU the two run fused: X·W1's epilogue "
                  "applies the activation and writes H as the compaction kernel reads it")
      ->capture_default_str();
  app->add_option("--compare", flags->compare,
                  "also run the layer with this kernel for both GEMMs (cublas: the layer as a framework runs it) "
                  "and report both times");
  app->add_option("--repeat", flags->repeat,
                  "timed runs of each GEMM after one warm-up run; the median is reported (default: time the single run)")
      ->capture_default_str();
  app->add_flag("--no-verify", flags->noVerify, "skip checking each GEMM against its float64 reference");
  app->add_option("--dtype", flags->dtype,
                  "the inputs' precision: " + dtypeNames() +
                      "; X, W1, W2 and H are rounded to it before the kernels see them, and each GEMM accumulates in fp32")
      ->capture_default_str();
  app->add_flag("--reorder", flags->reorder,
                "permute the neurons (H's columns and W2's rows together, which leaves Y unchanged) and H·W2's rows "
                "and columns as `run --reorder` does; Y comes back in the original order (fused: the neurons alone, "
                "sorted by how many tokens fire each in a first run)");
  return {app, [flags] { return runMlp(*flags); }, [flags] { validateMlp(*flags); }};
}

}  // namespace tileskip::cli
