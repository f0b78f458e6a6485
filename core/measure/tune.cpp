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
    spec.options.block = 128;
  }
  spec.validate();
  return spec;
}

// "(catalogue)" or the variant's text.
std::string trialName(const TuneTrial& trial) {
  return trial.variant.isCatalogue() ? "(catalogue)" : variantText(trial.variant);
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
  std::string line = kernel + " " + trialName(trial) + ": ";
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
  Tunable* tunable = backend.tuning();
  if (tunable == nullptr) return report;  // its kernels' shapes are fixed when it is built
  const bool isGpu = backend.device().isGpu;
  int steps = 0;
  for (const KernelInfo* kernel : kernels) steps += static_cast<int>(tunable->variants(*kernel).size()) * options.rounds;
  ProgressMeter meter(steps, progress);
  for (const KernelInfo* kernel : kernels) {
    std::vector<KernelVariant> variants = tunable->variants(*kernel);
    if (variants.empty()) continue;
    ProblemSpec spec = tuningProblem(*kernel, options);
    ProblemData data = generateProblem(spec);
    Reference reference = computeReference(data.a, data.b);
    TuneResult result;
    result.kernel = kernel->id;
    result.problem = spec.describe();
    for (const KernelVariant& variant : variants) result.trials.push_back({variant, false, {}, 0.0, 0.0});
    std::vector<std::vector<double>> roundMedians(result.trials.size());
    // Every variant on one upload, in rounds that alternate them: a GPU whose speed drifts
    // between uploads or over seconds (lab/07-tune-per-device) then slows all variants of a
    // round alike, and each keeps its best round.
    std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
    for (int round = 0; round < options.rounds; ++round) {
      for (std::size_t index = 0; index < result.trials.size(); ++index) {
        TuneTrial& trial = result.trials[index];
        if (round > 0 && !trial.verified) continue;
        meter.begin(std::string(kernel->id) + " " + trialName(trial) + ", round " +
                    std::to_string(round + 1) + " of " + std::to_string(options.rounds));
        try {
          tunable->useVariant(*kernel, trial.variant);
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
    tunable->useVariant(*kernel, result.chosen);
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
      cells.push_back({r.kernel, trialName(t),
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

// Ordered: a variant's switches read back in the order they were written, and the file's entries too.
using Json = nlohmann::ordered_json;

constexpr const char* kSecondCacheFormat = "tileskip-tune-2";  // by size class; variants as text
constexpr const char* kFirstCacheFormat = "tileskip-tune-1";   // one entry per device, no size classes

// A tile's fields in the cache, in tileNotation()'s order, and their bound (parseTileNotation's).
constexpr std::pair<const char*, int TileShape::*> kTileFields[] = {
    {"BM", &TileShape::BM}, {"BN", &TileShape::BN}, {"BK", &TileShape::BK}, {"WM", &TileShape::WM},
    {"WN", &TileShape::WN}, {"TM", &TileShape::TM}, {"TN", &TileShape::TN}, {"threads", &TileShape::threads}};
constexpr long long kLargestTileField = 1'000'000;

InputError notACache(const std::filesystem::path& file, const std::string& why) {
  return InputError(file.string() + ": not a tileskip tune cache (" + why + "); remove it or set " + kTuneCacheVariable + "=off");
}

// A size class as the cache writes it ("4096"), or 0 for anything else.
int parseSizeClass(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  const int value = std::stoi(text);
  return value > 0 && std::has_single_bit(static_cast<unsigned>(value)) ? value : 0;
}

Json variantJson(const KernelVariant& variant) {
  Json json = Json::object();
  if (variant.tile) {
    Json tile = Json::object();
    for (const auto& [name, field] : kTileFields) tile[name] = (*variant.tile).*field;
    json["tile"] = std::move(tile);
  }
  if (!variant.switches.empty()) {
    Json switches = Json::object();
    for (const VariantSwitch& s : variant.switches) switches[s.name] = s.on;
    json["switches"] = std::move(switches);
  }
  return json;
}

// The variant of a cache entry in the current format; `where` names the entry in errors.
KernelVariant variantFromJson(const Json& json, const std::filesystem::path& file, const std::string& where) {
  auto refuse = [&](const std::string& why) { return notACache(file, where + ": " + why); };
  if (!json.is_object()) throw refuse("a variant is an object of \"tile\" and \"switches\", not " + json.dump());
  KernelVariant variant;
  for (const auto& [key, value] : json.items()) {
    if (key == "tile") {
      if (!value.is_object()) throw refuse("\"tile\" is an object of BM, BN, BK, WM, WN, TM, TN and threads, not " + value.dump());
      TileShape tile;
      for (const auto& [name, field] : kTileFields) {
        if (!value.contains(name)) throw refuse("the tile has no " + std::string(name));
        const Json& number = value.at(name);
        if (!number.is_number_integer() || number.get<long long>() < 0 || number.get<long long>() > kLargestTileField) {
          throw refuse("tile field " + std::string(name) + " is a whole number from 0 to 1000000, not " + number.dump());
        }
        tile.*field = number.get<int>();
      }
      for (const auto& item : value.items()) {
        // A named string, not a structured binding: clang before 16 cannot capture one in a lambda.
        const std::string& name = item.key();
        if (std::none_of(std::begin(kTileFields), std::end(kTileFields), [&](const auto& f) { return name == f.first; })) {
          throw refuse("a tile has no field \"" + name + "\" (it has BM, BN, BK, WM, WN, TM, TN and threads)");
        }
      }
      variant.tile = tile;
    } else if (key == "switches") {
      if (!value.is_object()) throw refuse("\"switches\" is an object of true or false by name, not " + value.dump());
      for (const auto& [name, on] : value.items()) {
        if (!on.is_boolean()) throw refuse("switch '" + name + "' is true or false, not " + on.dump());
        variant.switches.push_back({name, on.get<bool>()});
      }
    } else {
      throw refuse("a variant has \"tile\" and \"switches\", not \"" + key + "\"");
    }
  }
  return variant;
}

// The cache in the current format, every variant checked; an older format converted, its
// variants' text parsed. An empty cache where the file does not exist.
Json readCacheFile(const std::filesystem::path& file) {
  // The file's type first: a folder cannot be read as one, and opening a FIFO would block
  // every Vulkan command until someone writes to it.
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status)) return {{"format", kTuneCacheFormat}, {"devices", Json::object()}};  // none yet
  if (!std::filesystem::is_regular_file(status)) {
    std::string what = std::filesystem::is_directory(status) ? "a folder"
                       : std::filesystem::is_fifo(status)    ? "a FIFO"
                                                             : "not a regular file";
    throw InputError(file.string() + ": the tune cache is " + what + ", not a file; point " + kTuneCacheVariable +
                     " at a file or set it to off");
  }
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot read the tune cache; set " + std::string(kTuneCacheVariable) + "=off");
  Json cache;
  try {
    cache = Json::parse(in);
  } catch (const std::exception& e) {  // nlohmann's errors, and a stream that fails while read
    throw notACache(file, e.what());
  }
  const std::string format = cache.is_object() && cache.contains("format") && cache["format"].is_string()
                                 ? cache["format"].get<std::string>()
                                 : std::string();
  const InputError malformed = notACache(file, "expected {\"format\": \"" + std::string(kTuneCacheFormat) + "\", \"devices\": {...}}");
  if ((format != kTuneCacheFormat && format != kSecondCacheFormat && format != kFirstCacheFormat) || !cache.contains("devices") ||
      !cache["devices"].is_object()) {
    throw malformed;
  }
  for (auto& [key, entry] : cache["devices"].items()) {
    // The first format's entry is one size's choices: it becomes that size's class.
    if (format == kFirstCacheFormat && entry.is_object() && entry.contains("size") && entry["size"].is_number_integer()) {
      const int size = entry["size"].get<int>();
      if (size > 0) entry = {{"size_classes", {{std::to_string(tuneSizeClass(size, size, size)), entry}}}};
    }
    if (!entry.is_object() || !entry.contains("size_classes") || !entry["size_classes"].is_object()) throw malformed;
    for (auto& [sizeClass, choices] : entry["size_classes"].items()) {
      if (parseSizeClass(sizeClass) == 0 || !choices.is_object() || !choices.contains("variants") || !choices["variants"].is_object()) {
        throw malformed;
      }
      for (auto& [kernel, variant] : choices["variants"].items()) {
        const std::string where = "device '" + key + "', size class " + sizeClass + ", kernel '" + kernel + "'";
        if (format == kTuneCacheFormat) {
          variantFromJson(variant, file, where);
          continue;
        }
        // The older formats wrote a variant as its text: parsed once here, written back typed.
        if (!variant.is_string()) throw notACache(file, where + ": a variant in format " + format + " is text, not " + variant.dump());
        try {
          variant = variantJson(parseVariantText(variant.get<std::string>(), "'" + variant.get<std::string>() + "'"));
        } catch (const InputError& e) {
          throw notACache(file, where + ": " + e.what());
        }
      }
    }
  }
  cache["format"] = kTuneCacheFormat;
  return cache;
}

}  // namespace

std::map<int, TuneChoices> readTuneCache(const std::filesystem::path& file, const std::string& key) {
  Json cache = readCacheFile(file);
  std::map<int, TuneChoices> classes;
  if (!cache["devices"].contains(key)) return classes;
  for (const auto& [sizeClass, choices] : cache["devices"][key]["size_classes"].items()) {
    TuneChoices& chosen = classes[parseSizeClass(sizeClass)];
    for (const auto& [kernel, variant] : choices["variants"].items()) chosen[kernel] = variantFromJson(variant, file, kernel);
  }
  return classes;
}

void writeTuneCache(const std::filesystem::path& file, const TuneReport& report) {
  Json cache = readCacheFile(file);
  Json variants = Json::object(), measured = Json::object();
  for (const TuneResult& r : report.results) {
    if (!r.chosen.isCatalogue()) variants[r.kernel] = variantJson(r.chosen);
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
