// The fp32 compaction kernel's K-tiles of gathered columns, the twin of gathered_stage.cuh: K12's
// two stages (hoisted.glsl) fed from the workgroup's list of live K columns (gather.glsl), BK of
// them a K-tile in K order. Column k of A is row k of A transposed (K rows of transposedRowLength(),
// made in the preparation, binding 6) and pairs with row k of B: an invocation loads 4 consecutive
// values of either row as
// one vector, and A's go into the transposed stage (As[k][m]) as they are, with no transposing
// stores.
#ifndef TILESKIP_PART_GATHERED_STAGE
#define TILESKIP_PART_GATHERED_STAGE
#include "hoisted.glsl"
#include "gather.glsl"

layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixATransposed4 { vec4 AT4[]; };

// One gathered K-tile of A transposed (BK x BM) and of B (BK x BN) in registers between its global
// loads and its shared stores, loaded in passes fixed per invocation: it reads the same 4 rows of A
// (gatheredARow) at depths GA_DEPTHS_PER_PASS apart, and the same 4 columns of B (gatheredBCol) at
// depths GB_DEPTHS_PER_PASS apart; only the listed columns change from one K-tile to the next.
const uint GA_QUADS_PER_DEPTH = BM / 4u, GA_DEPTHS_PER_PASS = THREADS / GA_QUADS_PER_DEPTH;
const uint GA_FETCH_PASSES = BK / GA_DEPTHS_PER_PASS;
const uint GB_QUADS_PER_DEPTH = BN / 4u, GB_DEPTHS_PER_PASS = THREADS / GB_QUADS_PER_DEPTH;
const uint GB_FETCH_PASSES = BK / GB_DEPTHS_PER_PASS;

vec4 gatheredA[GA_FETCH_PASSES];
vec4 gatheredB[GB_FETCH_PASSES];
uint gatheredRow0, gatheredCol0, gatheredARowLength;  // gatheredARowLength: a row of AT, M padded to whole vectors
uint gatheredADepth, gatheredARow;  // this invocation's first depth of the K-tile and its first row of A (4 of them)
uint gatheredBDepth, gatheredBCol;  // this invocation's first depth and its first column of B (4 of them)
// The workgroup's rows lie inside AT's padded rows and its columns inside B, whose rows read as
// vectors: no load needs a check. The same for the whole workgroup, so no warp diverges on it.
bool gatheredInterior;

// The block tile at (row0, col0): this invocation's place in its K-tiles (GatheredKTile's constructor).
void placeGatheredKTile(uint row0, uint col0) {
  uint invocation = gl_LocalInvocationIndex;
  gatheredRow0 = row0;
  gatheredCol0 = col0;
  gatheredARowLength = transposedRowLength();
  gatheredADepth = invocation / GA_QUADS_PER_DEPTH;
  gatheredARow = (invocation % GA_QUADS_PER_DEPTH) * 4u;
  gatheredBDepth = invocation / GB_QUADS_PER_DEPTH;
  gatheredBCol = (invocation % GB_QUADS_PER_DEPTH) * 4u;
  gatheredInterior = row0 + BM <= gatheredARowLength && col0 + BN <= problem.N && bRowsAreVectorAligned();
}

// The K-tile `step` of the list, padded to whole K-tiles with -1 (gather.glsl's padToKTiles),
// which loads zeros. `interior`: the workgroup's rows and columns lie inside A and B and read as
// vectors (constant at each call, so the driver builds the loop twice, as K12's twin's: no check
// but the padding's in an interior one; the CUDA twin checks per operand in one loop, which ptxas
// keeps off the FMAs; here the two loops and the padded list took 12 % off,
// lab/58-fp32-compaction). storeGatheredKTile consumes the loads after the FMAs of the current K-tile.
void fetchGatheredKTile(uint step, bool interior) {
  [[unroll]] for (uint p = 0u; p < GA_FETCH_PASSES; ++p) {
    int k = liveColumns[step * BK + gatheredADepth + p * GA_DEPTHS_PER_PASS];
    // AT's rows are whole vectors (zeros past M), so a vector lies wholly inside one or past it.
    uint row = gatheredRow0 + gatheredARow;
    gatheredA[p] = k < 0 || (!interior && row >= gatheredARowLength) ? vec4(0.0) : AT4[(uint(k) * gatheredARowLength + row) / 4u];
  }
  [[unroll]] for (uint p = 0u; p < GB_FETCH_PASSES; ++p) {
    int k = liveColumns[step * BK + gatheredBDepth + p * GB_DEPTHS_PER_PASS];
    uint col = gatheredCol0 + gatheredBCol;
    if (interior) {
      gatheredB[p] = k < 0 ? vec4(0.0) : B4[(uint(k) * problem.ldb + col) / 4u];
    } else {
      gatheredB[p] = k < 0 || col >= problem.N ? vec4(0.0) : loadB4(uint(k), col);
    }
  }
}

// Writes the K-tile in flight into stage `stage`: A transposed as it came (As[k][m]), B row-major.
void storeGatheredKTile(uint stage) {
  [[unroll]] for (uint p = 0u; p < GA_FETCH_PASSES; ++p) {
    As[(stage * BK + gatheredADepth + p * GA_DEPTHS_PER_PASS) * A_ROW_ENTRIES + gatheredARow / A_ENTRY_FLOATS] = gatheredA[p];
  }
  [[unroll]] for (uint p = 0u; p < GB_FETCH_PASSES; ++p) {
    Bs[(stage * BK + gatheredBDepth + p * GB_DEPTHS_PER_PASS) * B_ROW_VECTORS + gatheredBCol / 4u] = gatheredB[p];
  }
}

// One pass's list of live columns (liveColumnCount of them) through K12's loop, BK to a K-tile,
// turned by one depth as k12_hoisted.comp's hoistedKLoop is (a step starts after the barrier; the
// CUDA twin runs hoisted.cuh's twoStageKLoop, lab/33-glsl-k-loop says why they differ). Past the
// last K-tile the fetch loads the last one again, which nothing reads.
void gatheredKLoop(bool interior) {
  padToKTiles(BK);
  barrier();  // the padding is read by other invocations' fetches
  uint steps = (liveColumnCount + BK - 1u) / BK;
  fetchGatheredKTile(0u, interior);
  storeGatheredKTile(0u);
  barrier();
  fetchGatheredKTile(min(1u, steps - 1u), interior);  // in flight during the first K-tile's FMAs
  uint readStage = 0u, writeStage = 1u;
  fragmentsFromStage(readStage);
  zeroFragments((BK - 1u) & 1u);  // the first step's "previous last depth" adds nothing
  for (uint step = 0u; step < steps; ++step) {
    loadFragments(0u, 0u);
    multiplyFragments((BK - 1u) & 1u);  // the previous K-tile's last depth: covers depth 0's shared reads
    [[unroll]] for (uint k = 0u; k + 1u < BK; ++k) {
      loadFragments(k + 1u, (k + 1u) & 1u);
      multiplyFragments(k & 1u);
    }
    storeGatheredKTile(writeStage);
    barrier();
    fetchGatheredKTile(min(step + 2u, steps - 1u), interior);  // in flight during the next K-tile
    uint nowRead = writeStage;
    writeStage = readStage;
    readStage = nowRead;
    fragmentsFromStage(readStage);
  }
  multiplyFragments((BK - 1u) & 1u);  // the last K-tile's last depth
}

#endif  // TILESKIP_PART_GATHERED_STAGE
