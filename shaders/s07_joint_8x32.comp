#version 450
#extension GL_GOOGLE_include_directive : require
// S7 joint-8x32: the joint skip with the A-pattern finer than S6's. A warp tile now holds
// several A-pattern tiles along M, so one byte per warp would no longer be uniform. Instead the
// catalogue gives it TM small enough that a sub-tile (4 lane rows of TM rows) is exactly one
// A-pattern tile: while the warp works on sub-tile wm all its invocations are in the same
// pattern tile and read the same byte, so each check stays uniform. A lane's rows of A are one
// 64-bit shared read (TILESKIP_A_IN_PAIRS), as in the CUDA twin.
#define TILESKIP_STAGES 2u
#define TILESKIP_A_IN_PAIRS
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
