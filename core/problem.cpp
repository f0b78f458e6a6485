#include "core/problem.hpp"

#include <sstream>

#include "core/error.hpp"

namespace tileskip {

void ProblemSpec::validate() const {
  checkMatrixShape(m, k, "A (M x K)");
  checkMatrixShape(k, n, "B (K x N)");
  checkMatrixShape(m, n, "C (M x N)");
  checkDensity(densityA, "--density-a");
  checkDensity(densityB, "--density-b");
  checkGenerator(generator, options);
}

std::string ProblemSpec::describe() const {
  std::ostringstream out;
  out << "M=" << m << " N=" << n << " K=" << k << ", generator " << generator << ", density A " << densityA
      << ", density B " << densityB << ", seed " << seed;
  return out.str();
}

ProblemData generateProblem(const ProblemSpec& spec) {
  spec.validate();
  return {generate(spec.generator, Operand::A, spec.m, spec.k, spec.densityA, spec.seed, spec.options),
          generate(spec.generator, Operand::B, spec.k, spec.n, spec.densityB, spec.seed, spec.options)};
}

}  // namespace tileskip
