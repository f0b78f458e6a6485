// Lane arrangements inside the 64 x 64 warp tile, all at ms3 128 x 128 x 8. Every one reads 6
// 128-bit fragments per depth (16 + 8 or 8 + 16 values for 128 FFMA); they differ in how many
// distinct addresses a quarter warp touches and in register order.
#include "dense_variants.cuh"

namespace tileskip::tune {

void addLanesVariants(std::vector<Variant>& into) {
  addMultistage<128, 128, 8, 64, 64, 4, 4, 128, 3, 1, 4, 2>(
      into,
      "CUTLASS SIMT lanes: 4x4 fragments strided across the warp tile, 4x8 lanes, pairs "
      "interleaved; within +-2 % of t8x4 (both conflict-free)");
  addMultistage<128, 128, 8, 64, 64, 4, 4, 128, 3, 1, 4, 1>(
      into, "4x4 fragments, 4x8 lanes, no interleave: isolates the interleave; within 1 %");
  addMultistage<128, 128, 8, 64, 64, 4, 4, 128, 3, 1, 8, 2>(
      into, "4x4 fragments, 8x4 lanes interleaved: 8 A + 16 B values per depth; within +-2 %");
  addMultistage<128, 128, 8, 64, 64, 8, 8, 128, 3, 1, 8, 1>(
      into, "8x8 fragments, 8x4 lanes: one fragment per lane per depth along M, two along N");
}

}  // namespace tileskip::tune
