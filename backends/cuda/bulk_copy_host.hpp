// The host's half of kernels/parts/hopper.cuh's bulk tensor copies: the tensor map that names a row-major
// matrix of 16-bit or 32-bit values and the box one copy moves (one swizzled row of columns, by
// `boxRows` rows), made by the driver's cuTensorMapEncodeTiled. The runtime hands out the driver
// entry point, so nothing links libcuda itself (the executables must start where there is no CUDA at all).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tileskip::cuda {

// Throws std::runtime_error when the driver has no such entry point or refuses the map: the rows
// must start 16-byte aligned (`inner` values a multiple of 16 bytes) at a 16-byte aligned `base`.
template <class Word>
CUtensorMap encodeBulkTensorMap(const Word* base, int inner, int outer, int boxRows) {
  static_assert(sizeof(Word) == 2 || sizeof(Word) == 4, "16-bit or 32-bit values");
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      throw std::runtime_error("the CUDA driver offers no cuTensorMapEncodeTiled (bulk tensor copies need CUDA 12 or newer)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};
  const cuuint64_t rowBytes[1] = {static_cast<cuuint64_t>(inner) * sizeof(Word)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(128 / sizeof(Word)), static_cast<cuuint32_t>(boxRows)};
  const cuuint32_t elementStrides[2] = {1, 1};
  const CUtensorMapDataType type = sizeof(Word) == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
  const CUresult result = encode(&map, type, 2, const_cast<Word*>(base), dims, rowBytes, box,
                                 elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error("cuTensorMapEncodeTiled refused a " + std::to_string(outer) + " x " + std::to_string(inner) +
                             " matrix (error " + std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}

}  // namespace tileskip::cuda
