// A packed block-sparse A as the bsr kernels read it, the twin of packed.cuh: its kept blocks,
// block x block values each, row-major, one after another in block-row order, bound at binding 0
// where a dense kernel finds A, and the index at binding 3, where a skipping kernel finds its
// A-pattern (a bsr kernel builds none): the row pointers (block rows + 1 of them), then the column
// indices (one per kept block), as core/model/block_sparse.hpp's packedIndexWords() lays them out.
// A workgroup of one block row's height multiplies that row's kept blocks and nothing else, through
// K12's stages (packed_stage.glsl) or streamed into registers (S20).
#ifndef TILESKIP_PART_PACKED
#define TILESKIP_PART_PACKED
#include "common.glsl"

layout(set = 0, binding = 3, std430) restrict readonly buffer PackedIndex { int packedIndex[]; };

// The streaming kernels' schedule (packed.cuh's BlockStream): the plan's units, 6 words each
// (core/model/block_sparse.hpp's BlockStreamPlan), at binding 4, where a skipping kernel finds its
// B-pattern; a counter per block row and column tile at binding 5 (zero between dispatches); the
// split rows' partial tiles at binding 6.
layout(set = 0, binding = 4, std430) restrict readonly buffer StreamUnits { int streamUnits[]; };
layout(set = 0, binding = 5, std430) restrict coherent buffer StreamCounters { uint streamCounters[]; };
layout(set = 0, binding = 6, std430) restrict coherent buffer StreamPartials { float streamPartials[]; };
const uint STREAM_WORDS_PER_UNIT = 6u;

// Where the column indices start in the index: after the row pointers of `block`-row block rows.
uint packedColumnsStart(uint block) { return (problem.M + block - 1u) / block + 1u; }

#endif  // TILESKIP_PART_PACKED
