#version 450
#extension GL_GOOGLE_include_directive : require
// S5 joint-64x32: skip by a_pat & b_pat, the joint pattern. A rank-1 update k can be skipped
// when column k of the sub-tile's A rows or row k of its B columns is zero, which clears more
// than either pattern alone. A is kept per the whole warp tile's rows (aRowGranularity = WM), B
// per one sub-tile's columns: each sub-tile reads one byte of each and the skip stays uniform.
// The coarse A tiles rarely clear a whole K-block; S6 and S7 refine them.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
