#include "core/model/catalogue.hpp"

#include "core/model/error.hpp"

namespace tileskip {

std::string_view familyName(KernelFamily family) {
  switch (family) {
    case KernelFamily::Dense: return "dense";
    case KernelFamily::SkipA: return "skip-A";
    case KernelFamily::SkipB: return "skip-B";
    case KernelFamily::Joint: return "joint";
    case KernelFamily::Compact: return "compact";
    case KernelFamily::Bsr: return "bsr";
    case KernelFamily::Baseline: return "baseline";
  }
  return "?";
}

const KernelInfo& kernelInfo(std::string_view id) {
  if (const KernelInfo* info = findKernelInfo(id)) return *info;
  throw InputError("unknown kernel '" + std::string(id) + "'; known kernels: " + catalogueIdList() +
                   " (see `tileskip list`)");
}

std::string catalogueIdList() {
  std::string list;
  for (const KernelInfo& k : kCatalogue) {
    if (!list.empty()) list += ", ";
    list += k.id;
  }
  return list;
}

}  // namespace tileskip
