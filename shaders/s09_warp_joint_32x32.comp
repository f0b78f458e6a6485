#version 450
#extension GL_GOOGLE_include_directive : require
// S9 warp-joint-32x32: S8's one-warp workgroup with the patterns at one warp sub-tile each, so
// zeros narrower than the block still skip: the workgroup loads a K-block when any of its
// sub-tiles' pattern tile pairs needs it, and each sub-tile skips the rank-1 updates its own
// bytes clear.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
