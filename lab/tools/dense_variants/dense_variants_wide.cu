// 256-thread block tiles with 64 x 64 warps: twice the outputs per block, so each staged A and
// B element feeds twice as many FFMA (less copy and barrier work per FFMA), 1 block/SM of 8
// warps. CUTLASS's best measured SIMT configuration is 128x256x8, warp 64x64, 3 stages (1.009).
#include "dense_variants.cuh"

namespace tileskip::tune {

void addWideVariants(std::vector<Variant>& into) {
  addMultistage<128, 256, 8, 64, 64, 8, 4, 256, 3>(
      into, "128x256 3 stages, t8x4: the predicted winner with CUTLASS's shape, 0.95-1.0 of cuBLAS");
  addMultistage<128, 256, 8, 64, 64, 4, 4, 256, 3, 1, 4, 2>(
      into, "128x256 3 stages, CUTLASS lanes: CUTLASS's own configuration, ~1.0 of cuBLAS there");
  addMultistage<128, 256, 8, 64, 64, 8, 4, 256, 4>(into, "128x256 4 stages (49 KB): within 1 % of 3 stages");
  addMultistage<256, 128, 8, 64, 64, 8, 4, 256, 3>(
      into, "256x128 3 stages: same work per block as 128x256; A copies (4-byte) double, B halve; 1-2 % behind");
  addMultistage<128, 256, 16, 64, 64, 8, 4, 256, 3>(
      into, "128x256x16 3 stages (74 KB): half the barriers again; i-cache risk as at 128x128x16");
}

}  // namespace tileskip::tune
