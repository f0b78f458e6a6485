#include "require.hpp"

#include <algorithm>
#include <sstream>

#include "core/model/error.hpp"

namespace tileskip::cli {

namespace {
constexpr const char* kKnownBackends[] = {"cpu", "vulkan", "cuda"};
}

std::vector<std::string> parseRequiredBackends(const std::string& list) {
  std::vector<std::string> names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (std::find(std::begin(kKnownBackends), std::end(kKnownBackends), name) == std::end(kKnownBackends)) {
      throw InputError("--require: '" + name + "' is not a backend; name cpu, vulkan or cuda, comma separated");
    }
    names.push_back(name);
  }
  if (names.empty() || (!list.empty() && list.back() == ',')) throw InputError("--require needs backend names, comma separated");
  return names;
}

void checkRequiredBackends(const std::vector<std::string>& required, const std::vector<std::string>& available,
                           const std::vector<BackendStatus>& found) {
  std::string missing;
  for (const std::string& name : required) {
    if (std::find(available.begin(), available.end(), name) != available.end()) continue;
    std::string why = "not compiled into this build";
    for (const BackendStatus& s : found) {
      if (s.name == name) why = s.backend ? "available but not selected (--backend)" : s.unavailableReason;
    }
    missing += (missing.empty() ? "" : "; ") + name + ": " + why;
  }
  if (!missing.empty()) throw UnavailableError("a required backend is unavailable: " + missing);
}

void requireOpened(const std::string& list, const std::vector<std::unique_ptr<Backend>>& opened,
                   const BackendOptions& options) {
  if (list.empty()) return;
  std::vector<std::string> names;
  for (const auto& backend : opened) names.emplace_back(backend->name());
  std::vector<std::string> required = parseRequiredBackends(list);
  bool allThere = std::all_of(required.begin(), required.end(), [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  });
  if (!allThere) checkRequiredBackends(required, names, discoverBackends(options));
}

}  // namespace tileskip::cli
