// cp.async stages at 128 x 128 x 8, and the ablations of the multistage candidate's other changes.
#include "dense_variants.cuh"

namespace tileskip::tune {

void addStagesVariants(std::vector<Variant>& into) {
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 2>(
      into,
      "cp.async with 2 stages: one K-tile in flight, like K11 but without staging registers or "
      "scalar STS; close to ms3 at 4096 (L2 hits), behind it at 8192");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 4>(
      into, "4 stages: more latency tolerance, 33 KB/block still fits 2 blocks/SM; within 1 % of ms3");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 1, 4, 1, 8, false>(
      into, "ms3 with K11's barrier order (ablation): 2-4 % slower than ms3 if the tile-start LDS latency matters");
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3, 1, 4, 1, 1>(
      into, "ms3 in plain row-major block order (ablation): within 1 % at 2048/4096, up to 3 % slower at 8192");
}

}  // namespace tileskip::tune
