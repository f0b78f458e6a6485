// How fast can a Hopper block gather scattered rows into swizzled shared memory? S15's producer
// copies each gathered K-tile (64 rows of A transposed, 128 values each, and 64 rows of B, 256
// values each: 48 KiB) by 16-byte cp.async copies, and runs at half of K14, which moves the same
// bytes by the copy engine in whole boxes. This probe moves only the bytes, nothing multiplies them:
//   cp.async   the 128 threads of a warpgroup, 16 bytes each, as S15's producer does
//   rows       the copy engine, a box of one 128-byte row a copy (6 a gathered row pair), issued by
//              the 32 lanes of one warp: what a gather could do without the 16-byte copies
// It first checks that a one-row box lands swizzled by its destination's address (row j of an atom
// at chunk c ^ j), which a gather of rows needs, then times each way with one block per SM.
//   nvcc -O3 -std=c++20 -arch=sm_90a -I. -Ilab/tools lab/53-compact-wgmma/row_copies_probe.cu -o row_copies_probe
//   ./row_copies_probe
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "backends/cuda/bulk_copy_host.hpp"
#include "kernels/parts/hopper.cuh"
#include "probe_timing.cuh"

using namespace tileskip::cuda;

constexpr int kRowsPerTile = 64, kARow = 128, kBRow = 256, kStages = 4, kThreads = 128;
constexpr int kABytes = kRowsPerTile * kARow * 2, kStageBytes = kRowsPerTile * (kARow + kBRow) * 2;
constexpr int kBoxBytes = kRowsPerTile * kSwizzleRowBytes;  // one box column of 64 values, 64 rows deep

template <bool kRows>
__global__ void __launch_bounds__(kThreads, 1) moveRows(const __grid_constant__ CUtensorMap aMap, const __grid_constant__ CUtensorMap bMap,
                                                        const std::uint16_t* At, const std::uint16_t* B, int M, int N,
                                                        const int* rows, int tiles, std::uint16_t* check) {
  extern __shared__ __align__(1024) unsigned char raw[];
  unsigned char* stages = raw + (kSwizzleAtomBytes - sharedAddress(raw) % kSwizzleAtomBytes) % kSwizzleAtomBytes;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(stages + kStages * kStageBytes);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) barrierInit(&full[s], 1);
    barrierInitFence();
  }
  __syncthreads();
  const int rowBase = (blockIdx.x * kARow) % M, colBase = (blockIdx.x * kBRow) % N;
  for (int t = 0; t < tiles; ++t) {
    unsigned char* stage = stages + (t % kStages) * kStageBytes;
    const int* listed = rows + (static_cast<std::size_t>(blockIdx.x) * tiles + t) * kRowsPerTile;
    if constexpr (kRows) {
      if (tid >= 32) break;
      if (t >= kStages) barrierWait(&full[t % kStages], (t / kStages - 1) & 1);
      if (lane == 0) barrierArriveExpectingBytes(&full[t % kStages], kStageBytes);
      __syncwarp();
      for (int j = lane; j < kRowsPerTile; j += 32) {
        const int k = listed[j];
        for (int box = 0; box < kARow / 64; ++box) copyBox(stage + box * kBoxBytes + j * kSwizzleRowBytes, &aMap, rowBase + 64 * box, k, &full[t % kStages]);
        for (int box = 0; box < kBRow / 64; ++box) {
          copyBox(stage + kABytes + box * kBoxBytes + j * kSwizzleRowBytes, &bMap, colBase + 64 * box, k, &full[t % kStages]);
        }
      }
    } else {
      for (int e = tid; e < kRowsPerTile * kARow / 8; e += kThreads) {
        const int j = e / (kARow / 8), c = (e % (kARow / 8)) * 8;
        copyAsync16OrZeros(stage + (c / 64) * kBoxBytes + swizzled(j * kSwizzleRowBytes + (c % 64) * 2),
                           At + static_cast<std::size_t>(listed[j]) * M + rowBase + c, false);
      }
      for (int e = tid; e < kRowsPerTile * kBRow / 8; e += kThreads) {
        const int j = e / (kBRow / 8), c = (e % (kBRow / 8)) * 8;
        copyAsync16OrZeros(stage + kABytes + (c / 64) * kBoxBytes + swizzled(j * kSwizzleRowBytes + (c % 64) * 2),
                           B + static_cast<std::size_t>(listed[j]) * N + colBase + c, false);
      }
      commitCopies();
      waitCopies<kStages - 2>();
    }
  }
  if constexpr (kRows) {
    if (tid < 32) {
      for (int t = tiles < kStages ? 0 : tiles - kStages; t < tiles; ++t) barrierWait(&full[t % kStages], (t / kStages) & 1);
    }
  } else {
    waitCopies<0>();
  }
  __syncthreads();
  // Block 0's last stage, as it lies in shared memory, for the host's check of the swizzle.
  if (blockIdx.x == 0) {
    const unsigned char* last = stages + ((tiles - 1) % kStages) * kStageBytes;
    for (int i = tid; i < kStageBytes / 2; i += kThreads) check[i] = reinterpret_cast<const std::uint16_t*>(last)[i];
  }
}

