// What the test environment asks for: TILESKIP_VALIDATION=1 (Vulkan's validation layers on) and
// TILESKIP_REQUIRE_BACKENDS=vulkan,... (a backend that must run here: its tests fail where it is
// unavailable instead of skipping, as CI's Vulkan job requires lavapipe).
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

namespace tileskip::testing {

// Set, and neither empty nor "0".
inline bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) != "0" && std::string(value) != "";
}

inline bool backendRequired(std::string_view backend) {
  const char* list = std::getenv("TILESKIP_REQUIRE_BACKENDS");
  if (list == nullptr) return false;
  std::istringstream names(list);
  for (std::string name; std::getline(names, name, ',');) {
    if (name == backend) return true;
  }
  return false;
}

}  // namespace tileskip::testing
