// K12's staging of a K-tile and its K loop (the twin of hoisted.glsl): addresses hoisted out of the
// loop, loads in passes fixed per thread, the barrier before the last depth's FMAs. Shared by K12's
// own loop and the warp-uniform skipping kernels' loop over their K-block list (warp_skip.cuh).
#pragma once

#include "warptile.cuh"

namespace tileskip::cuda {


// The registers of one K-tile of A (BM x BK) and B (BK x BN) between its global loads and its
// shared stores, and those stores: loaded in passes whose addresses are fixed per thread, a thread
// reads the same 4 K-columns of A (aK) in rows kARowsPerPass apart, and the same 4 columns of B
// (bCol) in K-rows kBRowsPerPass apart. Where the K-tiles come from is the loader's: K12's from a
// dense A (HoistedKTile), the bsr kernels' from a packed one (packed.cuh).
template <int BM, int BN, int BK, int kThreads>
struct HoistedKTileStage {
  static constexpr int kAQuadsPerRow = BK / 4, kARowsPerPass = kThreads / kAQuadsPerRow;
  static constexpr int kAFetchPasses = BM / kARowsPerPass;
  static constexpr int kBQuadsPerRow = BN / 4, kBRowsPerPass = kThreads / kBQuadsPerRow;
  static constexpr int kBFetchPasses = BK / kBRowsPerPass;
  static_assert(BK % 4 == 0 && BN % 4 == 0, "the tiles are loaded as 128-bit quads");
  static_assert(kThreads % kAQuadsPerRow == 0 && BM % kARowsPerPass == 0, "the A tile splits into whole passes of rows");
  static_assert(kThreads % kBQuadsPerRow == 0 && BK % kBRowsPerPass == 0, "the B tile splits into whole passes of K-rows");

  int aRow, aK;   // this thread's first row and its K-column inside the A tile
  int bK, bCol;   // this thread's first K-row and its column inside the B tile
  float4 a[kAFetchPasses], b[kBFetchPasses];

  __device__ explicit HoistedKTileStage(int tid) {
    aRow = tid / kAQuadsPerRow;
    aK = (tid % kAQuadsPerRow) * 4;
    bK = tid / kBQuadsPerRow;
    bCol = (tid % kBQuadsPerRow) * 4;
  }

  // Writes the K-tile into a stage: A transposed (As[k][m], stride BM + kAPad), B row-major.
  __device__ void store(float* As, float* Bs) const {
#pragma unroll
    for (int p = 0; p < kAFetchPasses; ++p) {
      float* column = As + aK * transposedAStride<BM>() + aRow + p * kARowsPerPass;
      column[0 * transposedAStride<BM>()] = a[p].x;
      column[1 * transposedAStride<BM>()] = a[p].y;
      column[2 * transposedAStride<BM>()] = a[p].z;
      column[3 * transposedAStride<BM>()] = a[p].w;
    }
#pragma unroll
    for (int p = 0; p < kBFetchPasses; ++p) {
      *reinterpret_cast<float4*>(Bs + (bK + p * kBRowsPerPass) * BN + bCol) = b[p];
    }
  }
};

// One K-tile of a dense A (BM x BK) and B (BK x BN) through those registers. Only the K offset
// changes from one K-tile to the next.
template <int BM, int BN, int BK, int kThreads>
struct HoistedKTile : HoistedKTileStage<BM, BN, BK, kThreads> {
  using Stage = HoistedKTileStage<BM, BN, BK, kThreads>;
  using Stage::kAQuadsPerRow, Stage::kARowsPerPass, Stage::kAFetchPasses, Stage::kBQuadsPerRow, Stage::kBRowsPerPass,
      Stage::kBFetchPasses;
  using Stage::aRow, Stage::aK, Stage::bK, Stage::bCol, Stage::a, Stage::b;

  const float* A;
  const float* B;
  int M, N, K, rowBase, colBase;
  // Every row of the tile lies inside the matrix and reads as 128-bit vectors: with a full
  // K-tile, no load needs a check. The same for the whole block, so no warp diverges on it.
  bool interiorA, interiorB;
  // Where this thread's loads of the block's K-tile 0 start; a listed K-tile's lie a K offset on.
  const float* aStart;
  const float* bStart;
  // The running pointers of an interior block (interiorKTiles()): where the next fetchRunning() reads.
  const float* aNext;
  const float* bNext;

  __device__ HoistedKTile(const float* A_, const float* B_, int M_, int N_, int K_, const BlockTile<BM, BN>& block,
                          int tid)
      : Stage(tid), A(A_), B(B_), M(M_), N(N_), K(K_), rowBase(block.rowBase), colBase(block.colBase) {
    interiorA = rowBase + BM <= M && rowsAreVectorAligned(K);
    interiorB = colBase + BN <= N && rowsAreVectorAligned(N);
    aStart = A + static_cast<long long>(rowBase + aRow) * K + aK;
    bStart = B + static_cast<long long>(bK) * N + colBase + bCol;
    aNext = aStart;
    bNext = bStart;
  }

