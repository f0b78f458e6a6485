#include "core/bench_suites.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/canvas.hpp"
#include "core/error.hpp"
#include "core/pattern.hpp"
#include "core/report.hpp"

namespace tileskip {

namespace {

constexpr const char* kDenseCandidates[] = {"vectorized", "warptile", "pipelined", "hoisted"};
constexpr const char* kJointCandidates[] = {"joint-64x32", "joint-32x32", "joint-8x32"};

// Targets: every kernel in `ids` on every backend that implements it.
std::vector<BenchTarget> targetsFor(const std::vector<Backend*>& backends, const std::vector<std::string>& ids) {
  std::vector<BenchTarget> targets;
  for (Backend* backend : backends) {
    BenchTarget target{backend, {}};
    for (const std::string& id : ids) {
      if (backend->implements(id)) target.kernels.push_back(&kernelInfo(id));
    }
    if (!target.kernels.empty()) targets.push_back(std::move(target));
  }
  return targets;
}

template <std::size_t N>
std::vector<std::string> ids(const char* const (&list)[N], std::initializer_list<const char*> more = {}) {
  std::vector<std::string> out(std::begin(list), std::end(list));
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

// The fastest verified row among `kernels` on `backend` ("" for any backend).
const BenchRow* fastest(const BenchReport& report, const std::string& backend, const std::vector<std::string>& kernels) {
  const BenchRow* best = nullptr;
  for (const BenchRow& row : report.rows) {
    if (!row.timed() || (!backend.empty() && row.backend != backend)) continue;
    if (std::find(kernels.begin(), kernels.end(), row.kernel) == kernels.end()) continue;
    if (best == nullptr || row.kernelMs.median < best->kernelMs.median) best = &row;
  }
  return best;
}

std::string label(const BenchRow& row) { return row.backend + " " + row.kernel; }

ProblemSpec segments(int size, double density, int granularity, std::uint64_t seed) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = size;
  spec.generator = density >= 1.0 ? "uniform" : "segments";
  spec.densityA = spec.densityB = density;
  spec.seed = seed;
  spec.options.granularity = granularity;
  return spec;
}

// The joint-kernel-vs-cuBLAS measure of one bench run.
HeadlineMeasure jointVsCublas(const BenchReport& run, const std::string& what, const std::string& target,
                              std::optional<double> threshold) {
  HeadlineMeasure m{what, target, std::nullopt, threshold, false, ""};
  const BenchRow* joint = fastest(run, "", ids(kJointCandidates));
  const BenchRow* cublas = timedRow(run, "", "cublas");
  if (joint == nullptr || cublas == nullptr) {
    m.detail = "needs a joint kernel and cuBLAS in one run";
    return m;
  }
  m.value = cublas->kernelMs.median / joint->kernelMs.median;
  m.detail = label(*joint) + " " + fixed(joint->kernelMs.median, 3) + " ms vs cuBLAS " + fixed(cublas->kernelMs.median, 3) +
             " ms; joint density " + fixed(joint->jointDensity, 3) + "; end to end (patterns included) " +
             fixed(cublas->kernelMs.median / (joint->kernelMs.median + joint->prepareMs.median), 2) + "x";
  return m;
}

}  // namespace

std::optional<bool> HeadlineMeasure::met() const {
  if (!value || !threshold) return std::nullopt;
  return atMost ? *value <= *threshold : *value >= *threshold;
}

HeadlineReport runHeadlineSuite(const std::vector<Backend*>& backends, const SuiteOptions& options,
                                const ProgressCallback& progress) {
  HeadlineReport report;
  report.date = utcTimestamp();
  report.host = hostDescription();
  report.options = options;
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  const BenchOptions bench{.warmup = options.warmup, .repeat = options.repeat};
  // Runs one bench and returns its index in report.runs (indices, not references: the vector grows).
  auto run = [&](const ProblemSpec& spec, const std::vector<std::string>& kernels) {
    if (progress) progress("headline: " + spec.describe());
    report.runs.push_back(runBench(targetsFor(backends, kernels), spec, generateProblem(spec), bench, progress));
    return report.runs.size() - 1;
  };
  // Block-aligned zero tiles: segments as tall (A) and wide (B) as the kernels' 128 x 128 block
  // tiles. Not aligned: 32-row / 32-column segments, which a block tile rarely skips whole.
  const int aligned = kernelInfo(kJointCandidates[0]).tile.BM;
  constexpr int kUnaligned = 32;
  const int n = options.size;

  // 1, 2: dense.
  const BenchReport& dense = report.runs[run(segments(n, 1.0, aligned, options.seed), ids(kDenseCandidates, {"cublas"}))];
  const BenchRow* bestCuda = fastest(dense, "cuda", ids(kDenseCandidates));
  const BenchRow* bestVulkan = fastest(dense, "vulkan", ids(kDenseCandidates));
  const BenchRow* cublas = timedRow(dense, "", "cublas");
  HeadlineMeasure denseVsCublas{"best dense CUDA kernel / cuBLAS SGEMM (TF32 off)", ">= 0.95", std::nullopt, 0.95, false, ""};
  if (bestCuda && cublas) {
    denseVsCublas.value = cublas->kernelMs.median / bestCuda->kernelMs.median;
    denseVsCublas.detail = label(*bestCuda) + " " + fixed(bestCuda->effectiveGflops / 1000, 1) + " TFLOPS vs cuBLAS " +
                           fixed(cublas->effectiveGflops / 1000, 1);
  } else {
    denseVsCublas.detail = "needs the cuda backend";
  }
  report.measures.push_back(denseVsCublas);
  HeadlineMeasure vulkanVsCuda{"best dense Vulkan kernel / best dense CUDA kernel", ">= 0.95", std::nullopt, 0.95, false, ""};
  if (bestCuda && bestVulkan) {
    vulkanVsCuda.value = bestCuda->kernelMs.median / bestVulkan->kernelMs.median;
    vulkanVsCuda.detail = label(*bestVulkan) + " " + fixed(bestVulkan->effectiveGflops / 1000, 1) + " TFLOPS vs " +
                          label(*bestCuda) + " " + fixed(bestCuda->effectiveGflops / 1000, 1);
  } else {
    vulkanVsCuda.detail = "needs the cuda and vulkan backends on one GPU";
  }
  report.measures.push_back(vulkanVsCuda);

  // 3, 4: joint kernels against cuBLAS, block-aligned and not.
  const std::vector<std::string> jointRun = ids(kJointCandidates, {"pipelined", "cublas", "cusparse-csr"});
  struct JointCase {
    double density;
    const char* target;
    std::optional<double> threshold;
  };
  std::map<double, std::size_t> alignedRuns;
  for (JointCase c : {JointCase{0.5, ">= 2.5", 2.5}, JointCase{0.25, ">= 5", 5.0}}) {
    alignedRuns[c.density] = run(segments(n, c.density, aligned, options.seed), jointRun);
    report.measures.push_back(jointVsCublas(report.runs[alignedRuns[c.density]],
                                            "best joint kernel / cuBLAS, A and B at density " + fixed(c.density, 2) +
                                                ", block-aligned " + std::to_string(aligned) + "-wide tiles",
                                            c.target, c.threshold));
    const std::size_t unalignedRun = run(segments(n, c.density, kUnaligned, options.seed), jointRun);
    report.measures.push_back(jointVsCublas(report.runs[unalignedRun],
                                            "same, " + std::to_string(kUnaligned) + "-wide tiles (not block-aligned)",
                                            "(reported)", std::nullopt));
  }

  // 5: skip efficiency from joint density 0.5 to 0.06 (per-operand densities 0.71 .. 0.25).
  HeadlineMeasure efficiency{"skip efficiency, block-aligned tiles, joint density 0.5 -> 0.06 (worst)", ">= 0.85",
                             std::nullopt, 0.85, false, ""};
  for (double d : {0.707, 0.5, 0.354, 0.25}) {
    const std::size_t r = alignedRuns.count(d) ? alignedRuns[d]
                                               : run(segments(n, d, aligned, options.seed), ids(kJointCandidates, {"pipelined"}));
    const BenchRow* best = fastest(report.runs[r], "", ids(kJointCandidates));
    if (best == nullptr || !best->skipEfficiency) continue;
    efficiency.value = efficiency.value ? std::min(*efficiency.value, *best->skipEfficiency) : *best->skipEfficiency;
    efficiency.detail += (efficiency.detail.empty() ? "" : "; ") + fixed(best->jointDensity, 3) + ": " +
                         fixed(*best->skipEfficiency, 2) + " (" + label(*best) + ")";
  }
  if (!efficiency.value) efficiency.detail = "needs a joint kernel and the dense reference in one run";
  report.measures.push_back(efficiency);

  // 6: pattern preprocessing against the dense kernel, at density 0.5.
  HeadlineMeasure preprocessing{"pattern preprocessing / dense kernel time", "<= 0.02", std::nullopt, 0.02, true, ""};
  const BenchReport& half = report.runs[alignedRuns[0.5]];
  if (const BenchRow* joint = fastest(half, "", ids(kJointCandidates))) {
    if (const BenchRow* ref = timedRow(half, joint->backend, std::string(kDenseReferenceKernel))) {
      preprocessing.value = joint->prepareMs.median / ref->kernelMs.median;
      preprocessing.detail = label(*joint) + " patterns " + fixed(joint->prepareMs.median * 1000, 1) + " us vs " +
                             std::string(kDenseReferenceKernel) + " " + fixed(ref->kernelMs.median, 3) + " ms";
    }
  }
  if (!preprocessing.value) preprocessing.detail = "needs a joint kernel and the dense reference in one run";
  report.measures.push_back(preprocessing);
  return report;
}

std::string formatHeadlineTable(const HeadlineReport& report) {
  std::ostringstream out;
  out << "tileskip bench --suite headline  " << report.date << "\n";
  for (const std::string& d : report.devices) out << "device    " << d << "\n";
  out << "host      " << report.host << "\n";
  out << "problem   M = N = K = " << report.options.size << ", seed " << report.options.seed << "; "
      << report.options.warmup << " warm-up (on a GPU: until " << BenchOptions{}.warmupMilliseconds
      << " ms of work), median of " << report.options.repeat << " device-timed runs; every kernel verified first\n\n";
  std::vector<std::vector<std::string>> cells = {{"measure", "target", "measured", "met", "detail"}};
  for (const HeadlineMeasure& m : report.measures) {
    std::optional<bool> met = m.met();
    cells.push_back({m.measure, m.target, m.value ? fixed(*m.value, 3) : "-", met ? (*met ? "yes" : "NO") : "-",
                     m.detail});
  }
  out << alignColumns(cells, 5);
  out << "\nThe bench runs behind these ratios:\n";
  for (const BenchReport& r : report.runs) out << "\n" << formatTable(r);
  return out.str();
}

std::string formatHeadlineJson(const HeadlineReport& report) {
  nlohmann::json measures = nlohmann::json::array();
  for (const HeadlineMeasure& m : report.measures) {
    std::optional<bool> met = m.met();
    measures.push_back({{"measure", m.measure},
                        {"target", m.target},
                        {"value", m.value ? nlohmann::json(*m.value) : nlohmann::json(nullptr)},
                        {"met", met ? nlohmann::json(*met) : nlohmann::json(nullptr)},
                        {"detail", m.detail}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const BenchReport& r : report.runs) runs.push_back(nlohmann::json::parse(formatJson(r)));
  nlohmann::json doc = {{"suite", "headline"}, {"date", report.date},     {"host", report.host},
                        {"devices", report.devices}, {"size", report.options.size}, {"measures", measures},
                        {"runs", runs}};
  return doc.dump(2) + "\n";
}

SweepReport runSweepSuite(const std::vector<Backend*>& backends, const SweepOptions& options,
                          const ProgressCallback& progress) {
  SweepReport report;
  report.date = utcTimestamp();
  for (Backend* b : backends) report.devices.push_back(std::string(b->name()) + ": " + b->device().describe());
  const std::vector<std::string> kernels = ids(kJointCandidates, {"pipelined", "cublas"});
  for (int size : options.sizes) {
    for (double density : options.densities) {
      ProblemSpec spec = segments(size, density, options.granularity, options.seed);
      if (progress) progress("sweep: " + spec.describe());
      ProblemData data = generateProblem(spec);
      BenchReport run = runBench(targetsFor(backends, kernels), spec, data,
                                 {.warmup = options.warmup, .repeat = options.repeat}, progress);
      // The load bound of a 128 x 128 block tile: 1 / the fraction of its K-blocks it must load.
      const TileShape& tile = kernelInfo(kJointCandidates[0]).tile;
      JointStats blockLoads = computeJointStats(buildAPattern(data.a, tile.BM), buildBPattern(data.b, tile.BN));
      double loadFraction = 1.0 - blockLoads.skippedKBlockFraction;
      for (const BenchRow& row : run.rows) {
        if (!row.timed()) {
          report.failures.push_back(std::to_string(size) + " d=" + fixed(density, 3) + " " + label(row) + ": " + row.failure);
          report.failedRows.push_back(row);
          continue;
        }
        if (kernelInfo(row.kernel).isBaseline()) continue;
        const BenchRow* dense = timedRow(run, row.backend, std::string(kDenseReferenceKernel));
        SweepPoint p;
        p.backend = row.backend;
        p.kernel = row.kernel;
        p.size = size;
        p.density = density;
        p.jointDensity = row.jointDensity;
        p.milliseconds = row.kernelMs.median;
        p.denseMilliseconds = dense ? dense->kernelMs.median : 0.0;
        p.speedup = dense ? dense->kernelMs.median / row.kernelMs.median : 0.0;
        p.idealSpeedup = row.idealSpeedup;
        p.loadBoundSpeedup = loadFraction > 0.0 ? 1.0 / loadFraction : INFINITY;
        p.vsBaseline = row.vsBaseline.value_or(0.0);
        report.points.push_back(p);
      }
    }
  }
  return report;
}

std::string formatSweepCsv(const SweepReport& report) {
  std::ostringstream out;
  out << "date,backend,kernel,size,density,joint_density,ms,dense_ms,speedup,ideal_speedup,load_bound_speedup,"
         "vs_baseline\n";
  for (const SweepPoint& p : report.points) {
    out << report.date << ',' << p.backend << ',' << p.kernel << ',' << p.size << ',' << p.density << ','
        << p.jointDensity << ',' << p.milliseconds << ',' << p.denseMilliseconds << ',' << p.speedup << ','
        << p.idealSpeedup << ',' << p.loadBoundSpeedup << ',' << p.vsBaseline << '\n';
  }
  return out.str();
}

void writeSweepPlot(const SweepReport& report, const std::string& path) {
  std::vector<int> sizes;
  for (const SweepPoint& p : report.points) {
    if (std::find(sizes.begin(), sizes.end(), p.size) == sizes.end()) sizes.push_back(p.size);
  }
  if (sizes.empty()) throw InputError("the sweep measured nothing to plot");
  constexpr int kPanel = 420, kMargin = 56;
  Canvas canvas(static_cast<int>(sizes.size()) * (kPanel + kMargin) + kMargin, kPanel + 2 * kMargin + 90);
  const Colour ink{30, 30, 30}, grid{225, 225, 225}, ideal{120, 120, 120}, load{200, 120, 0};
  // One colour per series: two backends of four kernels each must not share one.
  const std::vector<Colour> palette = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {148, 103, 189}, {140, 86, 75},
                                       {227, 119, 194}, {255, 127, 14}, {23, 190, 207}, {188, 189, 34},  {0, 0, 0}};
  // Axes: density 0.02 .. 1 (log), speedup 0.25 .. 256 (log): the skipping kernels passed 190x at
  // 8192 and density 0.03 on an H200.
  const double xMin = std::log10(0.02), xMax = 0.0, yMin = std::log10(0.25), yMax = std::log10(256.0);
  std::vector<std::string> series;
  for (const SweepPoint& p : report.points) {
    std::string name = p.backend + " " + p.kernel;
    if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
  }
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const int left = kMargin + static_cast<int>(s) * (kPanel + kMargin), top = kMargin;
    auto px = [&](double density) { return left + (std::log10(density) - xMin) / (xMax - xMin) * kPanel; };
    auto py = [&](double speedup) {
      double y = std::clamp(std::log10(speedup), yMin, yMax);
      return top + kPanel - (y - yMin) / (yMax - yMin) * kPanel;
    };
    for (double d : {0.02, 0.05, 0.1, 0.2, 0.5, 1.0}) {
      canvas.line(px(d), top, px(d), top + kPanel, grid);
      std::string t = d < 0.1 ? fixed(d, 2) : fixed(d, 1);
      canvas.text(static_cast<int>(px(d)) - Canvas::textWidth(t) / 2, top + kPanel + 6, t, ink);
    }
    for (double v : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0}) {
      canvas.line(left, py(v), left + kPanel, py(v), grid);
      std::string t = v < 1 ? fixed(v, 2) : fixed(v, 0);
      canvas.text(left - Canvas::textWidth(t) - 6, static_cast<int>(py(v)) - 3, t, ink);
    }
    canvas.line(left, top, left, top + kPanel, ink);
    canvas.line(left, top + kPanel, left + kPanel, top + kPanel, ink);
    std::string title = std::to_string(sizes[s]) + "^3";
    canvas.text(left + kPanel / 2 - Canvas::textWidth(title, 2) / 2, top - 24, title, ink, 2);
    canvas.text(left + kPanel / 2 - 60, top + kPanel + 22, "density of A and of B", ink);
    // Curves: per series, the measured speedup; once per panel, the ideal and load bound of the
    // first kernel (the bounds depend on the problem, not the backend).
    std::map<std::string, std::vector<const SweepPoint*>> bySeries;
    for (const SweepPoint& p : report.points) {
      if (p.size == sizes[s]) bySeries[p.backend + " " + p.kernel].push_back(&p);
    }
    bool boundsDrawn = false;
    for (auto& [name, points] : bySeries) {
      std::sort(points.begin(), points.end(), [](const SweepPoint* a, const SweepPoint* b) { return a->density < b->density; });
      if (!boundsDrawn && points.front()->kernel == kJointCandidates[0]) {
        for (std::size_t i = 1; i < points.size(); ++i) {
          canvas.line(px(points[i - 1]->density), py(points[i - 1]->idealSpeedup), px(points[i]->density),
                      py(points[i]->idealSpeedup), ideal, 2, 6);
          canvas.line(px(points[i - 1]->density), py(points[i - 1]->loadBoundSpeedup), px(points[i]->density),
                      py(points[i]->loadBoundSpeedup), load, 2, 3);
        }
        boundsDrawn = true;
      }
      Colour c = palette[static_cast<std::size_t>(std::find(series.begin(), series.end(), name) - series.begin()) % palette.size()];
      for (std::size_t i = 0; i < points.size(); ++i) {
        canvas.fillRect(static_cast<int>(px(points[i]->density)) - 2, static_cast<int>(py(points[i]->speedup)) - 2,
                        static_cast<int>(px(points[i]->density)) + 3, static_cast<int>(py(points[i]->speedup)) + 3, c);
        if (i > 0) {
          canvas.line(px(points[i - 1]->density), py(points[i - 1]->speedup), px(points[i]->density),
                      py(points[i]->speedup), c, 2);
        }
      }
    }
  }
  // Legend under the panels.
  int x = kMargin, y = kPanel + 2 * kMargin + 10;
  canvas.text(kMargin, y - 14, "speedup over the dense reference (" + std::string(kDenseReferenceKernel) + ") vs density; " +
                                   report.date + "; " + (report.devices.empty() ? "" : report.devices.front()), ink);
  auto legend = [&](const std::string& name, Colour c, int dash) {
    canvas.line(x, y + 8, x + 30, y + 8, c, 2, dash);
    canvas.text(x + 36, y + 4, name, ink);
    x += 36 + Canvas::textWidth(name) + 24;
    if (x > canvas.width() - 200) x = kMargin, y += 18;
  };
  legend("ideal: 1 / joint density", ideal, 6);
  legend("load bound: 1 / K-blocks a 128x128 block must load", load, 3);
  for (std::size_t i = 0; i < series.size(); ++i) legend(series[i], palette[i % palette.size()], 0);
  canvas.savePng(path);
}

}  // namespace tileskip
