#version 450
#extension GL_GOOGLE_include_directive : require
// S8 warp-joint-64x64: S5's joint skip in a workgroup of one warp. A workgroup of several warps
// must load a K-block whenever any of its pattern bands needs it, so zeros that come in blocks
// the size of a warp tile leave it little to skip loading; a block tile that is one warp tile
// gathers its own K-block list and skips exactly those. The warp keeps K11's warp tile (and its
// thread tile), so per FMA it reads as much shared memory as K11; what it pays is more global
// loads per FMA, since no other warp shares its tiles.
#define TILESKIP_STAGES 2u
#include "tileskip_common.glsl"
#include "tileskip_stage.glsl"
#include "tileskip_warptile.glsl"
#include "tileskip_hoisted.glsl"
#include "tileskip_skip.glsl"

void main() { warpTileSkipGemm(); }
