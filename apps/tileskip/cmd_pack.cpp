// tileskip pack: a dense matrix (.npy, .mtx) written packed in square blocks (.npz, SciPy's BSR
// layout), the form the bsr kernels read; or a packed file read back and described.
#include <iostream>

#include "cli_common.hpp"
#include "core/io/block_sparse_io.hpp"
#include "core/io/report.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/error.hpp"
#include "core/model/problem.hpp"

namespace tileskip::cli {

namespace {

struct PackFlags {
  std::string in, out;
  int block = 64;
  std::string dtype = "fp32";
};

void validatePack(const PackFlags& flags) {
  if (formatFromPath(flags.in) == MatrixFormat::PackedNpz && flags.out.empty()) return;  // describe a packed file
  if (!isPackedBlockSize(flags.block)) {
    throw InputError("--block " + std::to_string(flags.block) + " is not a block size the packed format takes (" + packedBlockSizeList() + ")");
  }
  if (flags.out.empty()) throw InputError("pack needs OUT.npz to write (or a packed IN.npz alone, to describe it)");
  if (formatFromPath(flags.out) != MatrixFormat::PackedNpz) throw InputError(flags.out + ": pack writes a packed .npz");
  const DType dtype = parseDType(flags.dtype);
  if (dtype == DType::Tf32) throw InputError("--dtype tf32 is a compute mode: pack fp32 values and run them with --dtype tf32");
}

// "4096 x 4096 in blocks of 64: 1024 of 4096 blocks kept (density 0.250), 16.0 MiB of fp32 values"
std::string describe(const BlockSparseMatrix& m) {
  const long long blocks = static_cast<long long>(m.blockRows()) * m.blockCols();
  return std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + " in blocks of " + std::to_string(m.block()) + ": " +
         std::to_string(m.keptBlocks()) + " of " + std::to_string(blocks) + " blocks kept (density " + fixed(m.density(), 3) + "), " +
         fixed(static_cast<double>(m.valueBytes()) / (1 << 20), 1) + " MiB of " + std::string(dtypeName(m.dtype())) + " values";
}

int runPack(const PackFlags& flags) {
  validatePack(flags);
  if (formatFromPath(flags.in) == MatrixFormat::PackedNpz && flags.out.empty()) {
    std::cout << flags.in << ": " << describe(readBlockSparse(flags.in)) << "\n";
    return 0;
  }
  MatrixReadInfo info;
  Matrix dense = readMatrix(flags.in, &info);
  if (!info.note.empty()) std::cerr << "tileskip: " << flags.in << ": " << info.note << "\n";
  const DType dtype = parseDType(flags.dtype);
  if (std::string note = roundOperand(dense, dtype, "the matrix"); !note.empty()) std::cerr << "tileskip: " << note << "\n";
  const BlockSparseMatrix packed = packBlocks(dense, flags.block, dtype);
  writeBlockSparse(flags.out, packed);
  std::cout << "wrote " << flags.out << ": " << describe(packed) << "\n";
  return 0;
}

}  // namespace

Command addPackCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "pack", "pack a dense matrix in square blocks (keeping those with a non-zero) into a .npz the bsr kernels read; "
              "with a packed .npz alone, describe it");
  auto flags = std::make_shared<PackFlags>();
  app->add_option("IN", flags->in, "the matrix: .npy or .mtx to pack, or a packed .npz to describe")->required();
  app->add_option("OUT", flags->out, "the packed matrix to write, .npz (SciPy's BSR layout: scipy.sparse.load_npz reads it)");
  app->add_option("--block", flags->block, "the blocks' edge: " + packedBlockSizeList())->capture_default_str();
  app->add_option("--dtype", flags->dtype, "the values' precision, " + std::string("fp32, fp16 or bf16 (rounded once)"))->capture_default_str();
  return {app, [flags] { return runPack(*flags); }, [flags] { validatePack(*flags); }};
}

}  // namespace tileskip::cli
