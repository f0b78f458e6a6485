#version 450
#extension GL_GOOGLE_include_directive : require
// S6 joint-32x32: S5's joint skip with the A-pattern at the rows of one warp sub-tile instead
// of the whole warp tile. Smaller pattern tiles hold fewer non-zeros, so more joint bytes clear,
// and the sub-tiles of one warp skip apart from each other. Still one pattern tile pair per
// sub-tile: every invocation of a warp reads the same two bytes.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
