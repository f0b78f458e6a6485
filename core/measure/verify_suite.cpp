#include "core/measure/verify_suite.hpp"

#include <chrono>
#include <sstream>

#include "core/model/error.hpp"
#include "core/model/pattern.hpp"

namespace tileskip {

namespace {

struct Shape {
  int m, n, k;
  std::string text() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
};

// 1x1x1 and 7x13x5 are smaller than any tile; 100x37x259 cuts every tile and K-block
// partially; 128^3 is an exact multiple of the 128 x 128 block tiles; 130x70x136 is one past them.
constexpr Shape kTiny{1, 1, 1}, kOdd{7, 13, 5}, kMid{100, 37, 259}, kTile{128, 128, 128}, kOver{130, 70, 136};
// The largest block tile (128 x 256) whole: once beside its edges with five whole K-tiles, and
// alone with one, where a loop that streams whole K-tiles (K12's interior) starts and stops.
constexpr Shape kWide{130, 260, 40}, kWideOneKTile{128, 256, 8};
// K past 8192: more than 1024 K-blocks, so kernels that list the K-blocks a block needs walk K
// in several passes.
constexpr Shape kLongK{33, 40, 8300};

ProblemData dense(Shape s, std::uint64_t seed) {
  return {generate("uniform", Operand::A, s.m, s.k, 1.0, seed), generate("uniform", Operand::B, s.k, s.n, 1.0, seed)};
}

ProblemData zeros(Shape s) { return {Matrix(s.m, s.k), Matrix(s.k, s.n)}; }

std::string describeDensity(double d) {
  std::ostringstream out;
  out << d;
  return out.str();
}

}  // namespace

std::vector<VerifyCase> verifyCases(bool quick) {
  std::vector<VerifyCase> cases;
  auto add = [&](const std::string& what, Shape s, std::function<ProblemData()> make) {
    cases.push_back({what + " " + s.text(), s.m, s.n, s.k, std::move(make)});
  };

  std::vector<Shape> denseShapes = quick ? std::vector<Shape>{kTiny, kMid}
                                          : std::vector<Shape>{kTiny, kOdd, kMid, kTile, kOver, kWide, kWideOneKTile};
  for (Shape s : denseShapes) add("dense", s, [s] { return dense(s, 1); });

  std::vector<Shape> adversarialShapes = quick ? std::vector<Shape>{kMid} : std::vector<Shape>{kMid, kOver};
  for (Shape s : adversarialShapes) {
    add("zero-A", s, [s] { return ProblemData{Matrix(s.m, s.k), dense(s, 2).b}; });
    add("zero-B", s, [s] { return ProblemData{dense(s, 3).a, Matrix(s.k, s.n)}; });
    // One non-zero product in the whole problem: any kernel that skips the K-block holding it
    // (or the tile around it) gets a C of zeros where one element should be 0.5.
    add("single-product", s, [s] {
      ProblemData d = zeros(s);
      int r = s.m / 2 + 1, c = s.n / 2 + 3, k = s.k / 2 + 3;
      d.a(r, k) = 0.5f;
      d.b(k, c) = 1.0f;
      return d;
    });
    // The same in the last, partial tile and K-block, where bounds handling goes wrong.
    add("single-product-edge", s, [s] {
      ProblemData d = zeros(s);
      d.a(s.m - 1, s.k - 1) = -0.75f;
      d.b(s.k - 1, s.n - 1) = 0.5f;
      return d;
    });
    // One non-zero in one tile of A against a dense B: one row of C is non-zero.
    add("single-nonzero-A", s, [s] {
      ProblemData d = dense(s, 4);
      d.a = Matrix(s.m, s.k);
      d.a(s.m / 3, s.k / 3) = 1.0f;
      return d;
    });
    add("single-nonzero-B", s, [s] {
      ProblemData d = dense(s, 5);
      d.b = Matrix(s.k, s.n);
      d.b(2 * s.k / 3, s.n / 3) = 1.0f;
      return d;
    });
    // A and B both have bits in one K-block but at different positions: the joint byte is
    // zero (a skip is right there); in the next K-block the positions agree and must be kept.
    add("overlap-without-product", s, [s] {
      ProblemData d = zeros(s);
      int kb = s.k / 16;
      d.a(1, 8 * kb + 1) = 1.0f;
      d.b(8 * kb + 2, 1) = 1.0f;
      if (8 * kb + 9 < s.k) {
        d.a(1, 8 * kb + 9) = 2.0f;
        d.b(8 * kb + 9, 1) = 3.0f;
      }
      return d;
    });
  }

  struct GeneratedCase {
    const char* generator;
    double density;
    int block;  // the zeros' block edge
  };
  std::vector<GeneratedCase> generated = {{"uniform", 0.5, 32},  {"uniform", 0.05, 32}, {"segments", 0.5, 32},
                                          {"segments", 0.3, 8},  {"segments", 0.1, 64}, {"blocks", 0.3, 32},
                                          {"nm", 0.5, 32},       {"banded", 0.2, 32},    {"relu", 0.4, 32}};
  if (quick) generated.resize(3);
  if (!quick) {
    add("dense", kLongK, [] { return dense(kLongK, 8); });
    add("segments-0.3-g32", kLongK, [] {
      return ProblemData{generate("segments", Operand::A, kLongK.m, kLongK.k, 0.3, 9),
                         generate("segments", Operand::B, kLongK.k, kLongK.n, 0.3, 9)};
    });
  }
  for (Shape s : {kOver, kTile}) {
    for (const GeneratedCase& g : generated) {
      std::string what = std::string(g.generator) + "-" + describeDensity(g.density);
      if (std::string_view(g.generator) == "segments") what += "-g" + std::to_string(g.block);
      add(what, s, [s, g] {
        GeneratorOptions options;
        options.block = g.block;
        return ProblemData{generate(g.generator, Operand::A, s.m, s.k, g.density, 7, options),
                           generate(g.generator, Operand::B, s.k, s.n, g.density, 7, options)};
      });
    }
    if (quick) break;
  }
  // Zeros spread out over K (ReLU activations), what compaction gathers around: at the partial tiles
  // alone, where a row tile's last rows and K's last block are short.
  if (!quick) {
    add("neurons-0.1", kOver, [] {
      return ProblemData{generate("neurons", Operand::A, kOver.m, kOver.k, 0.1, 7), generate("neurons", Operand::B, kOver.k, kOver.n, 0.1, 7)};
    });
  }
  return cases;
}

VerifyResult verifyKernel(Backend& backend, DeviceProblem& onDevice, const KernelInfo& kernel, const ProblemData& data,
                          const ReferenceProduct& reference) {
  VerifyResult result;
  result.backend = backend.name();
  result.kernel = kernel.id;
  try {
    onDevice.prepare(kernel);
    std::string patternFailure;
    if (kernel.buildsAPattern()) {
      Pattern got = onDevice.downloadPattern(Operand::A, kernel.aGranularity);
      if (got.bits != buildAPattern(data.a, kernel.aGranularity).bits) {
        patternFailure += "device A-pattern at " + std::to_string(kernel.aGranularity) + " rows differs from the CPU's; ";
      }
    }
    if (kernel.usesBPattern()) {
      Pattern got = onDevice.downloadPattern(Operand::B, kernel.bGranularity);
      if (got.bits != buildBPattern(data.b, kernel.bGranularity).bits) {
        patternFailure += "device B-pattern at " + std::to_string(kernel.bGranularity) + " columns differs from the CPU's; ";
      }
    }
    result.patternsMatch = patternFailure.empty();
    onDevice.poisonC();
    onDevice.run(kernel);
    result.error = compareToReference(onDevice.downloadC(), reference);
    if (!result.error.passed) result.failure = "wrong C: " + result.error.summary();
    if (!patternFailure.empty()) result.failure = patternFailure + result.failure;
  } catch (const UnavailableError& e) {
    result.failure = e.what();
    result.refused = true;
  } catch (const Error& e) {
    result.failure = e.what();
  }
  for (const std::string& message : backend.takeDiagnostics()) {
    if (!result.failure.empty()) result.failure += "; ";
    result.failure += "diagnostic: " + message;
  }
  return result;
}

std::string verifyLabel(const KernelInfo& kernel, DType dtype) {
  if (dtype == DType::Fp32) return std::string(kernel.id);
  return std::string(kernel.id) + " (" + std::string(dtypeName(dtype)) + ")";
}

std::string VerifyResult::label() const {
  if (dtype == DType::Fp32) return kernel;
  return kernel + " (" + std::string(dtypeName(dtype)) + ")";
}

std::vector<VerifyTarget> verifyTargets(const Backend& backend, const std::vector<const KernelInfo*>& kernels,
                                        std::optional<DType> only) {
  std::vector<VerifyTarget> targets;
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
    if (only && type != *only) continue;
    for (const KernelInfo* kernel : kernels) {
      if (backend.takes(*kernel, type)) targets.push_back({kernel, type});
    }
  }
  return targets;
}

