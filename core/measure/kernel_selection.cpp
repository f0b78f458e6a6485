#include "core/measure/kernel_selection.hpp"

#include <algorithm>
#include <sstream>

#include "core/model/error.hpp"

namespace tileskip {

std::vector<const KernelInfo*> parseKernelList(const std::string& list) {
  std::vector<const KernelInfo*> kernels;
  if (list.empty() || list == "all") return kernels;
  std::istringstream ids(list);
  for (std::string id; std::getline(ids, id, ',');) {
    if (!id.empty() && id != "auto") kernels.push_back(&kernelInfo(id));  // throws for an unknown id
  }
  if (kernels.empty() && !namesAuto(list)) {
    throw InputError("--kernel '" + list + "' names no kernel; give ids separated by commas, auto, or all");
  }
  return kernels;
}

bool namesAuto(const std::string& list) {
  std::istringstream ids(list);
  for (std::string id; std::getline(ids, id, ',');) {
    if (id == "auto") return true;
  }
  return false;
}

std::vector<const KernelInfo*> selectKernels(const std::string& list, const Backend& backend, bool strict,
                                             std::optional<DType> dtype) {
  std::vector<const KernelInfo*> selected;
  if (list.empty() || list == "all") {
    for (const KernelInfo* info : backend.kernels()) {
      if (!dtype || backend.takes(*info, *dtype)) selected.push_back(info);
    }
    return selected;
  }
  for (const KernelInfo* info : parseKernelList(list)) {
    if (!backend.implements(info->id)) {
      if (!strict) continue;
      const std::string why = info->needsHopper() ? " (it is built on Hopper's own instructions: it runs on the cuda backend "
                                                    "with a GPU of compute capability 9.0)"
                                                  : "";
      throw InputError("backend '" + std::string(backend.name()) + "' does not implement kernel '" + std::string(info->id) +
                       "'" + why + "; see `tileskip list`");
    }
    if (dtype && !backend.takes(*info, *dtype)) {
      if (!strict) continue;
      requireInputs(*info, *dtype);
      throw InputError("backend '" + std::string(backend.name()) + "' runs kernel '" + std::string(info->id) +
                       "' on other inputs than " + std::string(dtypeName(*dtype)) + "; see `tileskip list`");
    }
    selected.push_back(info);
  }
  return selected;
}

Recommendation chooseAuto(Backend& backend, const Matrix& a, const Matrix& b, const ProblemSpec& spec) {
  return chooseKernel(backend, a, b, spec.sourceOf(Operand::A), spec.sourceOf(Operand::B), spec.dtype).choice;
}

BenchTarget benchTarget(Backend& backend, const std::string& list, bool strict, const Matrix& a, const Matrix& b,
                        const ProblemSpec& spec) {
  BenchTarget target{&backend, selectKernels(list, backend, strict, spec.dtype)};
  if (!namesAuto(list)) return target;
  const Recommendation choice = chooseAuto(backend, a, b, spec);
  target.autoKernel = choice.kernel;
  target.autoReason = choice.reason;
  for (const KernelInfo* k : {&kernelInfo(denseReferenceKernel(spec.dtype)), choice.kernel}) {
    if (backend.implements(k->id) && std::find(target.kernels.begin(), target.kernels.end(), k) == target.kernels.end()) {
      target.kernels.push_back(k);
    }
  }
  return target;
}

}  // namespace tileskip
