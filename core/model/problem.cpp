#include "core/model/problem.hpp"

#include <cmath>

#include <iomanip>
#include <sstream>

#include "core/io/block_sparse_io.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/error.hpp"

namespace tileskip {

void ProblemSpec::validate() const {
  checkMatrixShape(m, k, "A (M x K)");
  checkMatrixShape(k, n, "B (K x N)");
  checkMatrixShape(m, n, "C (M x N)");
  checkDensity(densityA, "--density-a");
  checkDensity(densityB, "--density-b");
  checkGenerator(generatorOf(Operand::A), optionsOf(Operand::A));
  checkGenerator(generatorOf(Operand::B), optionsOf(Operand::B));
  if (packBlock != 0 && !isPackedBlockSize(packBlock)) {
    throw InputError("--pack-a " + std::to_string(packBlock) + " is not a block size the packed format takes (" + packedBlockSizeList() + ")");
  }
  if (packBlock != 0 && reordered) throw InputError("--reorder permutes A, whose packed blocks are its own: drop one of --reorder and --pack-a");
}

const std::string& ProblemSpec::generatorOf(Operand operand) const {
  return operand == Operand::B && generatorB ? *generatorB : generator;
}

const GeneratorOptions& ProblemSpec::optionsOf(Operand operand) const {
  return operand == Operand::B && optionsB ? *optionsB : options;
}

std::string ProblemSpec::sourceOf(Operand operand) const {
  if (!fileOf(operand).empty()) return fileOf(operand);
  std::ostringstream out;
  out << generatorOf(operand) << " d=" << (operand == Operand::A ? densityA : densityB);
  const std::string& name = generatorOf(operand);
  if (name == "segments" || name == "blocks") out << " block=" << optionsOf(operand).block;
  return out.str();
}

std::string ProblemSpec::describe() const {
  std::ostringstream out;
  if (generatorB || optionsB || !fileA.empty() || !fileB.empty() || reordered) {
    out << "M=" << m << " N=" << n << " K=" << k << ", A: " << sourceOf(Operand::A) << ", B: " << sourceOf(Operand::B);
    if (fileA.empty() || fileB.empty()) out << ", seed " << seed;  // files need none
    out << (reordered ? ", reordered" : "");
    return out.str();
  }
  out << "M=" << m << " N=" << n << " K=" << k << ", generator " << generator << ", density A " << densityA
      << ", density B " << densityB << ", seed " << seed;
  if (dtype != DType::Fp32) out << ", " << dtypeName(dtype) << " inputs";
  if (packBlock > 0) out << ", A packed in " << packBlock << "-blocks";
  return out.str();
}

std::string roundOperand(Matrix& m, DType type, std::string_view name) {
  if (type == DType::Fp32) return "";
  std::size_t overflowed = 0, vanished = 0;
  for (float& x : m.values()) {
    const float rounded = roundTo(type, x);
    if (std::isfinite(x) && !std::isfinite(rounded)) ++overflowed;
    if (x != 0.0f && rounded == 0.0f) ++vanished;
    x = rounded;
  }
  if (overflowed > 0) {
    // fp16's range is small, bf16's is fp32's but for the values that round up past its largest.
    std::ostringstream largest;
    largest << std::setprecision(type == DType::Fp16 ? 5 : 4) << largestFinite(type);
    throw InputError(std::string(name) + " holds " + std::to_string(overflowed) + " value(s) beyond " +
                     std::string(dtypeName(type)) + "'s range (its largest finite value is " + largest.str() +
                     "): scale it, or use " + (type == DType::Fp16 ? "--dtype bf16 or fp32" : "--dtype fp32"));
  }
  if (vanished == 0) return "";
  return std::string(name) + ": " + std::to_string(vanished) + " non-zero value(s) below " + std::string(dtypeName(type)) +
         "'s smallest subnormal became zero";
}

namespace {

// A read from a packed file (.npz) keeps the file's topology, stored blocks of zeros and all, with
// the problem's values (rounded to its dtype): the form the bsr kernels of its block read.
// With --pack-a, A packed at that block instead (the blocks holding a non-zero).
void keepPackedTopology(const ProblemSpec& spec, ProblemData& data) {
  const DType stored = spec.dtype == DType::Tf32 ? DType::Fp32 : spec.dtype;
  if (spec.packBlock > 0) {
    data.packedA = packBlocks(data.a, spec.packBlock, stored);
    return;
  }
  if (spec.fileA.empty() || formatFromPath(spec.fileA) != MatrixFormat::PackedNpz) return;
  const BlockSparseMatrix file = readBlockSparse(spec.fileA);
  data.packedA = packMaskedBlocks(data.a, file.blockMask(), file.block(), stored);
}

}  // namespace

ProblemData generateProblem(const ProblemSpec& spec) {
  spec.validate();
  std::string sha256A, sha256B;
  auto operand = [&](Operand which, int rows, int cols, double density) {
    const std::string& file = spec.fileOf(which);
    if (file.empty()) return generate(spec.generatorOf(which), which, rows, cols, density, spec.seed, spec.optionsOf(which));
    MatrixReadInfo info;
    Matrix m = readMatrix(file, &info);
    (which == Operand::A ? sha256A : sha256B) = info.sha256;
    if (m.rows() != rows || m.cols() != cols) {
      throw InputError(std::string(operandName(which)) + " from " + file + " is " + std::to_string(m.rows()) + "x" +
                       std::to_string(m.cols()) + " but the problem needs " + std::to_string(rows) + "x" +
                       std::to_string(cols));
    }
    return m;
  };
  ProblemData data{operand(Operand::A, spec.m, spec.k, spec.densityA), operand(Operand::B, spec.k, spec.n, spec.densityB)};
  data.sha256A = sha256A;
  data.sha256B = sha256B;
  for (const auto& [matrix, name] : {std::pair{&data.a, "A"}, std::pair{&data.b, "B"}}) {
    if (std::string note = roundOperand(*matrix, spec.dtype, name); !note.empty()) data.readNotes.push_back(note);
  }
  keepPackedTopology(spec, data);
  return data;
}



ProblemData loadProblem(ProblemSpec& spec, const std::function<bool(char)>& sizeGiven) {
  std::optional<Matrix> a, b;
  std::vector<std::string> notes;
  std::string sha256A, sha256B;
  auto read = [&](const std::string& file, const char* operand) {
    MatrixReadInfo info;
    Matrix m = readMatrix(file, &info);
    if (!info.note.empty()) notes.push_back(std::string(operand) + " (" + file + "): " + info.note);
    (std::string_view(operand) == "A" ? sha256A : sha256B) = info.sha256;
    return m;
  };
  auto take = [&](char dimension, int& size, int fromFile, const std::string& file) {
    if (sizeGiven(dimension) && size != fromFile) {
      throw InputError(std::string("--") + dimension + " " + std::to_string(size) + " disagrees with " + file +
                       ", which gives " + std::to_string(fromFile));
    }
    size = fromFile;
  };
  if (!spec.fileA.empty()) {
    a = read(spec.fileA, "A");
    take('m', spec.m, a->rows(), spec.fileA);
    take('k', spec.k, a->cols(), spec.fileA);
  }
  if (!spec.fileB.empty()) {
    b = read(spec.fileB, "B");
    if (a && b->rows() != a->cols()) {
      throw InputError("A (" + spec.fileA + ") is " + std::to_string(a->rows()) + "x" + std::to_string(a->cols()) +
                       " but B (" + spec.fileB + ") is " + std::to_string(b->rows()) + "x" + std::to_string(b->cols()) +
                       ": A's columns must equal B's rows");
    }
    take('k', spec.k, b->rows(), spec.fileB);
    take('n', spec.n, b->cols(), spec.fileB);
  }
  spec.validate();
  ProblemData data;
  data.a = a ? std::move(*a) : generate(spec.generatorOf(Operand::A), Operand::A, spec.m, spec.k, spec.densityA, spec.seed,
                                        spec.optionsOf(Operand::A));
  data.b = b ? std::move(*b) : generate(spec.generatorOf(Operand::B), Operand::B, spec.k, spec.n, spec.densityB, spec.seed,
                                        spec.optionsOf(Operand::B));
  data.readNotes = std::move(notes);
  data.sha256A = sha256A;
  data.sha256B = sha256B;
  for (const auto& [matrix, name] : {std::pair{&data.a, "A"}, std::pair{&data.b, "B"}}) {
    if (std::string note = roundOperand(*matrix, spec.dtype, name); !note.empty()) data.readNotes.push_back(note);
  }
  keepPackedTopology(spec, data);
  return data;
}

}  // namespace tileskip