std::vector<VerifyResult> runVerify(Backend& backend, const std::vector<const KernelInfo*>& kernels,
                                    const std::vector<VerifyCase>& cases, const VerifyProgress& progress) {
  return runVerifyTargets(backend, verifyTargets(backend, kernels), cases, progress);
}

std::vector<VerifyResult> runVerifyTargets(Backend& backend, const std::vector<VerifyTarget>& targets,
                                    const std::vector<VerifyCase>& cases, const VerifyProgress& progress) {
  std::vector<VerifyResult> results;
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
    std::vector<const KernelInfo*> kernels;
    for (const VerifyTarget& t : targets) {
      if (t.dtype == type) kernels.push_back(t.kernel);
    }
    if (kernels.empty()) continue;
    for (const VerifyCase& c : cases) {
      std::unique_ptr<DeviceProblem> onDevice;
      std::optional<ProblemData> data;
      std::optional<ReferenceProduct> reference;
      std::string uploadFailure;
      try {
        data = c.make();
        roundOperand(data->a, type, "A");
        roundOperand(data->b, type, "B");
        reference = referenceProduct(data->a, data->b);
        onDevice = backend.upload(data->a, data->b, type);
        if (&c == &cases.front()) onDevice->buildAhead(kernels);
      } catch (const Error& e) {
        uploadFailure = std::string("upload failed: ") + e.what();
      }
      for (const KernelInfo* kernel : kernels) {
        VerifyResult result;
        if (onDevice) {
          const auto start = std::chrono::steady_clock::now();
          result = verifyKernel(backend, *onDevice, *kernel, *data, *reference);
          result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } else {
          result.backend = backend.name();
          result.kernel = kernel->id;
          result.failure = uploadFailure;
        }
        result.dtype = type;
        result.caseName = c.name;
        if (progress) progress(result);
        results.push_back(std::move(result));
      }
    }
  }
  return results;
}

}  // namespace tileskip
