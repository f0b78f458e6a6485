// tileskip run: C = A·B for matrices read from .npy / .mtx files, written to .npy / .mtx.
#include <iostream>
#include <optional>

#include "cli_common.hpp"
#include "core/measure/bench.hpp"
#include "core/model/error.hpp"
#include "core/process/host_memory.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/reference.hpp"

namespace tileskip::cli {

namespace {

struct RunFlags {
  std::string a, b, out;
  BackendFlags backend;
  std::string kernel = "auto";
  bool noVerify = false;
  int repeat = 1;
  bool reorder = false;
  std::string dtype = "fp32";
};

void validateRun(const RunFlags& flags) {
  formatFromPath(flags.a);
  formatFromPath(flags.b);
  formatFromPath(flags.out);  // refuse an unknown output extension before any work
  flags.backend.validate(false);
  if (flags.kernel != "auto" && (flags.kernel == "all" || parseKernelList(flags.kernel).size() != 1)) {
    throw InputError("--kernel '" + flags.kernel + "': run multiplies with one kernel; give a single id or auto");
  }
  checkBenchOptions({.warmup = 0, .repeat = flags.repeat});
  parseDType(flags.dtype);
}

int runRun(const RunFlags& flags) {
  formatFromPath(flags.out);  // refuse an unknown output extension before any work
  MatrixReadInfo aInfo, bInfo;
  Matrix a = readMatrix(flags.a, &aInfo);
  Matrix b = readMatrix(flags.b, &bInfo);
  if (!aInfo.note.empty()) note("A (" + flags.a + "): " + aInfo.note);
  if (!bInfo.note.empty()) note("B (" + flags.b + "): " + bInfo.note);
  checkMultiplicable(a, b);
  // Rounded once, here: the kernel, auto and the reference all see the rounded values.
  const DType inputs = parseDType(flags.dtype);
  for (const auto& [matrix, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    if (std::string rounded = roundOperand(*matrix, inputs, name); !rounded.empty()) note(rounded);
  }
  // C, the float64 reference (A·B and |A|·|B|) and float64 copies of A and B.
  checkHostMemory((sizeof(float) + 2 * sizeof(double)) * static_cast<std::uint64_t>(a.rows()) * static_cast<std::uint64_t>(b.cols()) +
                      sizeof(double) * (a.values().size() + b.values().size()),
                  "C and the float64 reference C (" + std::to_string(a.rows()) + "x" + std::to_string(b.cols()) + ")");

  std::unique_ptr<Backend> backend = std::move(flags.backend.open().front());
  // --reorder: the kernel multiplies permuted operands (auto inspects those); C is put back in
  // the original order, exactly, before it is checked against the unpermuted product and written.
  std::optional<Reordering> reordering;
  std::optional<ReorderedProblem> permuted;
  if (flags.reorder) {
    Matrix pa = a, pb = b;
    reordering = reorderOperands(pa, pb);
    permuted = ReorderedProblem{std::move(pa), std::move(pb)};
  }
  const KernelInfo* kernel = nullptr;
  std::string chosen;
  if (flags.kernel != "auto") {
    // validateRun() made sure the list names exactly one kernel; strict throws if it is missing here.
    kernel = selectKernels(flags.kernel, *backend, true, inputs).front();
  } else {
    ProblemSpec spec;
    spec.fileA = flags.a;
    spec.fileB = flags.b;
    spec.dtype = inputs;
    const Recommendation choice =
        permuted ? chooseAuto(*backend, permuted->a, permuted->b, spec) : chooseAuto(*backend, a, b, spec);
    kernel = choice.kernel;
    chosen = " (auto: " + choice.reason + ")";
  }

  std::unique_ptr<DeviceProblem> onDevice =
      permuted ? backend->upload(permuted->a, permuted->b, inputs) : backend->upload(a, b, inputs);
  const double prepareMs = onDevice->prepare(*kernel);
  onDevice->poisonC();
  double ms = onDevice->run(*kernel);
  if (flags.repeat > 1) {  // the first run above is the warm-up; the median of the rest is reported
    std::vector<double> times;
    for (int i = 0; i < flags.repeat; ++i) times.push_back(onDevice->run(*kernel));
    ms = summarize(times).median;
  }
  Matrix c = reordering ? restoreC(onDevice->downloadC(), *reordering) : onDevice->downloadC();
  // NaN and Inf in the inputs are computed with, not refused, and said so: C holds them too.
  NonFiniteCount inA = countNonFinite(a), inB = countNonFinite(b), inC = countNonFinite(c);
  bool inputsNonFinite = inA.total() + inB.total() > 0;
  std::string checked = "not verified (--no-verify)";
  std::size_t differFromReference = 0;
  if (!flags.noVerify) {
    ErrorReport error = compareToReference(c, referenceProduct(a, b));
    if (!error.passed) {
      throw Error(ExitCode::VerificationFailed,
                  "kernel " + std::string(kernel->id) + " gave a wrong C (" + error.summary() + "); nothing written");
    }
    differFromReference = error.mismatchedNonFinite;
    checked = std::string(inC.total() > 0 ? "its finite elements " : "") + "verified against the float64 reference (" +
              error.summary() + ")";
  }
  writeMatrix(flags.out, c);
  std::cout << "wrote " << flags.out << ": C " << c.rows() << "x" << c.cols() << " = A " << a.rows() << "x" << a.cols()
            << " · B " << b.rows() << "x" << b.cols() << " by " << backend->name() << " " << kernel->id << " on "
            << backend->device().name << chosen << " in " << ms << " ms"
            << (flags.repeat > 1 ? " (median of " + std::to_string(flags.repeat) + " runs after one warm-up)" : "")
            << (prepareMs > 0.0 ? (kernel->skips() ? ", patterns " : ", preparation ") + std::to_string(prepareMs) + " ms" : "")
            << (inputs != DType::Fp32 ? ", inputs rounded to " + std::string(dtypeName(inputs)) : "") << "; " << checked << "\n";
  if (inputsNonFinite) {
    std::cout << "note: the inputs hold NaN/Inf (A: " << inA.describe() << "; B: " << inB.describe()
              << "), computed with IEEE arithmetic: C holds " << inC.describe();
    if (differFromReference > 0) {
      std::cout << "; " << differFromReference << " elements of C differ from the reference, which forms the 0·Inf = NaN "
                << "products that " << kernel->id << " skips";
    }
    std::cout << "\n";
  } else if (inC.total() > 0) {
    std::cout << "note: C holds " << inC.describe() << " although A and B are finite: the products overflow fp32\n";
  }
  return 0;
}

}  // namespace

Command addRunCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("run", "multiply two matrices from .npy/.mtx files and write C");
  auto flags = std::make_shared<RunFlags>();
  app->add_option("--a", flags->a, "A, an M x K matrix (.npy or .mtx)")->required();
  app->add_option("--b", flags->b, "B, a K x N matrix (.npy or .mtx)")->required();
  app->add_option("--out", flags->out, "where C goes (.npy or .mtx)")->required();
  flags->backend.addTo(app, "");
  app->add_option("--kernel", flags->kernel,
                  "kernel id, or auto: the kernel `tileskip inspect` recommends for A and B on this backend")
      ->capture_default_str();
  app->add_option("--repeat", flags->repeat, "timed runs after one warm-up run; the median is reported (default: "
                                             "time the single run)")
      ->capture_default_str();
  app->add_flag("--no-verify", flags->noVerify, "skip the check against the CPU reference");
  app->add_option("--dtype", flags->dtype,
                  "the inputs' precision: " + dtypeNames() +
                      "; A and B are rounded to it before the kernel and the reference see them, and C accumulates in fp32")
      ->capture_default_str();
  app->add_flag("--reorder", flags->reorder,
                "permute A's rows, B's columns and K to gather zeros into skippable tiles; C comes back in the "
                "original order");
  return {app, [flags] { return runRun(*flags); }, [flags] { validateRun(*flags); }};
}

}  // namespace tileskip::cli
