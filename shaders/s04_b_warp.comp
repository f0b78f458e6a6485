#version 450
#extension GL_GOOGLE_include_directive : require
// S4 b-warp: the B side of S2. The B-pattern is kept per the columns of one warp sub-tile
// (bColGranularity = 8·TN), so every invocation of a warp reads the same byte and the skip along
// N is uniform, where S3's per-invocation skip diverged.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
