// K11's register staging with multistage's addressing and warp code: separates what the addressing
// and the barrier placement buy from what cp.async buys; and the hybrid (only B in cp.async).
#include "dense_variants.cuh"

namespace tileskip::tune {

void addRegisterVariants(std::vector<Variant>& into) {
  addRegisterStaged<128, 128, 8, 64, 64, 8, 4, 128, 1, 4, 1, 8, false>(
      into,
      "K11 + hoisted addresses only (late barrier as K11): the per-tile fetch shrinks from ~60 "
      "to ~15 instructions; +2-4 % over k11");
  addRegisterStaged<128, 128, 8, 64, 64, 8, 4, 128>(
      into,
      "+ early barrier (CUTLASS MmaPipelined order): depth 0 of the next K-tile is read during "
      "the last depth's FMAs; +3-6 % over k11 (short-scoreboard stall at every tile start goes)");
  addRegisterStaged<128, 128, 8, 64, 64, 4, 4, 128, 1, 4, 2>(
      into,
      "CUTLASS's 2-stage SIMT structure (4x4 lane fragments, lane pairs interleaved); CUTLASS "
      "measured 0.971 of cuBLAS with it; predicted within 1 % of the t8x4 version");
  addRegisterStaged<128, 256, 8, 64, 64, 8, 4, 256>(
      into,
      "256 threads, 128x256: half the shared traffic per FFMA of A, 1 block/SM (8 warps as now); "
      "CUTLASS 256x128 2-stage measured 0.978");
  addVariant(into, "hybrid3 128x128x8 w64x64 t8x4 l4x8",
             "B in 3 cp.async stages, A through registers (2 LDG.128 + 8 STS per K-tile instead of 8 "
             "4-byte copies): within +-2 % of ms3; ahead if A's 4-byte copies cost L1 throughput",
             cuda::hybrid<128, 128, 8, 64, 64, 8, 4, 128, 3>, 128, 128, 128, cuda::multistageSharedBytes<128, 128, 8, 3>());
  addVariant(into, "hybrid3 128x256x8 w64x64 t8x4 l4x8 256thr",
             "the same at 128x256, 256 threads", cuda::hybrid<128, 256, 8, 64, 64, 8, 4, 256, 3>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, 3>());
}

}  // namespace tileskip::tune
