// Tuning per device: a backend offers variants of a kernel it can run without a rebuild (the
// Vulkan backend: other tile shapes and shader switches, as specialization constants) through
// its Tunable; tuning verifies and times each on this device, keeps the fastest, and caches the
// choice per device, driver and size class, where the backend finds it the next time it opens
// that device.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measure/bench.hpp"
#include "core/measure/kernel_variant.hpp"
#include "core/model/backend.hpp"

namespace tileskip {

// What a backend offers tuning, reached through Backend::tuning(): run-time variants of its
// kernels. A backend whose kernels' shapes are fixed when it is built has none (tuning() is null).
class Tunable {
 public:
  virtual ~Tunable() = default;
  // The variants of `kernel` this backend can run on this device without a rebuild, the
  // catalogue's own (an empty variant) first; none where the kernel has no other.
  virtual std::vector<KernelVariant> variants(const KernelInfo& kernel) const = 0;
  // Runs `kernel` as `variant` from now on, in problems already uploaded too. Throws InputError
  // for a variant that is not one of variants(kernel).
  virtual void useVariant(const KernelInfo& kernel, const KernelVariant& variant) = 0;
};

struct TuneOptions {
  int size = 4096;  // M = N = K
  std::uint64_t seed = 42;
  BenchOptions timing;
  // Each variant is timed once per round, the rounds alternating the variants; its best round counts.
  int rounds = 2;
  // Another variant replaces the catalogue's only when it is faster by more than the run-to-run
  // spread measured for either of them (TuneTrial::spread), and by at least this margin: a
  // difference within noise must not flip the choice from one tuning to the next.
  double margin = 0.01;
};

struct TuneTrial {
  KernelVariant variant;  // empty: the catalogue's own
  bool verified = false;
  std::string failure;  // why it was not timed (does not verify, cannot run here)
  double medianMs = 0.0;  // of its timed runs, in its best round
  // Its run-to-run spread, relative to medianMs: the larger of the interquartile range of each
  // round's runs and the difference between the rounds' medians.
  double spread = 0.0;
};

// Whether `variant` beats `catalogue` beyond the spread measured for either and by `margin`.
bool winsBeyondSpread(const TuneTrial& variant, const TuneTrial& catalogue, double margin);

// One labelled line for a trial: "warptile fma=1: verified, median 1.234 ms, spread 2.1 %".
std::string describeTrial(const std::string& kernel, const TuneTrial& trial);

struct TuneResult {
  std::string kernel;
  std::string problem;  // what it was timed on: dense kernels on dense inputs, skipping kernels on block-aligned zeros
  std::vector<TuneTrial> trials;
  KernelVariant chosen;  // the variant kept (empty where the catalogue's won)
  double catalogueMs = 0.0, chosenMs = 0.0;
};

struct TuneReport {
  std::string date, backend, device, cacheKey;
  int size = 0;  // M = N = K: the choices are kept for its size class
  std::vector<TuneResult> results;
  bool anyFailedVerification() const;
};

// Tunes each kernel of `kernels` that has variants on `backend`, leaving the backend running
// the chosen ones. Kernels without variants are left out of the report: all of them on a
// backend without tuning.
TuneReport runTune(Backend& backend, const std::vector<const KernelInfo*>& kernels, const TuneOptions& options,
                   const ProgressCallback& progress = {});

// A table of every trial with its spread and which was kept, after the size class the choices are cached for.
std::string formatTuneTable(const TuneReport& report);

// Choices are cached, and used, by size class: the power of two nearest the geometric mean of M,
// N and K, so a class holds the problems within a factor of sqrt(2) of it. A tile that wins at
// 4096 can lose at 256, where a large block tile leaves most of a GPU idle: a problem uses only
// what was tuned in its own class, and the catalogue's tiles where nothing was.
int tuneSizeClass(int m, int n, int k);

// Kernel id -> variant for one size class (the catalogue's own are not listed).
using TuneChoices = std::map<std::string, KernelVariant>;

// ---- The cache: one JSON file for every backend and device tuned on this machine.

inline constexpr const char* kTuneCacheVariable = "TILESKIP_TUNE_CACHE";

// $TILESKIP_TUNE_CACHE (a file; "off": no cache), else $XDG_CACHE_HOME/tileskip/tune.json,
// else ~/.cache/tileskip/tune.json; nothing where it is "off" or no home is known.
std::optional<std::filesystem::path> tuneCachePath();

// What a cache entry belongs to: a backend on one device with one driver ("vulkan | NVIDIA
// H200 | NVIDIA 580.159.04"). Another driver compiles shaders differently: it gets its own.
std::string tuneCacheKey(std::string_view backend, const DeviceInfo& device);

// The file (format "tileskip-tune-3"):
//   {"format": "tileskip-tune-3", "devices": {KEY: {"size_classes": {"4096": {
//      "date": ..., "size": 4096, "measured": {KERNEL: {"catalogue_ms", "chosen_ms", "problem"}},
//      "variants": {KERNEL: {"tile": {"BM": 128, "BN": 128, "BK": 8, "WM": 64, "WN": 32,
//                                     "TM": 8, "TN": 4, "threads": 256},
//                            "switches": {"prefetch": false}}}}}}}}
// A variant names only what differs from the catalogue: "tile" (all eight fields, whole numbers
// up to 1000000) and "switches" (booleans) are each left out where it has none.
inline constexpr const char* kTuneCacheFormat = "tileskip-tune-3";

// The choices cached for `key`, by size class; empty where the file or the key is missing. Reads
// the two older formats too, whose variants are variantText(): "tileskip-tune-2" (by size class)
// and "tileskip-tune-1" (one entry per key, tuned at one size: the class of that size). Throws
// InputError naming the file for one that is not a tune cache (not JSON, a field of the wrong
// type, a variant whose text does not parse).
std::map<int, TuneChoices> readTuneCache(const std::filesystem::path& file, const std::string& key);

// Replaces the entry of the report's key and size class (other keys and classes are kept, those
// of an older format converted), written atomically in the current format; creates the folder.
// Throws InputError when the file cannot be written or is not a tune cache.
void writeTuneCache(const std::filesystem::path& file, const TuneReport& report);

}  // namespace tileskip
