#version 450
#extension GL_GOOGLE_include_directive : require
// K12 hoisted: K11's double buffering with the loop's bookkeeping taken off the FMAs. Each
// invocation's global vector indices are computed once per block tile, so a K-tile's loads only
// add the K offset (interior tiles load with no bounds checks), and the barrier moves before the
// last depth's FMAs, so depth 0 of the next K-tile is read from shared memory while they run
// instead of every warp waiting for it at the top of each K-tile. The block grows to 128x256,
// eight 64x64 warps: each load and shared store of A feeds twice the FMAs. (lab/09-dense-variants.)
//
// A workgroup whose tiles lie inside the matrices runs a K loop with no bounds check: its loads
// add each K-tile's offset to indices fixed once (the last K-tile loaded again instead of a
// branch), and the two stages swap; edge workgroups run the same loop with bounds checks, as the
// CUDA twin (whose ptxas schedules such a loop as one block: lab/29-barrier-placement).
//
// Its staging (parts/hoisted.glsl) is the warp-uniform skipping kernels' too: they run the
// same K-tiles and barrier order over the K-blocks they list (parts/warp_skip.glsl's hoistedListLoop).
#include "parts/hoisted.glsl"

// Tiles in groups of 8 row tiles, as the CUDA twin's kHoistedGroupRows.
const uint GROUP_ROWS = 8u;

// The K-tile `index` into registers: an interior workgroup loads it unchecked at its K offset
// (past the last K-tile, the last again), the others at index * BK with bounds checks (zeros past
// K). The CUDA twin steps running pointers instead (fetchRunning); NVIDIA's Vulkan driver made the
// loop 1 % faster from the offsets, at both K12's tile and 128 x 128 (lab/37-vulkan-calibration).
void fetchTile(uint row0, uint col0, uint index, uint steps, bool interior) {
  if (interior) {
    fetchInteriorAt(min(index, steps - 1u) * BK);
  } else {
    fetchKTile(row0, col0, index * BK);
  }
}

// The K loop over a workgroup's K-tiles, the CUDA twin's hoistedKLoop: the body always stores
// the K-tile in flight and reads depth 0 of the next stage (past the last K-tile those move data
// nobody reads again), so it has no branch but the fetch's interior/edge choice, which is the
// same for every step and every invocation.
// The twin's loop turned by one depth: a step starts after the barrier, reading depth 0 while
// the previous K-tile's last depth is multiplied, and ends with the barrier. Where the twin's
// step ends with those reads and FMAs, NVIDIA's driver moved the reads after the FMAs, to the
// end of the step, and the next step's first FMAs waited on them (their consumers lay across the
// loop's back edge); here they lie in the same step (3.06 against 2.92 ms at 4096^3 on an H100,
// lab/33-glsl-k-loop).
void hoistedKLoop(uint row0, uint col0, uint steps, bool interior) {
  fetchTile(row0, col0, 0u, steps, interior);
  storeKTile(0u);
  barrier();
  fetchTile(row0, col0, 1u, steps, interior);  // in flight during the first K-tile's FMAs
  uint readStage = 0u, writeStage = 1u;
  fragmentsFromStage(readStage);
  zeroFragments((BK - 1u) & 1u);  // the first step's "previous last depth" adds nothing
  for (uint step = 0u; step < steps; ++step) {
    loadFragments(0u, 0u);
    multiplyFragments((BK - 1u) & 1u);  // the previous K-tile's last depth: covers depth 0's shared reads
    // K11's inner loop: depth k + 1's fragments are read while depth k's FMAs run.
    [[unroll]] for (uint k = 0u; k + 1u < BK; ++k) {
      loadFragments(k + 1u, (k + 1u) & 1u);
      multiplyFragments(k & 1u);
    }
    // Every read of this stage is done, so the barrier comes now, not after the last FMAs. The
    // other stage was last read before the previous barrier: the K-tile in flight goes there.
    storeKTile(writeStage);
    barrier();
    fetchTile(row0, col0, step + 2u, steps, interior);  // in flight during the next K-tile
    uint nowRead = writeStage;
    writeStage = readStage;
    readStage = nowRead;
    fragmentsFromStage(readStage);
  }
  multiplyFragments((BK - 1u) & 1u);  // the last K-tile's last depth
}

void main() {
  uvec2 block = groupedBlockCoord(GROUP_ROWS);
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  placeKTile(row0, col0);
  uint steps = (problem.K + BK - 1u) / BK;  // K >= 1: at least one
  if (interiorKTiles()) {
    hoistedKLoop(row0, col0, steps, true);
  } else {
    hoistedKLoop(row0, col0, steps, false);
  }
  storeWarpTile(row0, col0);
}
