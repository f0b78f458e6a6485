// tileskip run: C = A·B for matrices read from .npy / .mtx files, written to .npy / .mtx.
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "core/io/block_sparse_io.hpp"
#include "core/io/matrix_io.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/multiply.hpp"
#include "core/model/error.hpp"

namespace tileskip::cli {

namespace {

struct RunFlags {
  std::string a, b, out;
  BackendFlags backend;
  std::string kernel = "auto";
  bool noVerify = false;
  int repeat = 1;
  bool reorder = false;
  int packA = 0;  // --pack-a BLOCK
  std::string dtype = "fp32";
};

bool packedFile(const std::string& path) { return formatFromPath(path) == MatrixFormat::PackedNpz; }

void validateRun(const RunFlags& flags) {
  formatFromPath(flags.a);
  formatFromPath(flags.b);
  formatFromPath(flags.out);  // refuse an unknown output extension before any work
  flags.backend.validate(false);
  parseMultiplyKernel(flags.kernel, "--kernel", "run", true);
  checkBenchOptions({.warmup = 0, .repeat = flags.repeat});
  parseDType(flags.dtype);
  if (flags.packA != 0 && !isPackedBlockSize(flags.packA)) {
    throw InputError("--pack-a " + std::to_string(flags.packA) + " is not a block size the packed format takes (" + packedBlockSizeList() + ")");
  }
  if (flags.reorder && (flags.packA != 0 || packedFile(flags.a))) {
    throw InputError("--reorder permutes A, whose packed blocks are its own: drop --reorder for a packed A");
  }
}

int runRun(const RunFlags& flags) {
  formatFromPath(flags.out);  // refuse an unknown output extension before any work
  MultiplyRequest request;
  MatrixReadInfo aInfo, bInfo;
  request.a = readMatrix(flags.a, &aInfo);
  // A packed keeps its topology (a stored block of zeros stays stored); --pack-a packs it anew.
  if (flags.packA != 0) {
    request.packedA = packBlocks(request.a, flags.packA, DType::Fp32);
  } else if (packedFile(flags.a)) {
    request.packedA = readBlockSparse(flags.a);
  }
  request.b = readMatrix(flags.b, &bInfo);
  if (!aInfo.note.empty()) note("A (" + flags.a + "): " + aInfo.note);
  if (!bInfo.note.empty()) note("B (" + flags.b + "): " + bInfo.note);
  const int m = request.a.rows(), k = request.a.cols(), kB = request.b.rows(), n = request.b.cols();
  request.fileA = flags.a;
  request.fileB = flags.b;
  const DType dtype = parseDType(flags.dtype);
  request.dtype = dtype;
  request.kernel = parseMultiplyKernel(flags.kernel, "--kernel", "run", true);
  request.verify = !flags.noVerify;
  request.reorder = flags.reorder;
  request.repeat = flags.repeat;
  request.onNote = note;

  std::unique_ptr<Backend> backend;
  auto openChosen = [&]() -> Backend& {
    backend = std::move(flags.backend.open().front());
    return *backend;
  };
  MultiplyResult result;
  try {
    result = multiply(openChosen, std::move(request));
  } catch (const Error& e) {
    if (e.code() != ExitCode::VerificationFailed) throw;
    throw Error(e.code(), std::string(e.what()) + "; nothing written");
  }
  const KernelInfo& kernel = *result.kernel;
  writeMatrix(flags.out, result.c);
  std::cout << "wrote " << flags.out << ": C " << result.c.rows() << "x" << result.c.cols() << " = A " << m << "x" << k
            << " · B " << kB << "x" << n << " by " << backend->name() << " " << kernel.id << " on "
            << backend->device().name << (result.automatic ? " (auto: " + result.why + ")" : "") << " in "
            << result.kernelMs << " ms"
            << (flags.repeat > 1 ? " (median of " + std::to_string(flags.repeat) + " runs after one warm-up)" : "")
            << (result.prepareMs > 0.0
                    ? (kernel.readsPackedA() ? ", packing A once " : kernel.skips() ? ", patterns " : ", preparation ") +
                          std::to_string(result.prepareMs) + " ms"
                    : "")
            << (dtype != DType::Fp32 ? ", inputs rounded to " + std::string(dtypeName(dtype)) : "")
            << (result.roundingMs > 0.0 ? " (their " + std::string(dtypeName(dtype)) + " copies on the device " +
                                              std::to_string(result.roundingMs) + " ms)"
                                        : "")
            << "; " << (flags.noVerify ? "not verified (--no-verify)" : result.checked()) << "\n";
  if (!result.nonFiniteNote.empty()) std::cout << "note: " << result.nonFiniteNote << "\n";
  return 0;
}

}  // namespace

Command addRunCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("run", "multiply two matrices from .npy/.mtx files and write C");
  auto flags = std::make_shared<RunFlags>();
  app->add_option("--a", flags->a, "A, an M x K matrix (.npy or .mtx, or a packed block-sparse .npz)")->required();
  app->add_option("--pack-a", flags->packA,
                  "BLOCK: A packed in square blocks of this edge (16, 32, 64 or 128, the blocks holding a non-zero kept), for "
                  "the bsr kernels of that block");
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
