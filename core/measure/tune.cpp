#include "core/measure/tune.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"
#include "core/measure/progress.hpp"
#include "core/model/reference.hpp"
#include "core/io/report.hpp"

namespace tileskip {

namespace {

// Dense kernels are tuned on dense inputs; skipping kernels on A and B at density 0.5 with
// 128-wide zero segments, aligned to their block tiles: where skipping pays, so where a variant's
// handling of the gathered K-blocks shows.
ProblemSpec tuningProblem(const KernelInfo& kernel, const TuneOptions& options) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = options.size;
  spec.seed = options.seed;
  if (kernel.skips()) {
    spec.generator = "segments";
    spec.densityA = spec.densityB = 0.5;
    spec.options.granularity = 128;
  }
  spec.validate();
  return spec;
}

// The interquartile range of `times` relative to their median.
double interquartileSpread(std::vector<double> times) {
  if (times.size() < 2) return 0.0;
  std::sort(times.begin(), times.end());
  auto at = [&](double q) {
    double position = q * static_cast<double>(times.size() - 1);
    std::size_t low = static_cast<std::size_t>(position);
    std::size_t high = std::min(low + 1, times.size() - 1);
    return times[low] + (times[high] - times[low]) * (position - static_cast<double>(low));
  };
  double median = at(0.5);
  return median > 0.0 ? (at(0.75) - at(0.25)) / median : 0.0;
}

}  // namespace

bool winsBeyondSpread(const TuneTrial& variant, const TuneTrial& catalogue, double margin) {
  if (!variant.verified || variant.medianMs <= 0.0) return false;
  if (!catalogue.verified || catalogue.medianMs <= 0.0) return true;
  double gain = (catalogue.medianMs - variant.medianMs) / catalogue.medianMs;
  return gain > std::max({margin, variant.spread, catalogue.spread});
}

std::string describeTrial(const std::string& kernel, const TuneTrial& trial) {
  std::string line = kernel + " " + (trial.variant.empty() ? "(catalogue)" : trial.variant) + ": ";
  if (!trial.verified) return line + "FAILED: " + trial.failure;
  return line + "verified, median " + fixed(trial.medianMs, 3) + " ms, spread " + fixed(trial.spread * 100.0, 1) + " %";
}

bool TuneReport::anyFailedVerification() const {
  for (const TuneResult& r : results) {
    for (const TuneTrial& t : r.trials) {
      if (!t.verified) return true;
    }
  }
  return false;
}

