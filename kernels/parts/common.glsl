// Shared by every tileskip compute shader: the tile shape (specialization constants set from
// core/model/catalogue.hpp, so one SPIR-V module serves any shape), the problem (push constants, so one
// pipeline serves any size), the buffers, bounds-checked loads and stores (any M, N, K >= 1) and
// the skip patterns.
#ifndef TILESKIP_PART_COMMON
#define TILESKIP_PART_COMMON
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_control_flow_attributes : require
#include "spec_ids.h"

// ---- Tile shape. The defaults only let a file compile on its own; the backend always sets them.
layout(constant_id = TILESKIP_SPEC_BM) const uint BM = 64;              // rows of C per workgroup
layout(constant_id = TILESKIP_SPEC_BN) const uint BN = 64;              // columns of C per workgroup
layout(constant_id = TILESKIP_SPEC_BK) const uint BK = 8;               // K-depth staged in shared memory per step
layout(constant_id = TILESKIP_SPEC_WM) const uint WM = 32;              // rows of C per warp (32 invocations)
layout(constant_id = TILESKIP_SPEC_WN) const uint WN = 32;              // columns of C per warp
layout(constant_id = TILESKIP_SPEC_TM) const uint TM = 4;               // rows per invocation (per warp sub-tile)
layout(constant_id = TILESKIP_SPEC_TN) const uint TN = 4;               // columns per invocation (per warp sub-tile)
layout(constant_id = TILESKIP_SPEC_A_GRANULARITY) const uint A_GRANULARITY = 0;       // rows per A-pattern tile, 0: A not inspected
layout(constant_id = TILESKIP_SPEC_B_GRANULARITY) const uint B_GRANULARITY = 0;       // columns per B-pattern tile, 0: B not inspected
layout(constant_id = TILESKIP_SPEC_LANE_COLS) const uint LANE_COLS = 4; // warp lane grid (core/model/tile_layout.hpp)

const uint K_BLOCK = 8;  // K indices per pattern byte
const bool USES_A_PATTERN = A_GRANULARITY > 0;
const bool USES_B_PATTERN = B_GRANULARITY > 0;
// Divisors that stay valid when a pattern is not used (the branches that divide are never taken).
const uint A_TILE_ROWS = A_GRANULARITY > 0u ? A_GRANULARITY : 1u;
const uint B_TILE_COLS = B_GRANULARITY > 0u ? B_GRANULARITY : 1u;

// ---- The problem: C[M x N] = A[M x K] . B[K x N], row-major with leading dimensions.
layout(push_constant) uniform Problem {
  uint M, N, K;
  uint lda, ldb, ldc;
  uvec2 groupOffset;  // a dispatch larger than maxComputeWorkGroupCount is split into several
  // The persistent kernels' block tiles of this dispatch, first and count (block_skip.glsl).
  uvec2 tileRange;
} problem;

// The pattern builders write the patterns and pick their own workgroup shape; kernels read them.
#ifdef TILESKIP_PATTERN_BUILDER
#define TILESKIP_PATTERN_ACCESS
#else
#define TILESKIP_PATTERN_ACCESS readonly
layout(local_size_x_id = TILESKIP_SPEC_WORKGROUP_SIZE) in;
const uint THREADS = gl_WorkGroupSize.x;
#endif

// A, B and C are three buffers (the backend binds nothing twice), so they are `restrict`, as the
// CUDA twins' __restrict__ pointers: the compiler need not order the loads of A and B around the
// stores of C. The scalar and vector views of one matrix alias, harmlessly: A and B are only
// read, and an invocation writes each element of C through one view only.
// A and B are not declared readonly, though no shader writes them: NVIDIA's driver reads a
// readonly buffer through its read-only data path and then schedules the K loop's barrier after
// every FMA of the K-tile, where the loops put it before the last depth's (K12 at 4096^3 on an
// H200: 3.28 ms readonly, 3.11 plain; lab/33-glsl-k-loop). The CUDA twins read through
// coherent loads for the same reason (common.cuh's loadGlobalQuadInOrder).
layout(set = 0, binding = 0, std430) restrict buffer MatrixA { float A[]; };
layout(set = 0, binding = 0, std430) restrict buffer MatrixA4 { vec4 A4[]; };
layout(set = 0, binding = 1, std430) restrict buffer MatrixB { float B[]; };
layout(set = 0, binding = 1, std430) restrict buffer MatrixB4 { vec4 B4[]; };
layout(set = 0, binding = 2, std430) restrict writeonly buffer MatrixC { float C[]; };
layout(set = 0, binding = 2, std430) restrict writeonly buffer MatrixC4 { vec4 C4[]; };
// Patterns, one uint per (tile, 4 K-blocks): bit j of word w of a tile is K index 32·w + j, so
// byte b of the word is K-block 4·w + b exactly as core/model/pattern.hpp defines the bytes. Each tile
// starts on a word; the backend strips that padding when it downloads a pattern.
layout(set = 0, binding = 3, std430) TILESKIP_PATTERN_ACCESS buffer PatternA { uint aPattern[]; };
layout(set = 0, binding = 4, std430) TILESKIP_PATTERN_ACCESS buffer PatternB { uint bPattern[]; };

// (column block, row block) of this workgroup.
uvec2 blockCoord() { return gl_WorkGroupID.xy + problem.groupOffset; }

