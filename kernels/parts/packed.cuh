// A packed block-sparse A as the bsr kernels read it (the twin of packed.glsl): its kept blocks,
// block x block values each, row-major, one after another in block-row order, and the index beside
// them (core/model/block_sparse.hpp; the backends upload both once). A block tile of one block
// row's height multiplies that row's kept blocks and nothing else: its slice of the index is its
// list of K-blocks, read as it is, with no pattern and no pass over A per call. The kernels stage
// it in K12's stages (packed_stage.cuh) or stream it into registers (S20).
#pragma once

#include <cstdint>
#include <type_traits>

#include "common.cuh"
#include "core/model/block_sparse.hpp"  // BlockStreamPlan

namespace tileskip::cuda {

// The device's copy of a packed A: the values in the kernel's input words and the index, the row
// pointers (block rows + 1 of them) followed by the column indices (one per kept block), as
// packedIndexWords() lays them out.
template <class Word>
struct PackedA {
  const Word* values;
  const int* index;
  int blockRows;
  __device__ const int* rowPointers() const { return index; }
  __device__ const int* columnIndices() const { return index + blockRows + 1; }
};

// The words a packed A (and its B) are read in: fp32 values, or fp16 / bf16 words.
template <DType D>
using PackedWord = std::conditional_t<D == DType::Fp16 || D == DType::Bf16, std::uint16_t, float>;

// A 16-bit word of `D` as the fp32 value it holds (exactly: both types are narrower fp32s).
template <DType D>
__device__ __forceinline__ float widen(std::uint16_t word) {
#if defined(TILESKIP_CUDA_EMULATION)
  return fromHalfBits(D, word);
#else
  if constexpr (D == DType::Bf16) {
    return __uint_as_float(static_cast<unsigned>(word) << 16);
  } else {
    float value;
    asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(word));
    return value;
  }
#endif
}

// The 8 values of one K-block of a packed block's row (16-byte aligned: a block's rows are whole
// K-blocks), widened to fp32: one 128-bit load in 16 bits, two in fp32.
template <DType D>
__device__ __forceinline__ void loadWidenedKBlock(const PackedWord<D>* from, float (&out)[kKBlock]) {
  if constexpr (std::is_same_v<PackedWord<D>, float>) {
    const float4 lo = loadGlobalQuadInOrder(from), hi = loadGlobalQuadInOrder(from + 4);
    out[0] = lo.x, out[1] = lo.y, out[2] = lo.z, out[3] = lo.w, out[4] = hi.x, out[5] = hi.y, out[6] = hi.z, out[7] = hi.w;
  } else {
    const uint4 words = *reinterpret_cast<const uint4*>(from);
    const unsigned pairs[4] = {words.x, words.y, words.z, words.w};
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      out[2 * p] = widen<D>(static_cast<std::uint16_t>(pairs[p] & 0xFFFFu));
      out[2 * p + 1] = widen<D>(static_cast<std::uint16_t>(pairs[p] >> 16));
    }
  }
}

// Four consecutive values of a row of `rowLength` from `first`, widened to fp32; zeros past the row.
template <DType D>
__device__ __forceinline__ float4 loadWidenedQuad(const PackedWord<D>* row, int first, int rowLength) {
  if constexpr (std::is_same_v<PackedWord<D>, float>) {
    if (first >= rowLength) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return loadRowQuad(row, first, rowLength, rowsAreVectorAligned(rowLength));
  } else {
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = first + j < rowLength ? widen<D>(row[first + j]) : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

// A streaming kernel's unit of work (BlockStreamPlan's words for it).
struct StreamUnit {
  int blockRow, firstBlock, keptBlocks;
  int slot;  // where its partial tile goes; -1: its block row's only unit, which stores C itself
  int rowFirstSlot, rowUnits;
};

// A streaming kernel's schedule on the device: the plan's units, a counter per block row and column
// tile (zero between launches), and the slots of the split rows' partial tiles (BM x BN floats
// each, per column tile).
struct BlockStream {
  const int* units;
  unsigned* counters;
  float* partials;
  __device__ StreamUnit unit(int index) const {
    const int* w = units + static_cast<long long>(index) * BlockStreamPlan::kWordsPerUnit;
    return {__ldg(w), __ldg(w + 1), __ldg(w + 2), __ldg(w + 3), __ldg(w + 4), __ldg(w + 5)};
  }
};

}  // namespace tileskip::cuda
