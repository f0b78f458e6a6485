// --require BACKEND[,...] for `list`, `verify`, `bench` and `tune`: a CI gate that fails with exit 3,
// naming what is missing and why, instead of passing on whatever backends happened to be found.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.hpp"

namespace tileskip::cli {

// "cpu,vulkan" -> {"cpu", "vulkan"}. Throws InputError for an empty name or one that is no
// backend of tileskip (cpu, vulkan, cuda); a known backend this build lacks is missing, not bad input.
std::vector<std::string> parseRequiredBackends(const std::string& list);

// Throws UnavailableError naming each required backend that is not among `available`, with the
// reason from `found` where it was tried ("not compiled into this build" otherwise).
void checkRequiredBackends(const std::vector<std::string>& required, const std::vector<std::string>& available,
                           const std::vector<BackendStatus>& found);

// The gate on the backends a command opened: with `list` non-empty, throws UnavailableError
// unless every backend it names is among `opened` (why each missing one is missing comes from
// discovering the backends again with `options`).
void requireOpened(const std::string& list, const std::vector<std::unique_ptr<Backend>>& opened,
                   const BackendOptions& options);

}  // namespace tileskip::cli
