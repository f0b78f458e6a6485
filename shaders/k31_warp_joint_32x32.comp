#version 450
#extension GL_GOOGLE_include_directive : require
// K31 warp-joint-32x32: K30's one-warp workgroup with the patterns at 32 rows and 32 columns, so
// zeros half as wide still skip: the workgroup loads a K-block when any of its four 32 x 32
// pattern tile pairs needs it, and each of the warp's sub-tiles (one pattern tile pair each)
// skips the rank-1 updates its own bytes clear.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_pipeline.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
