#include "core/model/backend.hpp"

#include "core/model/error.hpp"

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

std::vector<std::string> Backend::tuningVariants(const KernelInfo&) const { return {}; }

void Backend::useVariant(const KernelInfo& kernel, const std::string& variant) {
  if (variant.empty()) return;  // the catalogue's own: what runs anyway
  throw InputError("backend " + std::string(name()) + " has no variant '" + variant + "' of kernel '" + std::string(kernel.id) +
                   "': its kernels' shapes are compiled in");
}

double Backend::multiplyInPlace(const KernelInfo&, const DeviceOperands&) {
  throw UnavailableError("backend " + std::string(name()) +
                         " multiplies host arrays only; device tensors in place need the cuda backend");
}

}  // namespace tileskip
