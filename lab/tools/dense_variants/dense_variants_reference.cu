// The kernels the others are measured against besides cuBLAS: K11 and K12 as the catalogue runs
// them (static shared memory, 2 stages through registers; K11 128 x 128 x 8 with 128 threads,
// K12 128 x 256 x 8 with 256; warp 64 x 64, t8x4) and the multistage candidate as
// multistage.cuh instantiates it by default.
#include "dense_variants.cuh"

namespace tileskip::tune {

void addReferenceVariants(std::vector<Variant>& into) {
  addVariant(into, "k11 pipelined 128x128x8 w64x64 t8x4 l4x8 (catalogue)",
             "the reference: 0.82-0.86 of cuBLAS on the H200 (lab/02-tile-shape-search, lab/03-dense-bound)",
             cuda::pipelined<128, 128, 8, 64, 64, 8, 4, 128>, 128, 128, 128, 0);
  addVariant(into, "k12 hoisted 128x256x8 w64x64 t8x4 l4x8 256thr (catalogue)",
             "reg2 128x256x8 256thr written as a catalogue kernel (K10's WarpTile, a plain K loop): "
             "within 1 % of reg2's 0.89 of cuBLAS",
             cuda::hoisted<128, 256, 8, 64, 64, 8, 4, 256>, 128, 256, 256, 0);
  addVariant(into, "k12 hoisted 128x128x8 w64x64 t8x4 l4x8 128thr",
             "K12's streamed loop at K11's block (128 x 128, four warps), the block the skipping kernels keep "
             "so 128-wide zeros stay block-aligned: between K11 (0.88) and K12 (0.98) of cuBLAS, nearer K12",
             cuda::hoisted<128, 128, 8, 64, 64, 8, 4, 128>, 128, 128, 128, 0);
  addMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3>(
      into,
      "multistage as its header's defaults: 3 cp.async stages, hoisted addresses, early barrier, "
      "groups of 8 row tiles; predicted 0.93-0.98 of cuBLAS (fewer non-FFMA instructions, "
      "no exposed LDS at the K-tile boundary, no staging registers)");
  addVariant(into, "ms3 128x128x8 w64x64 t8x4 l4x8 k9-warptile",
             "multistage's stages and addressing under K10's WarpTile and K11's barrier order (barrierAfter), "
             "as the skipping kernels would run on them: between k11 and ms3",
             cuda::warpTileMultistage<128, 128, 8, 64, 64, 8, 4, 128, 3>, 128, 128, 128,
             cuda::multistageSharedBytes<128, 128, 8, 3>());
}

}  // namespace tileskip::tune
