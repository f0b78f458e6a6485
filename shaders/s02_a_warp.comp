#version 450
#extension GL_GOOGLE_include_directive : require
// S2 a-warp: K10's warp tiling with the A-pattern at the rows of one warp sub-tile
// (aRowGranularity = 4·TM in the catalogue row; the backend checks the nesting,
// pipelineShapeProblem). While a warp works on a sub-tile all its invocations read the same
// pattern byte, so skipping a rank-1 update is a uniform branch at any subgroup size (no
// divergence, unlike S1), and a K-block that no warp of the workgroup needs is not even loaded.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