TuneReport runTune(Backend& backend, const std::vector<const KernelInfo*>& kernels, const TuneOptions& options,
                   const ProgressCallback& progress) {
  checkBenchOptions(options.timing);
  if (options.rounds < 1) throw InputError("tuning needs at least one round");
  TuneReport report;
  report.date = utcTimestamp();
  report.backend = backend.name();
  report.device = backend.device().describe();
  report.cacheKey = tuneCacheKey(backend.name(), backend.device());
  report.size = options.size;
  const bool isGpu = backend.device().isGpu;
  int steps = 0;
  for (const KernelInfo* kernel : kernels) steps += static_cast<int>(backend.tuningVariants(*kernel).size()) * options.rounds;
  ProgressMeter meter(steps, progress);
  for (const KernelInfo* kernel : kernels) {
    std::vector<std::string> variants = backend.tuningVariants(*kernel);
    if (variants.empty()) continue;
    ProblemSpec spec = tuningProblem(*kernel, options);
    ProblemData data = generateProblem(spec);
    Reference reference = computeReference(data.a, data.b);
    TuneResult result;
    result.kernel = kernel->id;
    result.problem = spec.describe();
    for (const std::string& variant : variants) result.trials.push_back({variant, false, {}, 0.0, 0.0});
    std::vector<std::vector<double>> roundMedians(result.trials.size());
    // Every variant on one upload, in rounds that alternate them: a GPU whose speed drifts
    // between uploads or over seconds (bench/NOTES.md, step 6) then slows all variants of a
    // round alike, and each keeps its best round.
    std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
    for (int round = 0; round < options.rounds; ++round) {
      for (std::size_t index = 0; index < result.trials.size(); ++index) {
        TuneTrial& trial = result.trials[index];
        if (round > 0 && !trial.verified) continue;
        meter.begin(std::string(kernel->id) + " " + (trial.variant.empty() ? "(catalogue)" : trial.variant) + ", round " +
                    std::to_string(round + 1) + " of " + std::to_string(options.rounds));
        try {
          backend.useVariant(*kernel, trial.variant);
          onDevice->prepare(*kernel);
          if (round == 0) {
            onDevice->poisonC();
            onDevice->run(*kernel);
            ErrorReport error = compareToReference(onDevice->downloadC(), reference.product);
            trial.verified = error.passed;
            if (!trial.verified) {
              trial.failure = "verification failed: " + error.summary();
              continue;
            }
          }
          warmUp(*onDevice, *kernel, options.timing, isGpu);
          std::vector<double> times;
          for (int i = 0; i < options.timing.repeat; ++i) times.push_back(onDevice->run(*kernel));
          double median = summarize(times).median;
          trial.medianMs = round == 0 ? median : std::min(trial.medianMs, median);
          roundMedians[index].push_back(median);
          trial.spread = std::max(trial.spread, interquartileSpread(times));
        } catch (const Error& e) {
          trial.verified = false;
          trial.failure = e.what();
        }
      }
    }
    for (std::size_t index = 0; index < result.trials.size(); ++index) {
      const std::vector<double>& medians = roundMedians[index];
      if (medians.size() > 1) {
        auto [low, high] = std::minmax_element(medians.begin(), medians.end());
        result.trials[index].spread = std::max(result.trials[index].spread, (*high - *low) / *low);
      }
      if (progress) progress(describeTrial(result.kernel, result.trials[index]));
    }
    // The catalogue's own unless another beats it beyond the spread measured for both (and the
    // margin); the fastest of those that do; never one that failed.
    const TuneTrial& catalogue = result.trials.front();
    const TuneTrial* best = catalogue.verified ? &catalogue : nullptr;
    for (const TuneTrial& t : result.trials) {
      if (&t == &catalogue || !winsBeyondSpread(t, catalogue, options.margin)) continue;
      if (best == nullptr || best == &catalogue || t.medianMs < best->medianMs) best = &t;
    }
    result.catalogueMs = catalogue.medianMs;
    if (best != nullptr) {
      result.chosen = best->variant;
      result.chosenMs = best->medianMs;
    }
    backend.useVariant(*kernel, result.chosen);
    report.results.push_back(std::move(result));
  }
  return report;
}

std::string formatTuneTable(const TuneReport& report) {
  std::ostringstream out;
  out << "tileskip tune  " << report.date << "\n";
  out << "device    " << report.backend << ": " << report.device << "\n";
  out << "size      M = N = K = " << report.size << "; choices kept for size class "
      << tuneSizeClass(report.size, report.size, report.size)
      << " (problems whose (M N K)^(1/3) is within a factor of 1.41 of it)\n\n";
  std::vector<std::vector<std::string>> cells = {{"kernel", "variant", "verified", "median ms", "spread", "vs catalogue", "chosen"}};
  for (const TuneResult& r : report.results) {
    for (const TuneTrial& t : r.trials) {
      std::string ratio = t.verified && t.medianMs > 0.0 && r.catalogueMs > 0.0 ? fixed(r.catalogueMs / t.medianMs, 3) + "x" : "-";
      cells.push_back({r.kernel, t.variant.empty() ? "(catalogue)" : t.variant,
                       t.verified ? "yes" : "FAILED: " + t.failure, t.verified ? fixed(t.medianMs, 3) : "-",
                       t.verified ? fixed(t.spread * 100.0, 1) + " %" : "-", ratio,
                       t.variant == r.chosen && t.verified ? "<-" : ""});
    }
  }
  out << alignColumns(cells, 2);
  return out.str();
}

std::optional<std::filesystem::path> tuneCachePath() {
  if (const char* given = std::getenv(kTuneCacheVariable); given != nullptr && *given != '\0') {
    if (std::string(given) == "off") return std::nullopt;
    return std::filesystem::path(given);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "tileskip" / "tune.json";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache" / "tileskip" / "tune.json";
  }
  return std::nullopt;
}

std::string tuneCacheKey(std::string_view backend, const DeviceInfo& device) {
  return std::string(backend) + " | " + device.name + " | " + device.driver;
}

int tuneSizeClass(int m, int n, int k) {
  const double geometricMean = std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  const int exponent = static_cast<int>(std::lround(std::log2(std::max(1.0, geometricMean))));
  return 1 << std::min(exponent, 30);
}

