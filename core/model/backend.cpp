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

double Backend::multiplyInPlace(const KernelInfo&, const DeviceOperands&) {
  throw UnavailableError("backend " + std::string(name()) +
                         " multiplies host arrays only; device tensors in place need the cuda backend");
}

}  // namespace tileskip
