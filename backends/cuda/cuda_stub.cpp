// The cuda backend as the executables see it: host-only code that loads libtileskip_cuda.so
// from beside the running executable (or from $TILESKIP_CUDA_MODULE) and asks it to open the
// backend. Nothing here needs a CUDA header or library, so a machine with no NVIDIA driver and
// no CUDA libraries runs everything else and reports why CUDA is unavailable.
#include "backends/backend_registry.hpp"
#include "backends/cuda/cuda_module.hpp"
#include "core/process/runtime_module.hpp"

namespace tileskip {

namespace {

constexpr RuntimeModuleSpec kCudaModule{
    .description = "tileskip CUDA module",
    .fileName = TILESKIP_CUDA_MODULE_FILE,
    .pathVariable = "TILESKIP_CUDA_MODULE",
    .entrySymbol = cuda::kModuleSymbol,
    .advice = "It needs the CUDA 13 libraries cuBLAS and cuSPARSE (install the CUDA toolkit, or put their folder in "
              "LD_LIBRARY_PATH)",
};

}  // namespace

BackendEntry cudaBackendEntry() {
  return {"cuda", 30, [](const BackendOptions& options) {
            return loadRuntimeModule<cuda::ModuleInterface>(kCudaModule).open(options);
          }};
}

}  // namespace tileskip
