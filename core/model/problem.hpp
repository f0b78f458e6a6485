// A benchmark problem: sizes, how A and B are generated, and the seed, so that any result can
// be reproduced from what a report prints.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/block_sparse.hpp"
#include "core/model/generators.hpp"
#include "core/model/dtype.hpp"
#include "core/model/matrix.hpp"

namespace tileskip {

struct ProblemSpec {
  int m = 512, n = 512, k = 512;
  std::string generator = "uniform";  // A's, and B's unless generatorB is set
  double densityA = 1.0;
  double densityB = 1.0;
  std::uint64_t seed = 42;
  GeneratorOptions options;           // A's, and B's unless optionsB is set
  std::optional<std::string> generatorB;
  std::optional<GeneratorOptions> optionsB;
  // An operand read from a .npy / .mtx file instead of generated; the sizes must match it
  // (readProblemFiles() sets them from the files).
  std::string fileA, fileB;
  // A's rows, B's columns and K permuted to gather zeros into tiles (core/model/reorder.hpp); C then
  // comes out permuted the same way.
  bool reordered = false;
  // The inputs' precision: A and B are rounded to it once they are generated or read
  // (core/model/dtype.hpp), and every kernel and the reference see the rounded values.
  DType dtype = DType::Fp32;
  // A packed in blocks of this edge as a weight is (--pack-a; 0: packed only where its file is): the
  // blocks holding a non-zero kept (ProblemData::packedA).
  int packBlock = 0;

  const std::string& generatorOf(Operand operand) const;
  const GeneratorOptions& optionsOf(Operand operand) const;
  const std::string& fileOf(Operand operand) const { return operand == Operand::A ? fileA : fileB; }
  // "a.npy" for a file, else "segments d=0.5 G=32"
  std::string sourceOf(Operand operand) const;

  // Throws InputError on bad sizes, densities or generator names.
  void validate() const;
  std::string describe() const;
  bool operator==(const ProblemSpec&) const = default;  // "M=.. N=.. K=.., A: uniform d=0.5, B: ..., seed 42"
};

struct ProblemData {
  Matrix a, b;
  // What reading a file operand converted (float64, Fortran order, ...) and what rounding to the
  // dtype changed: "A (a.npy): ..." lines.
  std::vector<std::string> readNotes = {};
  // A file operand's SHA-256 (hex), so that reports name the very file; empty where generated.
  std::string sha256A = {}, sha256B = {};
  // A as a packed block-sparse matrix, where it was read packed (an .npz) or packed on request
  // (--pack-a): its topology, which the bsr kernels of its block read as it is (attachPackedA).
  // `a` is the dense matrix it stands for.
  std::optional<BlockSparseMatrix> packedA = {};
};


// Rounds `m` (operand `name`: "A" or "B") to `type` in place. InputError where a finite value
// would become infinite (beyond fp16's 65504); a note, returned, where non-zero values become
// zero (below the type's smallest subnormal), else "".
std::string roundOperand(Matrix& m, DType type, std::string_view name);

// Generates A and B, or reads them where the spec names files (their shapes must be the spec's).
ProblemData generateProblem(const ProblemSpec& spec);

// Reads the operands the spec names files for once, takes M, K (and N) from them, and generates
// the others at the spec's sizes. `sizeGiven(dimension)` says whether the user set that size
// ('m', 'n', 'k'): such a size must agree with the file. Throws InputError on a mismatch.
ProblemData loadProblem(ProblemSpec& spec, const std::function<bool(char)>& sizeGiven);

}  // namespace tileskip
