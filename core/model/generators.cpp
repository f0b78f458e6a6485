#include "core/model/generators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"

namespace tileskip {

namespace {

constexpr std::array<GeneratorInfo, 7> kGenerators = {{
    {"uniform", "each element non-zero with probability = density (unstructured, like pruned weights)"},
    {"segments", "zero segments of one K-block by G rows of A / G columns of B, aligned to the pattern tiles"},
    {"blocks", "block-sparse: whole GxG blocks kept or zeroed, aligned to G"},
    {"nm", "N:M structured sparsity along K (density 0.5 with M=4 gives 2:4)"},
    {"banded", "non-zeros in a diagonal band whose width gives the density"},
    {"relu", "ReLU-like activations: zeros clustered by rows and columns, positive values"},
    {"neurons", "an MLP's hidden activations: each K index a neuron firing on a token with its own probability, "
                "the probabilities a power law (--skew) whose mean is the density, positive values"},
}};

// Values in ±[0.25, 1]: never an accidental zero, and small enough that K-long dot products
// stay far from overflow.
class ValueSource {
 public:
  explicit ValueSource(std::mt19937_64& rng) : rng_(rng) {}
  float next() {
    float magnitude = magnitude_(rng_);
    return (rng_() & 1u) ? magnitude : -magnitude;
  }

 private:
  std::mt19937_64& rng_;
  std::uniform_real_distribution<float> magnitude_{0.25f, 1.0f};
};

// Mixes the seed with the operand so that A and B generated with one seed differ.
std::mt19937_64 makeRng(std::uint64_t seed, Operand operand) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                         static_cast<std::uint32_t>(operand == Operand::A ? 0xA : 0xB)};
  return std::mt19937_64(sequence);
}

Matrix uniform(int rows, int cols, double density, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  ValueSource values(rng);
  std::bernoulli_distribution keep(density);
  for (float& v : m.values()) {
    if (keep(rng)) v = values.next();
  }
  return m;
}

// Fills the rectangle [r0, r1) x [c0, c1) with non-zero values.
void fillRect(Matrix& m, int r0, int r1, int c0, int c1, ValueSource& values) {
  for (int r = r0; r < std::min(r1, m.rows()); ++r) {
    for (int c = c0; c < std::min(c1, m.cols()); ++c) m(r, c) = values.next();
  }
}

// Keeps each (tileRows x tileCols) rectangle of a regular grid with probability = density.
Matrix tiled(int rows, int cols, double density, int tileRows, int tileCols, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  ValueSource values(rng);
  std::bernoulli_distribution keep(density);
  for (int r = 0; r < rows; r += tileRows) {
    for (int c = 0; c < cols; c += tileCols) {
      if (keep(rng)) fillRect(m, r, r + tileRows, c, c + tileCols, values);
    }
  }
  return m;
}

// N of every M consecutive elements along K are kept, at positions drawn per group.
Matrix nm(Operand operand, int rows, int cols, double density, int groupSize, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  ValueSource values(rng);
  int keepCount = static_cast<int>(std::lround(density * groupSize));
  std::vector<int> slots(static_cast<std::size_t>(groupSize));
  // K runs along A's columns and along B's rows.
  int lines = operand == Operand::A ? rows : cols;
  int depth = operand == Operand::A ? cols : rows;
  for (int line = 0; line < lines; ++line) {
    for (int k0 = 0; k0 < depth; k0 += groupSize) {
      std::iota(slots.begin(), slots.end(), 0);
      std::shuffle(slots.begin(), slots.end(), rng);
      for (int s = 0; s < keepCount; ++s) {
        int k = k0 + slots[static_cast<std::size_t>(s)];
        if (k >= depth) continue;
        float v = values.next();
        if (operand == Operand::A) {
          m(line, k) = v;
        } else {
          m(k, line) = v;
        }
      }
    }
  }
  return m;
}

// Keeps elements with |x - y| <= w on the unit square (x, y the element centres scaled to
// [0,1]): that band covers 1 - (1 - w)^2 of the square, so w = 1 - sqrt(1 - density).
Matrix banded(int rows, int cols, double density, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  if (density <= 0.0) return m;
  ValueSource values(rng);
  double halfWidth = 1.0 - std::sqrt(1.0 - density);
  for (int r = 0; r < rows; ++r) {
    double y = (r + 0.5) / rows;
    for (int c = 0; c < cols; ++c) {
      double x = (c + 0.5) / cols;
      if (std::abs(x - y) <= halfWidth) m(r, c) = values.next();
    }
  }
  return m;
}

