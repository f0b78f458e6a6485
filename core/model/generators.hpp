// Seeded, reproducible sparse matrix generators. Every generator takes a density in [0,1]
// (the expected fraction of non-zero elements) and draws its non-zero values from a
// distribution bounded away from zero, so a zero in a generated matrix is always a zero the
// generator meant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/model/matrix.hpp"

namespace tileskip {

// Which side of C = A·B a matrix is for: A is M×K, B is K×N. Generators that align zeros to
// patterns need it, because A-patterns tile rows and B-patterns tile columns.
enum class Operand { A, B };

std::string_view operandName(Operand operand);

// Past this exponent the coldest neurons' weights underflow and the density can no longer be met.
inline constexpr double kMaxNeuronSkew = 8.0;

struct GeneratorOptions {
  // The zeros' block edge: segments: rows (A) or columns (B) per zero segment, one K-block deep;
  // blocks: the edge of the square zero blocks. (A pattern's granularity is the kernel's, apart.)
  int block = 32;
  // nm: group size M of the N:M structure (N follows from the density, e.g. 0.5 → 2:4).
  int groupSize = 4;
  // neurons: the exponent of the power law over the neurons' firing probabilities (0: every neuron
  // fires equally often; larger: a few hot neurons, many cold ones).
  double skew = 1.0;

  bool operator==(const GeneratorOptions&) const = default;
};

struct GeneratorInfo {
  std::string_view name;
  std::string_view summary;
};

// uniform, segments, blocks, nm, banded, relu, neurons.
std::span<const GeneratorInfo> generators();
std::string generatorNameList();

// Throws InputError on an unknown name, a density outside [0,1] (or NaN), a bad shape or a
// block edge / group size that is not positive.
Matrix generate(std::string_view generator, Operand operand, int rows, int cols, double density,
                std::uint64_t seed, const GeneratorOptions& options = {});

// Throws InputError on an unknown name, a block edge / group size that is not positive or a skew
// outside [0, kMaxNeuronSkew]: what generate() checks beyond the shape and the density.
void checkGenerator(std::string_view generator, const GeneratorOptions& options);

// Throws InputError unless 0 <= density <= 1.
void checkDensity(double density, std::string_view what);

// An MLP layer whose ReLU leaves H = relu(X·W1) as `neurons` makes an A: each hidden unit fires on
// a token independently with its own probability, a power law over the units of exponent `skew`
// averaging `density`. X (tokens x width) is standard normal but for its last column, ones; W1's
// columns (width x hidden) have unit norm above the last row, a bias that fires unit j with its
// probability (X·W1's column j before the bias is standard normal on every token); W2 (hidden x
// outputs) normal with variance 1 / hidden. InputError on a shape too small or a density outside (0, 1].
struct MlpLayerOperands {
  Matrix x, w1, w2;
};
MlpLayerOperands generateMlpLayer(int tokens, int width, int hidden, int outputs, double density, double skew,
                                  std::uint64_t seed);

}  // namespace tileskip
