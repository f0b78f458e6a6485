// The specialization constant ids of the GLSL twins, the one list both sides read: the GLSL parts
// declare `layout(constant_id = TILESKIP_SPEC_...)` and the Vulkan backend sets each value by the
// same id (backends/vulkan/specialization.hpp's SpecId). Only #defines, so that it is read as GLSL
// and as C++ alike.
#ifndef TILESKIP_SPEC_IDS
#define TILESKIP_SPEC_IDS

// The tile (the catalogue row's TileShape) and the workgroup size (parts/common.glsl).
#define TILESKIP_SPEC_BM 0
#define TILESKIP_SPEC_BN 1
#define TILESKIP_SPEC_BK 2
#define TILESKIP_SPEC_WM 3
#define TILESKIP_SPEC_WN 4
#define TILESKIP_SPEC_TM 5
#define TILESKIP_SPEC_TN 6
#define TILESKIP_SPEC_WORKGROUP_SIZE 7
// The pattern tiles and the warp's lane grid (parts/common.glsl).
#define TILESKIP_SPEC_A_GRANULARITY 8
#define TILESKIP_SPEC_B_GRANULARITY 9
#define TILESKIP_SPEC_LANE_COLS 10
// A persistent kernel's K-block list (parts/block_skip.glsl).
#define TILESKIP_SPEC_K_BLOCK_LIST_LENGTH 11
// The pipelined kernels' tuning switches (parts/warptile.glsl, parts/pipeline.glsl).
#define TILESKIP_SPEC_PREFETCH_FRAGMENTS 12
#define TILESKIP_SPEC_EXPLICIT_FMA 13
#define TILESKIP_SPEC_STORE_BEFORE_COMPUTE 14
#define TILESKIP_SPEC_FETCH_EVERY_STEP 15
// The tensor-core kernels' stage ring (parts/ring.glsl).
#define TILESKIP_SPEC_RING_STAGES 16
// The fp16 converter's choice: A transposed, for the compaction kernels (to_half.comp).
#define TILESKIP_SPEC_TRANSPOSE_A 17
#define TILESKIP_SPEC_COUNT 18

#endif
