#include "core/backend.hpp"

namespace tileskip {

std::string DeviceInfo::describe() const {
  std::string text = name;
  if (!api.empty()) text += ", " + api;
  if (!driver.empty()) text += ", driver " + driver;
  return text;
}

std::vector<const KernelInfo*> Backend::kernels() const {
  std::vector<const KernelInfo*> list;
  for (const KernelInfo& k : kCatalogue) {
    if (implements(k.id)) list.push_back(&k);
  }
  return list;
}

}  // namespace tileskip