  // Every K-tile of this block is whole and inside both matrices: it may run fetchRunning().
  __device__ bool interiorKTiles() const { return interiorA && interiorB && K % BK == 0; }

  // An interior block's K-tile at the running pointers, then the pointers step to the next one
  // when `advance` (a select, not a branch: past the last K-tile they stay and reload it).
  __device__ void fetchRunning(bool advance) {
    const long long aPass = static_cast<long long>(kARowsPerPass) * K, bPass = static_cast<long long>(kBRowsPerPass) * N;
#pragma unroll
    for (int p = 0; p < kAFetchPasses; ++p) a[p] = loadGlobalQuadInOrder(aNext + p * aPass);
#pragma unroll
    for (int p = 0; p < kBFetchPasses; ++p) b[p] = loadGlobalQuadInOrder(bNext + p * bPass);
    aNext += advance ? BK : 0;
    bNext += advance ? static_cast<long long>(BK) * N : 0;
  }

  // An interior block's K-tile at kBase, unchecked: the skipping kernels' listed K-tiles, which
  // do not follow one another, so no pointer runs; one multiply-add per operand finds them.
  __device__ void fetchInteriorAt(int kBase) {
    const long long aPass = static_cast<long long>(kARowsPerPass) * K, bPass = static_cast<long long>(kBRowsPerPass) * N;
    const float* aFrom = aStart + kBase;
    const float* bFrom = bStart + static_cast<long long>(kBase) * N;
#pragma unroll
    for (int p = 0; p < kAFetchPasses; ++p) a[p] = loadGlobalQuadInOrder(aFrom + p * aPass);
#pragma unroll
    for (int p = 0; p < kBFetchPasses; ++p) b[p] = loadGlobalQuadInOrder(bFrom + p * bPass);
  }

  // Global loads of the K-tile at kBase; zeros past M, N or K. Nothing waits for them here:
  // store() consumes them after the FMAs of the current K-tile.
  __device__ void fetch(int kBase) {
    const bool fullK = kBase + BK <= K;
    if (interiorA && fullK) {
      const float* first = A + static_cast<long long>(rowBase + aRow) * K + kBase + aK;
#pragma unroll
      for (int p = 0; p < kAFetchPasses; ++p) {
        a[p] = *reinterpret_cast<const float4*>(first + static_cast<long long>(p) * kARowsPerPass * K);
      }
    } else {
#pragma unroll
      for (int p = 0; p < kAFetchPasses; ++p) {
        const int row = rowBase + aRow + p * kARowsPerPass, k = kBase + aK;
        a[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (row < M && k < K) a[p] = loadRowQuad(A + static_cast<long long>(row) * K, k, K, rowsAreVectorAligned(K));
      }
    }
    if (interiorB && fullK) {
      const float* first = B + static_cast<long long>(kBase + bK) * N + colBase + bCol;
#pragma unroll
      for (int p = 0; p < kBFetchPasses; ++p) {
        b[p] = *reinterpret_cast<const float4*>(first + static_cast<long long>(p) * kBRowsPerPass * N);
      }
    } else {
#pragma unroll
      for (int p = 0; p < kBFetchPasses; ++p) {
        const int k = kBase + bK + p * kBRowsPerPass, col = colBase + bCol;
        b[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (k < K && col < N) b[p] = loadRowQuad(B + static_cast<long long>(k) * N, col, N, rowsAreVectorAligned(N));
      }
    }
  }
};

// K10's warp tile with two sets of fragments that live across K-tiles: depth 0 of the next
// K-tile goes into set 0 while the last depth of this one is multiplied from set 1.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct HoistedWarpTile : WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads> {
  using Tile = WarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>;
  static constexpr int kRegM = Tile::WMITER * TM, kRegN = Tile::WNITER * TN;
  static_assert(BK % 2 == 0, "the last depth of a K-tile multiplies from set 1 while the next depth 0 fills set 0");

  float regM[2][kRegM], regN[2][kRegN];

  __device__ explicit HoistedWarpTile(int tid) : Tile(tid) {}

  // This lane's fragments of A and B at depth k of a stage, into `set`: K10's loadRegN and
  // loadRegM, their reads pinned in loop order (loadSharedQuad says why). kPinned = false reads
  // them as plain C++, which ptxas may move (a probe of lab/29-barrier-placement).
  template <bool kPinned = true>
  __device__ void loadFragments(const float* As, const float* Bs, int k, int set) {
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as 128-bit quads");
    auto read = [](const float* p) { return kPinned ? loadSharedQuad(p) : *reinterpret_cast<const float4*>(p); };
#pragma unroll
    for (int wn = 0; wn < Tile::WNITER; ++wn) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = read(Bs + k * BN + this->warpCol + wn * Tile::WSUBN + this->threadCol * TN + j);
        float* to = regN[set] + wn * TN + j;
        to[0] = b.x, to[1] = b.y, to[2] = b.z, to[3] = b.w;
      }
    }
#pragma unroll
    for (int wm = 0; wm < Tile::WMITER; ++wm) {
      const float* a = As + k * transposedAStride<BM>() + this->subTileRow(wm) + this->threadRow * TM;
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = read(a + i);
        float* to = regM[set] + wm * TM + i;
        to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
      }
    }
  }

  // The rank-1 update of the fragments in `set`: kRegM x kRegN FMAs.
  __device__ void multiply(int set) {
#pragma unroll
    for (int i = 0; i < kRegM; ++i) {
#pragma unroll
      for (int j = 0; j < kRegN; ++j) this->acc[i][j] = fmaf(regM[set][i], regN[set][j], this->acc[i][j]);
    }
  }
};

