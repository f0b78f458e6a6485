// tileskip gen: write a generated matrix to .npy or .mtx.
#include <iostream>

#include "cli_common.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/pattern.hpp"

namespace tileskip::cli {

namespace {

struct GenFlags {
  std::string generator = "uniform";
  std::int64_t rows = 0, cols = 0;
  double density = 1.0;
  std::uint64_t seed = 42;
  std::string operand = "A";
  GeneratorOptions options;
  std::string out;
};

void validateGen(const GenFlags& flags) {
  if (flags.operand != "A" && flags.operand != "B") throw InputError("--operand must be A or B");
  formatFromPath(flags.out);  // refuse an unknown extension before generating
  checkMatrixShape(flags.rows, flags.cols, "--rows x --cols");
  checkDensity(flags.density, "--density");
  checkGenerator(flags.generator, flags.options);
}

int runGen(const GenFlags& flags) {
  validateGen(flags);
  Matrix m = generate(flags.generator, flags.operand == "A" ? Operand::A : Operand::B, static_cast<int>(flags.rows),
                      static_cast<int>(flags.cols), flags.density, flags.seed, flags.options);
  writeMatrix(flags.out, m);
  std::cout << "wrote " << flags.out << ": " << m.rows() << "x" << m.cols() << ", " << m.countNonZeros()
            << " non-zeros (density " << static_cast<double>(m.countNonZeros()) / static_cast<double>(m.size())
            << "), generator " << flags.generator << ", seed " << flags.seed << "\n";
  return 0;
}

}  // namespace

Command addGenCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("gen", "generate a matrix and write it as .npy or .mtx");
  auto flags = std::make_shared<GenFlags>();
  app->add_option("--generator", flags->generator, "one of: " + generatorNameList())->capture_default_str();
  app->add_option("--rows", flags->rows, "rows")->required();
  app->add_option("--cols", flags->cols, "columns")->required();
  app->add_option("--density", flags->density, "fraction of non-zero elements, in [0,1]")->capture_default_str();
  app->add_option("--seed", flags->seed, "random seed")->check(seedValidator())->capture_default_str();
  app->add_option("--operand", flags->operand, "A (zeros tile rows x K-blocks) or B (K-blocks x columns)")
      ->capture_default_str();
  app->add_option("--block", flags->options.block, "segment rows/columns, or block edge")
      ->capture_default_str();
  app->add_option("--group-size", flags->options.groupSize, "M of N:M sparsity")->capture_default_str();
  app->add_option("--skew", flags->options.skew, "neurons: the power law's exponent over the neurons' firing rates")
      ->capture_default_str();
  app->add_option("--out", flags->out, "output file, .npy or .mtx")->required();
  return {app, [flags] { return runGen(*flags); }, [flags] { validateGen(*flags); }};
}

}  // namespace tileskip::cli
