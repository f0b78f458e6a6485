// The order in which a thread's outer product issues its FMAs (issue 17, lab/18-fma-order-stalls).
// Every order computes the same products in the same K order per output, so C is bit-identical;
// what changes is which operand two consecutive FFMAs share. SASS can mark an operand that the
// next FFMA reads again in the same slot as reusable (the .reuse flag): it is then read from
// the operand reuse cache instead of the register file. On the H200 neither other order made K12
// or K11 faster (step 18): ptxas reorders and renames the FFMAs whatever order they come in.
//   RowMajor:    a[i] outer, b[j] inner: consecutive FFMAs share a[i], none at a row's turn.
//   Serpentine:  b[j] outer, a[i] inner and reversed on odd columns: b[j] shared, and a[i] at a turn.
//   Zigzag2x2:   2x2 tiles (a[i],b[j]) (a[i+1],b[j]) (a[i+1],b[j+1]) (a[i],b[j+1]), the tiles walked down
//                the column pair and back up the next: each FFMA shares one operand with the one before,
//                alternating between A and B. CUTLASS's SIMT thread MMA (thread/mma_sm50.h) uses this
//                order for fp32 on sm_86 and newer.
#pragma once

namespace tileskip::cuda {

enum class FmaOrder { RowMajor, Serpentine, Zigzag2x2 };

template <FmaOrder kOrder, int kRegM, int kRegN>
__device__ __forceinline__ void outerProduct(float (&acc)[kRegM][kRegN], const float (&a)[kRegM],
                                             const float (&b)[kRegN]) {
  if constexpr (kOrder == FmaOrder::RowMajor) {
#pragma unroll
    for (int i = 0; i < kRegM; ++i) {
#pragma unroll
      for (int j = 0; j < kRegN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  } else if constexpr (kOrder == FmaOrder::Serpentine) {
#pragma unroll
    for (int j = 0; j < kRegN; ++j) {
#pragma unroll
      for (int m = 0; m < kRegM; ++m) {
        const int i = j % 2 ? kRegM - 1 - m : m;
        acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
  } else {
    static_assert(kRegM % 2 == 0 && kRegN % 2 == 0, "the zigzag walks 2x2 tiles");
#pragma unroll
    for (int j = 0; j < kRegN; j += 2) {
#pragma unroll
      for (int m = 0; m < kRegM; m += 2) {
        const int i = j % 4 ? kRegM - 2 - m : m;
        acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        acc[i + 1][j] = fmaf(a[i + 1], b[j], acc[i + 1][j]);
        acc[i + 1][j + 1] = fmaf(a[i + 1], b[j + 1], acc[i + 1][j + 1]);
        acc[i][j + 1] = fmaf(a[i], b[j + 1], acc[i][j + 1]);
      }
    }
  }
}

}  // namespace tileskip::cuda
