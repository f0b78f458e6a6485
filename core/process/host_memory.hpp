// Host memory: how much a large allocation can expect, and the one way a shortage is reported
// ("needs 6.0 GiB of host memory for ..., 3.1 GiB available", exit 3), so that a problem too
// large for the host fails with a message instead of the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tileskip {

// MemAvailable + SwapFree from /proc/meminfo, capped by the container's cgroup memory limit;
// nullopt where the system does not say.
std::optional<std::uint64_t> availableHostMemory();

// "6.0 GiB"
std::string formatGiB(std::uint64_t bytes);

// Throws UnavailableError "needs X GiB of host memory for <what>, Y GiB available; ..." when
// `bytes` is more than availableHostMemory() (nothing is checked where that is unknown).
void checkHostMemory(std::uint64_t bytes, const std::string& what);

// The UnavailableError for an allocation of `bytes` for `what` that failed.
[[noreturn]] void throwOutOfHostMemory(std::uint64_t bytes, const std::string& what);

}  // namespace tileskip
