#include "core/process/host_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/model/error.hpp"

namespace tileskip {

namespace {

std::optional<std::uint64_t> readNumber(const char* path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;  // also for cgroup v2's "max"
}

std::string advice() { return "choose a smaller problem or free host memory"; }

}  // namespace

std::optional<std::uint64_t> availableHostMemory() {
  std::ifstream meminfo("/proc/meminfo");
  std::optional<std::uint64_t> available, swapFree;
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (!(fields >> key >> kib)) continue;
    if (key == "MemAvailable:") available = kib * 1024;
    if (key == "SwapFree:") swapFree = kib * 1024;
  }
  if (!available) return std::nullopt;
  std::uint64_t total = *available + swapFree.value_or(0);
  // A container's limit does not show in /proc/meminfo (cgroup v2, then v1).
  for (const char* limitFile : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (std::optional<std::uint64_t> limit = readNumber(limitFile)) total = std::min(total, *limit);
  }
  return total;
}

std::string formatGiB(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

void checkHostMemory(std::uint64_t bytes, const std::string& what) {
  std::optional<std::uint64_t> available = availableHostMemory();
  if (available && bytes > *available) {
    throw UnavailableError("needs " + formatGiB(bytes) + " of host memory for " + what + ", " + formatGiB(*available) +
                           " available; " + advice());
  }
}

void throwOutOfHostMemory(std::uint64_t bytes, const std::string& what) {
  throw UnavailableError("needs " + formatGiB(bytes) + " of host memory for " + what +
                         ", but the allocation failed (out of memory, or a ulimit); " + advice());
}

}  // namespace tileskip