namespace {

constexpr const char* kCacheFormat = "tileskip-tune-2";
constexpr const char* kFirstCacheFormat = "tileskip-tune-1";  // one entry per device, no size classes

// A size class as the cache writes it ("4096"), or 0 for anything else.
int parseSizeClass(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  const int value = std::stoi(text);
  return value > 0 && std::has_single_bit(static_cast<unsigned>(value)) ? value : 0;
}

nlohmann::json readCacheFile(const std::filesystem::path& file) {
  // The file's type first: a folder cannot be read as one, and opening a FIFO would block
  // every Vulkan command until someone writes to it.
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status)) return {{"format", kCacheFormat}, {"devices", nlohmann::json::object()}};  // none yet
  if (!std::filesystem::is_regular_file(status)) {
    std::string what = std::filesystem::is_directory(status) ? "a folder"
                       : std::filesystem::is_fifo(status)    ? "a FIFO"
                                                             : "not a regular file";
    throw InputError(file.string() + ": the tune cache is " + what + ", not a file; point " + kTuneCacheVariable +
                     " at a file or set it to off");
  }
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot read the tune cache; set " + std::string(kTuneCacheVariable) + "=off");
  nlohmann::json cache;
  try {
    cache = nlohmann::json::parse(in);
  } catch (const std::exception& e) {  // nlohmann's errors, and a stream that fails while read
    throw InputError(file.string() + ": not a tileskip tune cache (" + e.what() + "); remove it or set " +
                     kTuneCacheVariable + "=off");
  }
  const std::string format = cache.is_object() && cache.contains("format") && cache["format"].is_string()
                                 ? cache["format"].get<std::string>()
                                 : std::string();
  bool wellFormed = (format == kCacheFormat || format == kFirstCacheFormat) && cache.contains("devices") &&
                    cache["devices"].is_object();
  if (wellFormed) {
    for (auto& [key, entry] : cache["devices"].items()) {
      // The first format's entry is one size's choices: it becomes that size's class.
      if (format == kFirstCacheFormat && entry.is_object() && entry.contains("size") && entry["size"].is_number_integer()) {
        const int size = entry["size"].get<int>();
        if (size > 0) entry = {{"size_classes", {{std::to_string(tuneSizeClass(size, size, size)), entry}}}};
      }
      if (!entry.is_object() || !entry.contains("size_classes") || !entry["size_classes"].is_object()) {
        wellFormed = false;
        continue;
      }
      for (const auto& [sizeClass, choices] : entry["size_classes"].items()) {
        if (parseSizeClass(sizeClass) == 0 || !choices.is_object() || !choices.contains("variants") ||
            !choices["variants"].is_object()) {
          wellFormed = false;
          continue;
        }
        for (const auto& [kernel, variant] : choices["variants"].items()) {
          if (!variant.is_string()) wellFormed = false;
        }
      }
    }
  }
  if (!wellFormed) {
    throw InputError(file.string() + ": not a tileskip tune cache (expected {\"format\": \"" + std::string(kCacheFormat) + "\", \"devices\": {...}}); "
                     "remove it or set " + std::string(kTuneCacheVariable) + "=off");
  }
  cache["format"] = kCacheFormat;
  return cache;
}

}  // namespace

std::map<int, TuneChoices> readTuneCache(const std::filesystem::path& file, const std::string& key) {
  nlohmann::json cache = readCacheFile(file);
  std::map<int, TuneChoices> classes;
  if (!cache["devices"].contains(key)) return classes;
  for (const auto& [sizeClass, choices] : cache["devices"][key]["size_classes"].items()) {
    TuneChoices& chosen = classes[parseSizeClass(sizeClass)];
    for (const auto& [kernel, variant] : choices["variants"].items()) chosen[kernel] = variant.get<std::string>();
  }
  return classes;
}

void writeTuneCache(const std::filesystem::path& file, const TuneReport& report) {
  nlohmann::json cache = readCacheFile(file);
  nlohmann::json variants = nlohmann::json::object(), measured = nlohmann::json::object();
  for (const TuneResult& r : report.results) {
    if (!r.chosen.empty()) variants[r.kernel] = r.chosen;
    measured[r.kernel] = {{"catalogue_ms", r.catalogueMs}, {"chosen_ms", r.chosenMs}, {"problem", r.problem}};
  }
  const int sizeClass = tuneSizeClass(report.size, report.size, report.size);
  cache["devices"][report.cacheKey]["size_classes"][std::to_string(sizeClass)] = {
      {"date", report.date}, {"size", report.size}, {"variants", variants}, {"measured", measured}};
  std::error_code ignored;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ignored);
  AtomicFile out(file);
  out.stream() << cache.dump(2) << "\n";
  out.commit();
}

}  // namespace tileskip
