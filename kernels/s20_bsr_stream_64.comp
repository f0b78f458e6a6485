#version 450
#extension GL_GOOGLE_include_directive : require
// S20 bsr-stream-64: a packed A times a few columns of B. With a handful of tokens (decode), a
// weight's bytes decide the time, not its products: S19 stages every kept block in shared memory
// for a 256-column tile that is mostly empty, and gives the device one workgroup per block row,
// far fewer than it can run. Here the kept blocks are split into units of one block row's
// consecutive blocks, about the same number each (BlockStreamPlan), a workgroup per unit and column
// tile, so the device runs them all at once and reads each kept block once. Nothing of A is
// staged: an invocation owns TM rows of the block row (a row strip) and reads its rows of each kept
// block a K-block at a time straight into registers, and meets there the rows of B the block
// multiplies, which the workgroup stages in shared memory (two stages: the next kept block's while
// this one's are read). A block row split over several units leaves each unit's partial tile in a
// slot; the last unit to finish sums the slots in the units' order, so C does not depend on which
// ran first. The CUDA twin is s20_bsr_stream_64.cuh.
#include "parts/packed.glsl"

const uint ROW_THREADS = BM / TM;
const uint STAGED_PASSES = BK * BN / (4u * THREADS);  // vec4s of B's rows per invocation and step

shared vec4 stagedB[2u * BK * BN / 4u];
shared uint lastUnit;

uint colTiles, colBase, columnsAt;
uint rowStrip, colStrip;

// Kept block `kept`'s rows of B (BK of them from its block column, BN columns from colBase) into
// stage `stage`: zeros past K and N.
void stageB(uint kept, uint stage) {
  uint kBase = uint(packedIndex[columnsAt + kept]) * BK;
  const uint QUADS_PER_ROW = BN / 4u;
  [[unroll]] for (uint pass = 0u; pass < STAGED_PASSES; ++pass) {
    uint quad = gl_LocalInvocationIndex + pass * THREADS, k = quad / QUADS_PER_ROW, col = (quad % QUADS_PER_ROW) * 4u;
    stagedB[stage * (BK * BN / 4u) + quad] = loadB4(kBase + k, colBase + col);
  }
}

void main() {
  colTiles = (problem.N + BN - 1u) / BN;
  uvec2 group = blockCoord();
  uint unit = group.y;
  colBase = group.x * BN;
  columnsAt = packedColumnsStart(BM);
  rowStrip = gl_LocalInvocationIndex % ROW_THREADS;
  colStrip = (gl_LocalInvocationIndex / ROW_THREADS) * TN;
  uint at = unit * STREAM_WORDS_PER_UNIT;
  uint blockRow = uint(streamUnits[at]), firstBlock = uint(streamUnits[at + 1u]), keptBlocks = uint(streamUnits[at + 2u]);
  int slot = streamUnits[at + 3u];
  uint rowFirstSlot = uint(max(streamUnits[at + 4u], 0)), rowUnits = uint(streamUnits[at + 5u]);
  float acc[TM * TN];
  [[unroll]] for (uint i = 0u; i < TM * TN; ++i) acc[i] = 0.0;

  if (keptBlocks > 0u) stageB(firstBlock, 0u);
  for (uint step = 0u; step < keptBlocks; ++step) {
    uint kept = firstBlock + step, stage = step % 2u;
    barrier();  // this stage is written; the other one's readers are done
    if (step + 1u < keptBlocks) stageB(kept + 1u, 1u - stage);  // lands while this block is multiplied
    uint block = kept * BM * BK;
    for (uint kb = 0u; kb < BK; kb += K_BLOCK) {
      // This invocation's rows of the block at K-block kb: 8 values each, two vec4s.
      vec4 a[TM * 2u];
      [[unroll]] for (uint i = 0u; i < TM; ++i) {
        uint from = (block + (rowStrip + ROW_THREADS * i) * BK + kb) / 4u;
        a[2u * i] = A4[from];
        a[2u * i + 1u] = A4[from + 1u];
      }
      [[unroll]] for (uint j = 0u; j < K_BLOCK; ++j) {
        [[unroll]] for (uint c = 0u; c < TN; c += 4u) {
          vec4 b = stagedB[stage * (BK * BN / 4u) + ((kb + j) * BN + colStrip + c) / 4u];
          [[unroll]] for (uint i = 0u; i < TM; ++i) {
            float value = a[2u * i + j / 4u][j % 4u];
            acc[i * TN + c] = fma(value, b.x, acc[i * TN + c]);
            acc[i * TN + c + 1u] = fma(value, b.y, acc[i * TN + c + 1u]);
            acc[i * TN + c + 2u] = fma(value, b.z, acc[i * TN + c + 2u]);
            acc[i * TN + c + 3u] = fma(value, b.w, acc[i * TN + c + 3u]);
          }
        }
      }
    }
  }

  uint rowBase = blockRow * BM;
  if (slot < 0) {  // the block row's only unit
    [[unroll]] for (uint i = 0u; i < TM; ++i) {
      [[unroll]] for (uint c = 0u; c < TN; ++c) storeC(rowBase + rowStrip + ROW_THREADS * i, colBase + colStrip + c, acc[i * TN + c]);
    }
    return;
  }
  // A block row in several units: this unit's partial tile into its slot; the last unit of the row
  // (and column tile) to arrive sums the slots in order.
  uint tile = group.x, mine = (uint(slot) * colTiles + tile) * BM * BN;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint c = 0u; c < TN; ++c) streamPartials[mine + (rowStrip + ROW_THREADS * i) * BN + colStrip + c] = acc[i * TN + c];
  }
  memoryBarrierBuffer();  // the partial is visible device-wide before the count says it is there
  barrier();
  uint counter = blockRow * colTiles + tile;
  if (gl_LocalInvocationIndex == 0u) lastUnit = atomicAdd(streamCounters[counter], 1u) == rowUnits - 1u ? 1u : 0u;
  barrier();
  if (lastUnit == 0u) return;
  memoryBarrierBuffer();
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    [[unroll]] for (uint c = 0u; c < TN; ++c) {
      uint within = (rowStrip + ROW_THREADS * i) * BN + colStrip + c;
      float sum = 0.0;
      for (uint u = 0u; u < rowUnits; ++u) sum += streamPartials[((rowFirstSlot + u) * colTiles + tile) * BM * BN + within];
      storeC(rowBase + rowStrip + ROW_THREADS * i, colBase + colStrip + c, sum);
    }
  }
  if (gl_LocalInvocationIndex == 0u) streamCounters[counter] = 0u;  // left at zero for the next dispatch
}