// Tiles in groups of kGroupRows row tiles (groupedBlockTile): the blocks resident together then
// read a few row panels of A and a few column panels of B from L2, not one of A and all of B.
inline constexpr int kHoistedGroupRows = 8;

// The K loop over `steps` K-tiles in K12's two stages, `fetchTile(index)` loading K-tile `index`
// into `staged`'s registers (called past the last one too: it may load anything, nothing reads
// it). The body always stores the K-tile in flight and reads depth 0 of the next stage: past the
// last K-tile those move data nobody reads again. Shared by K12's loop and S16's over gathered
// columns (gathered_stage.cuh). (The GLSL twin's loop is turned by one depth, a step starting after
// the barrier: NVIDIA's Vulkan compiler moved depth 0's reads after the last depth's FMAs when they
// ended a step; ptxas keeps them where loadSharedQuad puts them (lab/33-glsl-k-loop).)
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, class Staged, class Fetch>
__device__ __forceinline__ void twoStageKLoop(HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>& tile, Staged& staged,
                                              float* stages, int steps, Fetch&& fetchTile) {
  constexpr int kStage = stageFloats<BM, BN, BK>(), kBOffset = BK * transposedAStride<BM>();
  fetchTile(0);
  staged.store(stages, stages + kBOffset);
  __syncthreads();
  fetchTile(1);  // in flight during the first K-tile's FMAs (with one K-tile, zeros or K-tile 0 again)
  const float* readStage = stages;
  float* writeStage = stages + kStage;
  tile.loadFragments(readStage, readStage + kBOffset, 0, 0);
  for (int step = 0; step < steps; ++step) {
    // K11's inner loop: depth k + 1's fragments are read while depth k's FMAs run.
#pragma unroll
    for (int k = 0; k < BK - 1; ++k) {
      tile.loadFragments(readStage, readStage + kBOffset, k + 1, (k + 1) % 2);
      tile.multiply(k % 2);
    }
    // Every read of this stage is done, so the barrier comes now, not after the last FMAs. The
    // other stage was last read before the previous barrier: the K-tile in flight goes there.
    staged.store(writeStage, writeStage + kBOffset);
    __syncthreads();
    fetchTile(step + 2);  // in flight during the next K-tile
    float* const nowRead = writeStage;
    writeStage = const_cast<float*>(readStage);
    readStage = nowRead;
    tile.loadFragments(readStage, readStage + kBOffset, 0, 0);
    tile.multiply((BK - 1) % 2);  // its latency covers depth 0's shared reads
  }
}

// K12's K loop over a block's K-tiles. kInterior: the block's K-tiles come from fetchRunning(),
// and the loop body is one basic block; otherwise from fetch(), bounds-checked, which reads zeros
// past K. (The GLSL twin's interior K-tiles load at their K offsets, fetchInteriorAt, not from
// running indices: 1 % faster there, lab/37-vulkan-calibration.)
template <bool kInterior, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
__device__ __forceinline__ void hoistedKLoop(HoistedWarpTile<BM, BN, BK, WM, WN, TM, TN, kThreads>& tile,
                                             HoistedKTile<BM, BN, BK, kThreads>& staged, float* stages, int steps) {
  // The K-tile `index` into registers; an interior block steps its pointers while one lies ahead.
  twoStageKLoop(tile, staged, stages, steps, [&](int index) {
    if constexpr (kInterior) {
      staged.fetchRunning(index + 1 < steps);
    } else {
      staged.fetch(index * BK);
    }
  });
}

}  // namespace tileskip::cuda
