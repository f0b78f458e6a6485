#include "core/measure/multiply.hpp"

#include <chrono>
#include <cstdint>
#include <iterator>
#include <utility>

#include "core/io/report.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/model/error.hpp"
#include "core/model/live_columns.hpp"
#include "core/model/pattern.hpp"
#include "core/process/host_memory.hpp"

namespace tileskip {

namespace {

struct KernelChoice {
  const KernelInfo* kernel = nullptr;
  bool automatic = false;
  std::string why;
};

// The requested kernel, checked against the backend and the dtype, or auto's choice for the
// operands the kernel will multiply (the permuted ones where reordered).
KernelChoice chooseKernelFor(Backend& backend, const MultiplyRequest& request, const Matrix& a, const Matrix& b) {
  if (request.kernel != nullptr) {
    // strict: InputError where the backend lacks the kernel or it does not take the dtype
    return {selectKernels(std::string(request.kernel->id), backend, true, request.dtype).front(), false, "requested"};
  }
  ProblemSpec spec;
  spec.fileA = request.fileA;
  spec.fileB = request.fileB;
  spec.dtype = request.dtype;
  Recommendation choice = chooseAuto(backend, a, b, spec);
  return {choice.kernel, true, std::move(choice.reason)};
}

MultiplyResult multiplyInPlace(Backend& backend, const MultiplyRequest& request) {
  // C in the caller's device memory cannot be read here (core has no GPU API): the caller
  // checks it, and a reordering would have to be undone there too.
  if (request.verify || request.reorder) {
    throw InputError("a C computed in device memory is checked by the caller (verifyProduct) and is never reordered");
  }
  const DeviceOperands& operands = *request.inPlace;
  if (request.dtype != operands.dtype || request.dtype == DType::Tf32) {
    throw InputError("operands in device memory are multiplied in their own type, fp32, fp16 or bf16 (asked for " +
                     std::string(dtypeName(request.dtype)) + " on " + std::string(dtypeName(operands.dtype)) + ")");
  }
  const bool hostCopies = !request.a.empty() || !request.b.empty();
  if (request.kernel == nullptr && !hostCopies) {
    throw InputError("kernel 'auto' inspects the operands on the host; for operands in device memory give a kernel "
                     "id or host copies of A and B");
  }
  if (hostCopies && (request.a.rows() != operands.m || request.a.cols() != operands.k || request.b.rows() != operands.k ||
                     request.b.cols() != operands.n)) {
    throw InputError("the host copies of A and B must have the shapes of the operands in device memory");
  }
  MultiplyResult result;
  KernelChoice choice = chooseKernelFor(backend, request, request.a, request.b);
  result.kernel = choice.kernel;
  result.automatic = choice.automatic;
  result.why = std::move(choice.why);
  result.kernelMs = backend.multiplyInPlace(*result.kernel, operands);
  if (request.repeat > 1) {
    std::vector<double> times;
    for (int i = 0; i < request.repeat; ++i) times.push_back(backend.multiplyInPlace(*result.kernel, operands));
    result.kernelMs = summarize(std::move(times)).median;
    result.timedRuns = request.repeat;
  }
  return result;
}

std::string describeNonFinite(const MultiplyResult& result) {
  const std::size_t differ = result.verification ? result.verification->mismatchedNonFinite : 0;
  if (result.inA.total() + result.inB.total() > 0) {
    std::string note = "the inputs hold NaN/Inf (A: " + result.inA.describe() + "; B: " + result.inB.describe() +
                       "), computed with IEEE arithmetic: C holds " + result.inC.describe();
    if (differ > 0) {
      note += "; " + std::to_string(differ) +
              " elements of C differ from the reference, which forms the 0·Inf = NaN products that " +
              std::string(result.kernel->id) + " skips";
    }
    return note;
  }
  if (result.inC.total() > 0) {
    return "C holds " + result.inC.describe() + " although A and B are finite: the products overflow fp32";
  }
  return {};
}

}  // namespace

std::string MultiplyResult::checked() const {
  if (!verification) return "not verified";
  return std::string(inC.total() > 0 ? "its finite elements " : "") + "verified against the float64 reference (" +
         verification->summary() + ")";
}

const KernelInfo* parseMultiplyKernel(const std::string& name, std::string_view flag, std::string_view command,
                                      bool autoAllowed) {
  if (autoAllowed && name == "auto") return nullptr;
  const std::vector<const KernelInfo*> named = parseKernelList(name);  // InputError for an unknown id; none for "all"
  if (named.size() != 1) {
    throw InputError(std::string(flag) + " '" + name + "': " + std::string(command) +
                     " multiplies with one kernel; give a single id" + (autoAllowed ? " or auto" : ""));
  }
  return named.front();
}

MultiplyResult multiply(Backend& backend, MultiplyRequest request) {
  return multiply([&backend]() -> Backend& { return backend; }, std::move(request));
}

MultiplyResult multiply(const std::function<Backend&()>& openBackend, MultiplyRequest request) {
  checkBenchOptions({.warmup = 0, .repeat = request.repeat});
  if (request.inPlace) return multiplyInPlace(openBackend(), request);
  if (request.packedA && request.reorder) throw InputError("reordering permutes A, whose packed blocks are its own: drop reorder for a packed A");

  MultiplyResult result;
  auto say = [&](const std::string& note) {
    if (request.onNote) request.onNote(note);
    result.notes.push_back(note);
  };
  Matrix& a = request.a;
  Matrix& b = request.b;
  checkMultiplicable(a, b);
  // Rounded once, here: the kernel, auto and the reference all see the rounded values.
  for (const auto& [matrix, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    if (std::string rounded = roundOperand(*matrix, request.dtype, name); !rounded.empty()) say(rounded);
  }
  // A packed keeps its blocks and takes A's rounded values.
  if (request.packedA) {
    requirePackedA(*request.packedA, a.rows(), a.cols(), request.packedA->dtype());
    request.packedA = packMaskedBlocks(a, request.packedA->blockMask(), request.packedA->block(),
                                       request.dtype == DType::Tf32 ? DType::Fp32 : request.dtype);
  }
  const auto cElements = static_cast<std::uint64_t>(a.rows()) * static_cast<std::uint64_t>(b.cols());
  const std::string cShape = std::to_string(a.rows()) + "x" + std::to_string(b.cols());
  if (request.verify) {
    // C, the float64 reference (A·B and |A|·|B|) and float64 copies of A and B.
    checkHostMemory((sizeof(float) + 2 * sizeof(double)) * cElements + sizeof(double) * (a.values().size() + b.values().size()),
                    "C and the float64 reference C (" + cShape + ")");
  } else {
    checkHostMemory(sizeof(float) * cElements, "C (" + cShape + ")");
  }

  Backend& backend = openBackend();
  // The kernel multiplies permuted operands (auto inspects those); C is put back in the
  // original order, exactly, before it is checked against the unpermuted product.
  std::optional<Reordering> reordering;
  std::optional<ReorderedProblem> permuted;
  if (request.reorder) {
    Matrix pa = a, pb = b;
    GatheredZeros gathered = reorderForSkipping(pa, pb);
    say(gathered.note);
    reordering = std::move(gathered.reordering);
    permuted = ReorderedProblem{std::move(pa), std::move(pb)};
  }
  const Matrix& kernelA = permuted ? permuted->a : a;
  const Matrix& kernelB = permuted ? permuted->b : b;

  KernelChoice choice = chooseKernelFor(backend, request, kernelA, kernelB);
  result.kernel = choice.kernel;
  result.automatic = choice.automatic;
  result.why = std::move(choice.why);
  // Said before the pause, to whoever prints notes as they come; not a note on the result.
  if (std::optional<std::string> note = backend.takeFirstBuildNote(); note && request.onNote) request.onNote(*note);
  {
    MultiplySession session(backend, kernelA, kernelB, request.dtype, request.packedA ? &*request.packedA : nullptr);
    KernelProduct product = session.product(*result.kernel, request.repeat);
    result.prepareMs = product.prepareMs;
    result.kernelMs = product.kernelMs;
    result.roundingMs = product.roundingMs;
    result.timedRuns = product.timedRuns;
    result.c = reordering ? restoreC(product.c, *reordering) : std::move(product.c);
  }  // the device's copy goes before the reference takes its host memory
  permuted.reset();

  result.inA = countNonFinite(a);
  result.inB = countNonFinite(b);
  result.inC = countNonFinite(result.c);
  if (request.verify) result.verification = verifyProduct(result.c, a, b, result.kernel->id);
  result.nonFiniteNote = describeNonFinite(result);
  return result;
}

ErrorReport verifyProduct(const Matrix& c, const Matrix& a, const Matrix& b, std::string_view kernel) {
  ErrorReport error = compareToReference(c, referenceProduct(a, b));
  if (!error.passed) {
    throw Error(ExitCode::VerificationFailed, "kernel " + std::string(kernel) + " gave a wrong C (" + error.summary() + ")");
  }
  return error;
}

GatheredZeros reorderForSkipping(Matrix& a, Matrix& b) {
  auto joint = [](const Matrix& x, const Matrix& y) {
    return computeJointStats(buildAPattern(x, kReorderGranularity), buildBPattern(y, kReorderGranularity)).jointDensity;
  };
  const double before = joint(a, b);
  const auto start = std::chrono::steady_clock::now();
  Reordering r = findReordering(a, b, kReorderGranularity, kReorderGranularity);
  ReorderedProblem p = applyReordering(a, b, r);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double after = joint(p.a, p.b);
  if (before - after < kFiringGain) {
    // Gathering zeros into tiles clears next to nothing of the joint density (zeros spread out, not
    // clustered by rows): what firing order does for compaction's K-groups instead.
    constexpr int rows = kCompactionRows[std::size(kCompactionRows) - 1];
    auto clustered = [](const Matrix& x) { return findLiveColumns(x, rows, kFiringGroup).meanLiveFraction(); };
    Reordering byFiring = identityReordering(a.rows(), b.cols(), a.cols());
    byFiring.kOrder = firingOrder(a);
    Matrix sortedA = permuteCols(a, byFiring.kOrder);
    const double live = clustered(a), sortedLive = clustered(sortedA);
    if (live - sortedLive >= kFiringGain) {
      a = std::move(sortedA);
      b = permuteRows(b, byFiring.kOrder);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::string note = "sorted K by how many rows fire each column in " + fixed(took, 2) + " s: live " +
                         std::to_string(kFiringGroup) + "-column groups in " + std::to_string(rows) + "-row tiles " +
                         fixed(live, 3) + " -> " + fixed(sortedLive, 3) + " (gathering zeros into tiles moved the joint density " +
                         fixed(before, 3) + " -> " + fixed(after, 3) + ")";
      return {std::move(byFiring), std::move(note)};
    }
  }
  a = std::move(p.a);
  b = std::move(p.b);
  std::string note = "reordered rows, columns and K in " + fixed(seconds, 2) + " s: joint density at " +
                     std::to_string(kReorderGranularity) + "x" + std::to_string(kReorderGranularity) + " tiles " +
                     fixed(before, 3) + " -> " + fixed(after, 3) +
                     (r.isIdentity() ? " (no permutation gathers more zeros: kept the order)" : "");
  return {std::move(r), std::move(note)};
}

MultiplySession::MultiplySession(Backend& backend, const Matrix& a, const Matrix& b, DType dtype, const BlockSparseMatrix* packedA)
    : backend_(backend), problem_(backend.upload(a, b, dtype)) {
  if (packedA != nullptr) attachWherePacked(backend, *problem_, *packedA);
}

KernelProduct MultiplySession::product(const KernelInfo& kernel, int repeat) {
  KernelProduct product;
  product.prepareMs = problem_->prepare(kernel);
  product.roundingMs = problem_->roundingMs();
  problem_->poisonC();
  product.kernelMs = problem_->run(kernel);
  if (repeat > 1) {
    std::vector<double> times;
    for (int i = 0; i < repeat; ++i) times.push_back(problem_->run(kernel));
    product.kernelMs = summarize(std::move(times)).median;
    product.timedRuns = repeat;
  }
  product.c = problem_->downloadC();
  return product;
}

VerifyResult MultiplySession::verify(const KernelInfo& kernel, const ProblemData& data, const ReferenceProduct& reference) {
  return verifyKernel(backend_, *problem_, kernel, data, reference);
}

double MultiplySession::time(const KernelInfo& kernel) { return problem_->run(kernel); }

}  // namespace tileskip
