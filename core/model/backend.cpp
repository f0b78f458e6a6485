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

void requireInputs(const KernelInfo& kernel, DType dtype) {
  if (kernel.takes(dtype)) return;
  std::string takers;
  for (const KernelInfo& k : kCatalogue) {
    if (k.takes(dtype)) takers += (takers.empty() ? "" : ", ") + std::string(k.id);
  }
  std::string takes;
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
    if (kernel.takes(type)) takes += (takes.empty() ? "" : ", ") + std::string(dtypeName(type));
  }
  throw InputError("kernel '" + std::string(kernel.id) + "' takes " + takes + " inputs, not " + std::string(dtypeName(dtype)) +
                   " (--dtype); the kernels that take " + std::string(dtypeName(dtype)) + ": " + takers);
}

void DeviceProblem::attachPackedA(const BlockSparseMatrix&) {
  throw UnavailableError("this backend runs no bsr kernel: it takes no packed A");
}

void requirePackedA(const BlockSparseMatrix& packed, int m, int k, DType dtype) {
  if (packed.rows() != m || packed.cols() != k) {
    throw InputError("the packed A is " + std::to_string(packed.rows()) + " x " + std::to_string(packed.cols()) + " but the problem's A is " +
                     std::to_string(m) + " x " + std::to_string(k));
  }
  if (packed.dtype() != dtype && !(dtype == DType::Tf32 && packed.dtype() == DType::Fp32)) {
    throw InputError("the packed A holds " + std::string(dtypeName(packed.dtype())) + " values but the problem is " +
                     std::string(dtypeName(dtype)) + " (--dtype)");
  }
}

void attachWherePacked(const Backend& backend, DeviceProblem& problem, const BlockSparseMatrix& packed) {
  for (const KernelInfo* kernel : backend.kernels()) {
    if (kernel->packedBlock() == packed.block()) {
      problem.attachPackedA(packed);
      return;
    }
  }
}

double Backend::multiplyInPlace(const KernelInfo&, const DeviceOperands&) {
  throw UnavailableError("backend " + std::string(name()) +
                         " multiplies host arrays only; device tensors in place need the cuda backend");
}

std::unique_ptr<DeviceLayer> Backend::uploadLayer(const Matrix&, const Matrix&, const Matrix&, DType, bool,
                                                  const KernelInfo& first, const KernelInfo& second) {
  throw InputError("backend " + std::string(name()) + " has no fused layer of " + std::string(first.id) + " and " +
                   std::string(second.id));
}

}  // namespace tileskip
