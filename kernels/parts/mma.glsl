// The tensor cores' step, the twin of kernels/parts/mma.cuh: a warp multiplies 16 x 16
// pieces of A and B, 16-bit in, fp32 accumulate. A warp is 32 consecutive invocations, as
// everywhere; here it must also be the subgroup (gl_ScopeSubgroup), which it is on NVIDIA.
//
// Two builds of one source:
//  - native (the product): GL_NV_cooperative_matrix 16 x 16 x 16 fp16 -> fp32, what NVIDIA's
//    Vulkan driver offers (docs/vulkan.md). The CUDA twin does one piece as two m16n8k16 MMAs.
//  - TILESKIP_MMA_EMULATION (test-only, for devices without cooperative matrices: lavapipe in
//    CI): the same calls, each lane holding its outputs in mma.cuh's fragment layout (rows
//    g and g + 8, columns 2t and 2t + 1 of each 16 x 8 half, g = lane / 4, t = lane % 4: the
//    catalogue's ThreadMapping::MmaTiles) and reading its products from the shared stages. It
//    checks everything the kernel does around the instruction: staging, indexing, the ring, the
//    edges. A lane probe (TILESKIP_TEST_LANE_PROBE) reads the lane map, which only the emulation
//    defines: a native cooperative matrix's lanes are the driver's.
// ring.glsl's own part: it includes this one after declaring what the pieces read, its M_PIECES,
// N_PIECES and WARPS and its shared stageA[] and stageB[] of 16-byte chunks (uvec4, CHUNK fp16
// values each); a kernel includes the ring.
#ifndef TILESKIP_PART_MMA
#define TILESKIP_PART_MMA
#if defined(TILESKIP_TEST_LANE_PROBE) && !defined(TILESKIP_MMA_EMULATION)
#define TILESKIP_MMA_EMULATION
#endif
#ifndef TILESKIP_MMA_EMULATION
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#endif

const uint MMA_PIECE = 16u;  // rows, columns and depth of one piece

#ifndef TILESKIP_MMA_EMULATION

fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mmaA[M_PIECES];
fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mmaB[N_PIECES];
fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> mmaAcc[M_PIECES * N_PIECES];
// C leaves through shared memory, one 16 x 16 fp32 piece per warp at a time: a native matrix's
// elements sit in lanes only the driver knows, so C is written from there, bounds-checked. The
// pieces pass through the ring's A stages (stageA, four floats a chunk), which are idle once the
// main loop's last barrier has passed: a scratch of its own would add 8 KiB to a workgroup's
// shared memory, and NVIDIA's driver then runs one K13 workgroup per SM instead of two
// (lab/25-vulkan-k13-driver). They always hold a piece per warp: every invocation copies at least
// one 16-byte chunk of A into each stage (shapeProblem, core/model/shape_rules.hpp), and a ring has at
// least two stages, so a warp's share of them is at least 32 x 16 x 2 bytes.
const uint MMA_PIECE_CHUNKS = MMA_PIECE * MMA_PIECE / 4u;

void mmaZeroAccumulators() {
  [[unroll]] for (uint p = 0u; p < M_PIECES * N_PIECES; ++p) mmaAcc[p] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
}

// Piece i of A: 16 rows from stage element `first` on, rows `stride` elements apart (both whole
// chunks: a load from an array of chunks counts its offset and stride in chunks); K-major where
// the ring stores A so (A_BY_K): 16 K-rows of the piece's 16 rows, `stride` apart.
void mmaLoadA(uint i, uint first, uint stride) { coopMatLoadNV(mmaA[i], stageA, first / CHUNK, stride / CHUNK, A_BY_K); }
// Piece j of B: 16 K-rows from `first` on, `stride` apart.
void mmaLoadB(uint j, uint first, uint stride) { coopMatLoadNV(mmaB[j], stageB, first / CHUNK, stride / CHUNK, false); }

void mmaMultiplyAdd(uint i, uint j) { mmaAcc[i * N_PIECES + j] = coopMatMulAddNV(mmaA[i], mmaB[j], mmaAcc[i * N_PIECES + j]); }