int main() {
  constexpr int M = 4096, N = 4096, K = 4096, kTiles = 256;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<std::uint16_t> at(static_cast<std::size_t>(K) * M), b(static_cast<std::size_t>(K) * N);
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = static_cast<std::uint16_t>(i * 2654435761u >> 16);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint16_t>(i * 40503u + 7);
  std::mt19937 random(1);
  std::vector<int> rows(static_cast<std::size_t>(sms) * kTiles * kRowsPerTile);
  for (int& r : rows) r = static_cast<int>(random() % K);
  std::uint16_t *dAt, *dB, *dCheck;
  int* dRows;
  CHECK(cudaMalloc(&dAt, at.size() * 2));
  CHECK(cudaMalloc(&dB, b.size() * 2));
  CHECK(cudaMalloc(&dCheck, kStageBytes));
  CHECK(cudaMalloc(&dRows, rows.size() * sizeof(int)));
  CHECK(cudaMemcpy(dAt, at.data(), at.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dRows, rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice));
  const CUtensorMap aMap = encodeBulkTensorMap(dAt, M, K, 1), bMap = encodeBulkTensorMap(dB, N, K, 1);
  const int shared = kStages * kStageBytes + kStages * 8 + kSwizzleAtomBytes;
  const double gigabytes = static_cast<double>(sms) * kTiles * kStageBytes / 1e9;
  for (bool byRows : {false, true}) {
    auto kernel = byRows ? moveRows<true> : moveRows<false>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    auto launch = [&] { kernel<<<sms, kThreads, shared>>>(aMap, bMap, dAt, dB, M, N, dRows, kTiles, dCheck); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    // Row j of box column `box` of the last stage: element c of the listed row, 16-byte chunk c / 8 at c / 8 ^ (j % 8).
    std::vector<std::uint16_t> got(kStageBytes / 2);
    CHECK(cudaMemcpy(got.data(), dCheck, kStageBytes, cudaMemcpyDeviceToHost));
    long wrong = 0;
    const int* listed = rows.data() + static_cast<std::size_t>(kTiles - 1) * kRowsPerTile;
    for (int j = 0; j < kRowsPerTile; ++j) {
      for (int c = 0; c < kBRow; ++c) {
        const std::uint32_t offset = kABytes + (c / 64) * kBoxBytes + swizzled(j * kSwizzleRowBytes + (c % 64) * 2);
        wrong += got[offset / 2] != b[static_cast<std::size_t>(listed[j]) * N + c];
      }
      for (int c = 0; c < kARow; ++c) {
        const std::uint32_t offset = (c / 64) * kBoxBytes + swizzled(j * kSwizzleRowBytes + (c % 64) * 2);
        wrong += got[offset / 2] != at[static_cast<std::size_t>(listed[j]) * M + c];
      }
    }
    const float ms = medianMs(launch, 20);
    std::printf("%-9s %d blocks x %d gathered K-tiles of 48 KiB: %.3f ms, %.2f TB/s, %.1f GB/s per SM; swizzle check: %ld of %d values wrong\n",
                byRows ? "rows" : "cp.async", sms, kTiles, ms, gigabytes / ms, gigabytes / ms * 1000 / sms, wrong,
                kRowsPerTile * (kARow + kBRow));
  }
  return 0;
}
