#include "backends/backend_registry.hpp"

#include "core/model/error.hpp"

namespace tileskip {

std::string compiledBackendList() {
  std::string list;
  for (const BackendEntry& entry : compiledBackends()) {
    if (!list.empty()) list += ", ";
    list += entry.name;
  }
  return list;
}

std::vector<BackendStatus> discoverBackends(const BackendOptions& options) {
  std::vector<BackendStatus> found;
  for (const BackendEntry& entry : compiledBackends()) {
    BackendStatus status{std::string(entry.name), nullptr, {}};
    try {
      status.backend = entry.open(options);
    } catch (const std::exception& e) {
      status.unavailableReason = e.what();
    }
    found.push_back(std::move(status));
  }
  return found;
}

namespace {
const BackendEntry* findEntry(std::string_view name) {
  for (const BackendEntry& entry : compiledBackends()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}
}  // namespace

void checkBackendName(std::string_view name) {
  if (findEntry(name) != nullptr) return;
  bool known = name == "cpu" || name == "vulkan" || name == "cuda";
  throw InputError(known ? "backend '" + std::string(name) + "' was not compiled into this build (built with: " +
                               compiledBackendList() + "); rebuild with its toolkit installed"
                         : "unknown backend '" + std::string(name) + "'; this build has: " + compiledBackendList());
}

std::unique_ptr<Backend> openBackend(std::string_view name, const BackendOptions& options) {
  checkBackendName(name);
  return findEntry(name)->open(options);
}

std::unique_ptr<Backend> openBestBackend(const BackendOptions& options) {
  std::vector<BackendStatus> found = discoverBackends(options);
  auto rank = [](const BackendStatus& s) {
    int preference = 0;
    for (const BackendEntry& entry : compiledBackends()) {
      if (entry.name == s.name) preference = entry.preference;
    }
    return std::pair(s.backend->device().isGpu, preference);
  };
  BackendStatus* best = nullptr;
  std::string reasons;
  for (BackendStatus& s : found) {
    if (!s.backend) {
      reasons += "\n  " + s.name + ": " + s.unavailableReason;
      continue;
    }
    if (best == nullptr || rank(s) > rank(*best)) best = &s;
  }
  if (best == nullptr) throw UnavailableError("no backend can run on this machine:" + reasons);
  return std::move(best->backend);
}

void addBaselineTarget(std::vector<std::unique_ptr<Backend>>& backends, std::vector<BenchTarget>& targets, DType dtype) {
  for (const BenchTarget& t : targets) {
    for (const KernelInfo* k : t.kernels) {
      if (k->isBaseline()) return;
    }
  }
  for (std::string_view id : kBaselinePreference) {
    if (!kernelInfo(id).takes(dtype)) continue;
    for (BackendStatus& s : discoverBackends()) {
      if (s.backend && s.backend->implements(id)) {
        targets.push_back({s.backend.get(), {&kernelInfo(id)}});
        backends.push_back(std::move(s.backend));
        return;
      }
    }
  }
}

}  // namespace tileskip
