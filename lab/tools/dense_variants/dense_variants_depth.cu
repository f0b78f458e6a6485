// BK = 16, launch bounds and block order at 128 x 128.
#include "dense_variants.cuh"

namespace tileskip::tune {

void addDepthVariants(std::vector<Variant>& into) {
  addMultistage<128, 128, 16, 64, 64, 8, 4, 128, 3>(
      into,
      "BK = 16: half the barriers and copy issues per FFMA, but twice the unrolled code (32 KB "
      "per K-tile body, instruction-cache misses); K11 lost 5 % with it; predicted -2 to +2 %");
  addMultistage<128, 128, 16, 64, 64, 8, 4, 128, 4>(
      into, "BK = 16, 4 stages (66 KB/block, 2 blocks/SM still fit): as above");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 2>(
      into, "__launch_bounds__(128, 2): cap 255 registers, same as min 1 unless ptxas chooses differently");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 1, 4, 1, 4>(
      into, "groups of 4 row tiles instead of 8; within 1 %");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 1, 4, 1, 16>(
      into, "groups of 16 row tiles instead of 8; within 1 %");
}

}  // namespace tileskip::tune
