#version 450
#extension GL_GOOGLE_include_directive : require
// K28 joint-8x32: the joint skip with the A-pattern at 8 rows, four times finer than K29. A
// 64 x 64 warp tile now holds eight A-pattern tiles, so one byte per warp would no longer be
// uniform. Instead the warp walks its tile in sub-tiles of exactly 8 rows (TM = 2: 4 lane rows x
// 2 rows, WSUBM = 8): while it works on sub-tile wm all its invocations are in the same 8-row
// pattern tile and read the same byte, so each check stays uniform. A lane's two rows of A are
// one 64-bit shared read (TILESKIP_A_IN_PAIRS), as in the CUDA twin.
#define TILESKIP_STAGES 2u
#define TILESKIP_A_IN_PAIRS
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_pipeline.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