// The same block tiles in groups of `groupRows` row tiles, column by column inside a group (K12;
// the CUDA twins' groupedBlockTile): workgroups numbered one after another, which run together,
// then read a few row panels of A and a few column panels of B instead of one row panel of A and
// every column panel of B, so more of it is still in the cache. groupRows = 1 is blockCoord().
uvec2 groupedBlockCoord(uint groupRows) {
  uvec2 block = blockCoord();
  uint colTiles = (problem.N + BN - 1u) / BN, rowTiles = (problem.M + BM - 1u) / BM;
  uint index = block.y * colTiles + block.x;
  uint group = index / (groupRows * colTiles), inGroup = index % (groupRows * colTiles);
  uint firstRow = group * groupRows;
  uint rows = min(groupRows, rowTiles - firstRow);
  return uvec2(inGroup / rows, firstRow + inGroup % rows);
}

// ---- Global loads, zero outside the matrix so partial tiles and K-blocks add nothing.
float loadA(uint row, uint col) { return row < problem.M && col < problem.K ? A[row * problem.lda + col] : 0.0; }
float loadB(uint row, uint col) { return row < problem.K && col < problem.N ? B[row * problem.ldb + col] : 0.0; }

// Four consecutive elements of a row: one 128-bit load where the row holds them all and they are
// 16-byte aligned, else element by element (ragged edges, K or N not a multiple of 4).
vec4 loadA4(uint row, uint col) {
  if (row >= problem.M) return vec4(0.0);
  uint index = row * problem.lda + col;
  if (col + 3u < problem.K && (index & 3u) == 0u) return A4[index >> 2];
  return vec4(loadA(row, col), loadA(row, col + 1u), loadA(row, col + 2u), loadA(row, col + 3u));
}

vec4 loadB4(uint row, uint col) {
  if (row >= problem.K) return vec4(0.0);
  uint index = row * problem.ldb + col;
  if (col + 3u < problem.N && (index & 3u) == 0u) return B4[index >> 2];
  return vec4(loadB(row, col), loadB(row, col + 1u), loadB(row, col + 2u), loadB(row, col + 3u));
}

// Whether every row of A (of B) can be read as vec4s: 16-byte aligned rows holding whole vectors.
// The pipelined kernels test it once and then read a vector of a row that holds it directly.
bool aRowsAreVectorAligned() { return ((problem.lda | problem.K) & 3u) == 0u; }
bool bRowsAreVectorAligned() { return ((problem.ldb | problem.N) & 3u) == 0u; }

// The length of a row of A transposed, the compaction kernels' copy of A (K rows of M values):
// M padded with zeros to whole groups of TRANSPOSED_ROW_ALIGN values, so every row starts on a
// vector boundary (core/model/catalogue.hpp's transposedRowLength, whose comment says why).
const uint TRANSPOSED_ROW_ALIGN = 8u;
uint transposedRowLength() { return (problem.M + TRANSPOSED_ROW_ALIGN - 1u) / TRANSPOSED_ROW_ALIGN * TRANSPOSED_ROW_ALIGN; }

// Every kernel stores C through these two. A test build (TILESKIP_TEST_LANE_PROBE, embedded as
// testing_lanes_<stem>) stores the invocation's index instead of the product, so a test reads
// off which invocation owns each output (LaneMap.* in tests/test_vulkan.cpp).
void storeC(uint row, uint col, float value) {
#ifdef TILESKIP_TEST_LANE_PROBE
  value = float(gl_LocalInvocationIndex);
#endif
  if (row < problem.M && col < problem.N) C[row * problem.ldc + col] = value;
}

void storeC4(uint row, uint col, vec4 value) {
#ifdef TILESKIP_TEST_LANE_PROBE
  value = vec4(float(gl_LocalInvocationIndex));
#endif
  if (row >= problem.M) return;
  uint index = row * problem.ldc + col;
  if (col + 3u < problem.N && (index & 3u) == 0u) {
    C4[index >> 2] = value;
    return;
  }
  for (uint j = 0u; j < 4u; ++j) storeC(row, col + j, value[j]);
}

// ---- Skip patterns.
uint patternWordsPerTile() { return (problem.K + 31u) / 32u; }

// Bits of the K-indices [kTile, kTile + BK) of a pattern word: a stage of BK = 8, 16 or 32
// K-indices never straddles a word.
const uint STAGE_MASK = BK >= 32u ? 0xFFFFFFFFu : (1u << BK) - 1u;
uint stageBits(uint word, uint kTile) { return (word >> (kTile & 31u)) & STAGE_MASK; }

// OR of the A-pattern words of the tiles that rows [firstRow, firstRow + rows) touch; 0 when
// they lie below M. Every invocation that asks about the same rows gets the same value.
uint aWordOverRows(uint firstRow, uint rows, uint word) {
  if (firstRow >= problem.M) return 0u;
  uint lastTile = (min(firstRow + rows, problem.M) - 1u) / A_TILE_ROWS;
  uint bits = 0u;
  for (uint tile = firstRow / A_TILE_ROWS; tile <= lastTile; ++tile) bits |= aPattern[tile * patternWordsPerTile() + word];
  return bits;
}

uint bWordOverCols(uint firstCol, uint cols, uint word) {
  if (firstCol >= problem.N) return 0u;
  uint lastTile = (min(firstCol + cols, problem.N) - 1u) / B_TILE_COLS;
  uint bits = 0u;
  for (uint tile = firstCol / B_TILE_COLS; tile <= lastTile; ++tile) bits |= bPattern[tile * patternWordsPerTile() + word];
  return bits;
}

const uint ALL_K_BLOCKS = 0xFFFFFFFFu;  // a dense kernel loads every K-block of a step

#endif  // TILESKIP_PART_COMMON
