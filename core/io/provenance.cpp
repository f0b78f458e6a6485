#include "core/io/provenance.hpp"

#include "tileskip_version.hpp"

namespace tileskip {

const char* toolVersion() { return generated::kToolVersion; }
const char* toolCommit() { return generated::kGitCommit; }

std::string tuneOverridesOf(const DeviceInfo& device) {
  const std::string& api = device.api;
  std::size_t start = api.find(std::string(" (") + std::string(kTilesOverriddenLabel));
  if (start == std::string::npos) return {};
  start += 2 + kTilesOverriddenLabel.size();
  std::size_t end = api.rfind(')');
  if (end == std::string::npos || end < start) return {};
  return api.substr(start, end - start);
}

}  // namespace tileskip