// A pre-activation z = rowBias + colBias + noise, passed through a ReLU whose threshold is the
// (1 - density) quantile of z: rows and columns with low bias come out mostly zero, the way
// real activations cluster, and the density is met exactly up to ties.
Matrix relu(int rows, int cols, double density, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  if (density <= 0.0) return m;
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> rowBias(static_cast<std::size_t>(rows)), colBias(static_cast<std::size_t>(cols));
  for (double& b : rowBias) b = 1.2 * gauss(rng);
  for (double& b : colBias) b = 1.2 * gauss(rng);
  std::vector<double> z(m.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      z[static_cast<std::size_t>(r) * cols + c] = rowBias[r] + colBias[c] + 0.5 * gauss(rng);
    }
  }
  std::vector<double> sorted = z;
  auto zeros = static_cast<std::size_t>(std::llround((1.0 - density) * static_cast<double>(z.size())));
  double threshold = -INFINITY;
  if (zeros > 0) {
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(zeros - 1), sorted.end());
    threshold = sorted[zeros - 1];
  }
  std::span<float> out = m.values();
  for (std::size_t i = 0; i < z.size(); ++i) {
    // The 0.25 floor keeps activations bounded away from zero, like the other generators.
    if (z[i] > threshold) out[i] = static_cast<float>(0.25 + (z[i] - threshold));
  }
  return m;
}

// A language model's MLP activations after a ReLU, as the sparsity literature measures them: a
// token leaves most neurons inactive (TurboSparse reports about 90 % of Mistral-7B's, ProSparse
// about 89 % of LLaMA-2-7B's), and how often a neuron fires follows a power law over the neurons
// (PowerInfer's hot and cold neurons). Neuron j (a K index: A's column, B's row) fires on each
// token independently with probability p_j = min(1, c / (rank_j + 1)^skew), the ranks a random
// permutation of the neurons (a layer's hot neurons are not adjacent until a reordering puts
// them so), c chosen so that the p_j average the density. Values are positive.
// The neurons' firing probabilities, each neuron's drawn from `rng`'s permutation of the ranks.
std::vector<double> firingProbabilities(int count, double density, double skew, std::mt19937_64& rng) {
  std::vector<double> weight(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) weight[static_cast<std::size_t>(r)] = std::pow(r + 1.0, -skew);
  auto meanProbability = [&](double scale) {
    double sum = 0.0;
    for (double w : weight) sum += std::min(1.0, scale * w);
    return sum / count;
  };
  // The mean grows with the scale from 0 to 1 (every probability capped at 1): bisect for the density.
  double low = 0.0, high = 1.0;
  while (meanProbability(high) < density && high < 1e300) high *= 2.0;
  for (int i = 0; i < 200 && high - low > 1e-15 * high; ++i) {
    const double middle = 0.5 * (low + high);
    (meanProbability(middle) < density ? low : high) = middle;
  }
  std::vector<int> rank(static_cast<std::size_t>(count));
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), rng);
  std::vector<double> probability(static_cast<std::size_t>(count));
  for (int j = 0; j < count; ++j) {
    probability[static_cast<std::size_t>(j)] = std::min(1.0, high * weight[static_cast<std::size_t>(rank[static_cast<std::size_t>(j)])]);
  }
  return probability;
}

Matrix neurons(Operand operand, int rows, int cols, double density, double skew, std::mt19937_64& rng) {
  Matrix m(rows, cols);
  const int count = operand == Operand::A ? cols : rows;
  if (density <= 0.0 || count == 0) return m;
  const std::vector<double> probability = firingProbabilities(count, density, skew, rng);
  ValueSource values(rng);
  std::uniform_real_distribution<double> draw(0.0, 1.0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int neuron = operand == Operand::A ? c : r;
      if (draw(rng) < probability[static_cast<std::size_t>(neuron)]) m(r, c) = std::abs(values.next());
    }
  }
  return m;
}

