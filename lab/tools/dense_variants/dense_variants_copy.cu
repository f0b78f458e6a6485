// CUTLASS's copy schedule on K12's shape (copy_schedule.cuh; lab/11-auto-cutlass-anchor): cp.async
// stages whose copies are spread over the depths of the K-tile being multiplied.
#include "copy_schedule.cuh"
#include "dense_variants.cuh"

namespace tileskip::tune {

namespace {

template <int kStages, int kGroupRows = 8>
void addLeanCopy(std::vector<Variant>& into, const std::string& prediction) {
  addVariant(into,
             "lean" + std::to_string(kStages) + " 128x256x8 w64x64 t8x4 l4x8 256thr" +
                 (kGroupRows != 8 ? " g" + std::to_string(kGroupRows) : std::string()),
             prediction, cuda::leanCopy<128, 256, 8, 64, 64, 8, 4, 256, kStages, kGroupRows>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, kStages>());
}

}  // namespace

void addCopyScheduleVariants(std::vector<Variant>& into) {
  addLeanCopy<3>(into, "CUTLASS's schedule with its lean copy state (two pointers, a row mask): no spill; >= 0.95 of cuBLAS");
  addLeanCopy<4>(into, "lean, 4 stages: within 1 % of lean3");
  addLeanCopy<3, 1>(into, "lean3 in row-major block order: the L2 hit rate's share");
  addVariant(into, "lean3 128x256x8 w64x64 t4x4 l4x8il2 256thr g1",
             "lean3 g1 on CUTLASS's warp level (4 x 4 lane fragments, lane pairs interleaved): CUTLASS's kernel "
             "but for its epilogue, so ~1.0 of cuBLAS if the warp level is what is left",
             cuda::leanCopy<128, 256, 8, 64, 64, 4, 4, 256, 3, 1, 4, 2>, 128, 256, 256,
             cuda::multistageSharedBytes<128, 256, 8, 3>());
}

}  // namespace tileskip::tune
