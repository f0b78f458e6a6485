// Warp tiling, from K10 (warptile) on (the twin of warptile.glsl): each warp owns a WM x WN tile of the
// block's outputs, its 32 lanes a 4 x 8 grid stepping over it in sub-tiles of (4 TM) x (8 TN)
// (ThreadMapping::WarpTile). A warp's shared reads touch only its own slice of the stage.
#pragma once

#include "stage.cuh"

namespace tileskip::cuda {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads>
struct WarpTile {
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kWarpCols = BN / WN;        // warps side by side along N
  static constexpr int WSUBM = 4 * TM;             // rows of one sub-tile: 4 thread-rows
  static constexpr int WSUBN = 8 * TN;             // columns of one sub-tile: 8 thread-columns
  static constexpr int WMITER = WM / WSUBM;        // sub-tiles down the warp tile
  static constexpr int WNITER = WN / WSUBN;        // sub-tiles across the warp tile
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kTM = TM, kTN = TN;
  static_assert(kThreads % 32 == 0 && (BM / WM) * (BN / WN) == kWarps, "the warp tiles cover the block tile");
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % WSUBM == 0 && WN % WSUBN == 0, "sub-tiles cover the warp tile");
  static_assert(TN % 4 == 0 && (TM % 4 == 0 || TM == 2), "fragments are read as 128-bit (or 64-bit) shared loads");

  int warpRow, warpCol;      // origin of this warp's tile inside the block tile
  int threadRow, threadCol;  // this lane's place in a sub-tile
  float acc[WMITER * TM][WNITER * TN] = {};

  __device__ explicit WarpTile(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    warpRow = (warp / kWarpCols) * WM;
    warpCol = (warp % kWarpCols) * WN;
    threadRow = lane / 8;
    threadCol = lane % 8;
  }

  // First row (inside the block tile) of sub-tile wm: the rows that an 8-row A-pattern tile
  // covers when TM = 2 (S7).
  __device__ int subTileRow(int wm) const { return warpRow + wm * WSUBM; }

  // This lane's TN values of B for every sub-tile column, at depth k of the staged tile.
  __device__ void loadRegN(const float* Bs, int k, float (&regN)[WNITER * TN]) const {
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = *reinterpret_cast<const float4*>(Bs + k * BN + warpCol + wn * WSUBN + threadCol * TN + j);
        regN[wn * TN + j] = b.x, regN[wn * TN + j + 1] = b.y, regN[wn * TN + j + 2] = b.z, regN[wn * TN + j + 3] = b.w;
      }
    }
  }

  // This lane's TM values of A for sub-tile row wm, at depth k of the staged tile.
  __device__ void loadRegM(const float* As, int k, int wm, float (&regM)[TM]) const {
    const float* a = As + k * transposedAStride<BM>() + subTileRow(wm) + threadRow * TM;
    if constexpr (TM % 4 == 0) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(a + i);
        regM[i] = v.x, regM[i + 1] = v.y, regM[i + 2] = v.z, regM[i + 3] = v.w;
      }
    } else {
      const float2 v = *reinterpret_cast<const float2*>(a);
      regM[0] = v.x, regM[1] = v.y;
    }
  }

  // The TM x TN outer product of sub-tile (wm, wn).
  __device__ void fmaSubTile(int wm, int wn, const float (&regM)[TM], const float (&regN)[WNITER * TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        acc[wm * TM + i][wn * TN + j] = fmaf(regM[i], regN[wn * TN + j], acc[wm * TM + i][wn * TN + j]);
      }
    }
  }

  // The rank-1 update at depth k for the sub-tiles of row wm: TM values of A times regN.
  __device__ void updateSubTileRow(const float* As, int k, int wm, const float (&regN)[WNITER * TN]) {
    float regM[TM];
    loadRegM(As, k, wm, regM);
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) fmaSubTile(wm, wn, regM, regN);
  }

  // The full rank-1 update at depth k: every sub-tile of the warp.
  __device__ void rank1Update(const float* As, const float* Bs, int k) {
    float regN[WNITER * TN];
    loadRegN(Bs, k, regN);
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) updateSubTileRow(As, k, wm, regN);
  }

  // The kDepth rank-1 updates at depths kOffset .. kOffset + kDepth - 1, with the fragments of
  // depth k + 1 read from shared memory while the FMAs of depth k run (two register sets,
  // indexed at compile time): K11's inner loop.
  template <int kDepth>
  __device__ void rank1UpdatesPrefetched(const float* As, const float* Bs, int kOffset = 0) {
    float regM[2][WMITER * TM], regN[2][WNITER * TN];
    auto load = [&](int k, float(&m)[WMITER * TM], float(&n)[WNITER * TN]) {
      loadRegN(Bs, k, n);
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm) {
        float part[TM];
        loadRegM(As, k, wm, part);
#pragma unroll
        for (int i = 0; i < TM; ++i) m[wm * TM + i] = part[i];
      }
    };
    load(kOffset, regM[0], regN[0]);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      if (k + 1 < kDepth) load(kOffset + k + 1, regM[(k + 1) % 2], regN[(k + 1) % 2]);
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
          for (int j = 0; j < WNITER * TN; ++j) {
            acc[wm * TM + i][j] = fmaf(regM[k % 2][wm * TM + i], regN[k % 2][j], acc[wm * TM + i][j]);
          }
        }
      }
    }
  }

  // The 8 rank-1 updates of one K-block of the staged tile (depths kOffset .. kOffset + 7)
  // whose bits are set in `bits`. The caller guarantees `bits` is the same in every lane of the
  // warp, so each branch is taken or skipped by the whole warp.
  __device__ void rank1UpdatesOfKBlock(const float* As, const float* Bs, int kOffset, unsigned bits) {
    if (bits == 0xFFu) {  // dense K-block: the same straight-line code as the dense kernel
#pragma unroll
      for (int k = 0; k < kKBlock; ++k) rank1Update(As, Bs, kOffset + k);
    } else if (bits != 0u) {
#pragma unroll
      for (int k = 0; k < kKBlock; ++k) {
        if ((bits >> k) & 1u) rank1Update(As, Bs, kOffset + k);
      }
    }
  }

  __device__ void store(float* C, int M, int N, int rowBase, int colBase) const {
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm) {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int row = rowBase + subTileRow(wm) + threadRow * TM + i;
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn) {
#pragma unroll
          for (int j = 0; j < TN; j += 4) {
            const int r = wm * TM + i, c = wn * TN + j;
            storeQuad(C, M, N, row, colBase + warpCol + wn * WSUBN + threadCol * TN + j,
                      make_float4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]));
          }
        }
      }
    }
  }
};

}  // namespace tileskip::cuda