// z with P(N(0, 1) <= z) = q, 0 < q < 1: by bisection on the normal CDF, 0.5·erfc(-z / sqrt 2).
double standardNormalQuantile(double q) {
  double low = -40.0, high = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double middle = 0.5 * (low + high);
    (0.5 * std::erfc(-middle / std::sqrt(2.0)) < q ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

}  // namespace

std::string_view operandName(Operand operand) { return operand == Operand::A ? "A" : "B"; }

MlpLayerOperands generateMlpLayer(int tokens, int width, int hidden, int outputs, double density, double skew, std::uint64_t seed) {
  if (tokens < 1 || width < 2 || hidden < 1 || outputs < 1) {
    throw InputError("an MLP layer needs at least 1 token, 2 input columns (one is the bias's), 1 hidden unit and 1 output");
  }
  if (!(density > 0.0 && density <= 1.0)) throw InputError("the layer's firing density must lie in (0, 1]");
  std::mt19937_64 rng = makeRng(seed, Operand::A);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  MlpLayerOperands layer{Matrix(tokens, width), Matrix(width, hidden), Matrix(hidden, outputs)};
  for (int i = 0; i < tokens; ++i) {
    for (int c = 0; c + 1 < width; ++c) layer.x(i, c) = normal(rng);
    layer.x(i, width - 1) = 1.0f;
  }
  for (int j = 0; j < hidden; ++j) {
    double norm = 0.0;
    for (int c = 0; c + 1 < width; ++c) {
      layer.w1(c, j) = normal(rng);
      norm += static_cast<double>(layer.w1(c, j)) * layer.w1(c, j);
    }
    const float scale = norm > 0.0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0f;
    for (int c = 0; c + 1 < width; ++c) layer.w1(c, j) *= scale;
  }
  const std::vector<double> probability = firingProbabilities(hidden, density, skew, rng);
  for (int j = 0; j < hidden; ++j) {
    const double p = probability[static_cast<std::size_t>(j)];
    // Fires when a standard normal exceeds -bias: with probability p; p = 1 far above any draw.
    layer.w1(width - 1, j) = p >= 1.0 ? 8.0f : static_cast<float>(-standardNormalQuantile(1.0 - p));
  }
  const float spread = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hidden)));
  for (float& v : layer.w2.values()) v = spread * normal(rng);
  return layer;
}

std::span<const GeneratorInfo> generators() { return kGenerators; }

std::string generatorNameList() {
  std::string list;
  for (const GeneratorInfo& g : kGenerators) {
    if (!list.empty()) list += ", ";
    list += g.name;
  }
  return list;
}

void checkDensity(double density, std::string_view what) {
  if (!(density >= 0.0 && density <= 1.0)) {
    throw InputError(std::string(what) + " " + std::to_string(density) +
                     " is outside [0, 1]; a density is the fraction of non-zero elements");
  }
}

void checkGenerator(std::string_view generator, const GeneratorOptions& options) {
  bool known = false;
  for (const GeneratorInfo& g : kGenerators) known = known || g.name == generator;
  if (!known) throw InputError("unknown generator '" + std::string(generator) + "'; known generators: " + generatorNameList());
  if (options.block < 1) {
    throw InputError("generator block edge " + std::to_string(options.block) + " must be at least 1");
  }
  if (options.groupSize < 1) {
    throw InputError("N:M group size " + std::to_string(options.groupSize) + " must be at least 1");
  }
  if (!(options.skew >= 0.0 && options.skew <= kMaxNeuronSkew)) {
    throw InputError("neuron firing skew " + std::to_string(options.skew) + " must be between 0 and " +
                     std::to_string(static_cast<int>(kMaxNeuronSkew)) + " (the power law's exponent)");
  }
}

Matrix generate(std::string_view generator, Operand operand, int rows, int cols, double density,
                std::uint64_t seed, const GeneratorOptions& options) {
  checkMatrixShape(rows, cols, "generated matrix");
  checkDensity(density, "density of " + std::string(operandName(operand)));
  checkGenerator(generator, options);
  std::mt19937_64 rng = makeRng(seed, operand);
  if (generator == "uniform") return uniform(rows, cols, density, rng);
  if (generator == "segments") {
    // A segment is G rows x one K-block of A, or one K-block x G columns of B.
    return operand == Operand::A ? tiled(rows, cols, density, options.block, kKBlock, rng)
                                 : tiled(rows, cols, density, kKBlock, options.block, rng);
  }
  if (generator == "blocks") return tiled(rows, cols, density, options.block, options.block, rng);
  if (generator == "nm") return nm(operand, rows, cols, density, options.groupSize, rng);
  if (generator == "banded") return banded(rows, cols, density, rng);
  if (generator == "relu") return relu(rows, cols, density, rng);
  if (generator == "neurons") return neurons(operand, rows, cols, density, options.skew, rng);
  throw std::logic_error("generator '" + std::string(generator) + "' is listed in kGenerators but not implemented");
}

}  // namespace tileskip