// Piece (i, j) of the accumulators to C at (row, col), bounds-checked; every lane of the warp calls it.
void mmaStore(uint i, uint j, uint row, uint col) {
  uint warp = gl_LocalInvocationIndex / 32u, lane = gl_LocalInvocationIndex % 32u;
  uint base = warp * MMA_PIECE_CHUNKS;  // in chunks; a store into an array of chunks counts in chunks
  coopMatStoreNV(mmaAcc[i * N_PIECES + j], stageA, base, MMA_PIECE / 4u, false);
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  [[unroll]] for (uint e = lane; e < MMA_PIECE * MMA_PIECE; e += 32u) {
    storeC(row + e / MMA_PIECE, col + e % MMA_PIECE, uintBitsToFloat(stageA[base + e / 4u][e % 4u]));
  }
  // The next piece overwrites this warp's place only after every lane has read this one.
  subgroupBarrier();
}

#else  // TILESKIP_MMA_EMULATION

// The lane's 8 outputs of each piece: [0..3] the left 16 x 8 half, [4..7] the right, each as
// mma.cuh's d: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
float mmaAcc[M_PIECES * N_PIECES * 8u];
// Where the pieces of A and B were "loaded" from: the emulation reads the stage itself.
uint mmaAFirst[M_PIECES], mmaAStride[M_PIECES], mmaBFirst[N_PIECES], mmaBStride[N_PIECES];

void mmaZeroAccumulators() {
  [[unroll]] for (uint e = 0u; e < M_PIECES * N_PIECES * 8u; ++e) mmaAcc[e] = 0.0;
}

void mmaLoadA(uint i, uint first, uint stride) {
  mmaAFirst[i] = first;
  mmaAStride[i] = stride;
}

void mmaLoadB(uint j, uint first, uint stride) {
  mmaBFirst[j] = first;
  mmaBStride[j] = stride;
}

// The fp16 value at element `e` (0..7) of a chunk.
float chunkValue(uvec4 chunk, uint e) { return float(unpackFloat2x16(chunk[e / 2u])[e % 2u]); }
float stageAValue(uint e) { return chunkValue(stageA[e / CHUNK], e % CHUNK); }
float stageBValue(uint e) { return chunkValue(stageB[e / CHUNK], e % CHUNK); }

// Output e (0..7) of this lane in a piece: its row and column there.
uint mmaRow(uint e) { return (gl_LocalInvocationIndex % 32u) / 4u + ((e & 2u) != 0u ? 8u : 0u); }
uint mmaCol(uint e) { return 2u * (gl_LocalInvocationIndex % 4u) + (e & 1u) + (e >= 4u ? 8u : 0u); }

void mmaMultiplyAdd(uint i, uint j) {
  [[unroll]] for (uint e = 0u; e < 8u; ++e) {
    // Products of two 16-bit values are exact in fp32; summed in K order onto the accumulator,
    // as the CPU emulation of the CUDA twin's MMA does (tests/cuda_emulation). Unrolled on
    // purpose: lavapipe leaves a loop after 65 535 iterations of it and those it nests, without a
    // word, so a loop here would end a long K's main loop early.
    float sum = mmaAcc[(i * N_PIECES + j) * 8u + e];
    [[unroll]] for (uint k = 0u; k < MMA_PIECE; ++k) {
      uint a = A_BY_K ? mmaAFirst[i] + k * mmaAStride[i] + mmaRow(e) : mmaAFirst[i] + mmaRow(e) * mmaAStride[i] + k;
      sum += stageAValue(a) * stageBValue(mmaBFirst[j] + k * mmaBStride[j] + mmaCol(e));
    }
    mmaAcc[(i * N_PIECES + j) * 8u + e] = sum;
  }
}

void mmaStore(uint i, uint j, uint row, uint col) {
  [[unroll]] for (uint e = 0u; e < 8u; ++e) storeC(row + mmaRow(e), col + mmaCol(e), mmaAcc[(i * N_PIECES + j) * 8u + e]);
}

#endif

#endif  // TILESKIP_PART_MMA
