// The block tile queue the persistent kernels take their tiles from (the twin of block_skip.glsl's
// first section): the SIMT skipping kernels through block_skip.cuh, S10, and the warpgroup kernels
// whose one producer warp takes the tiles (S12, S21).
#pragma once

#include "common.cuh"

namespace tileskip::cuda {

// A queue of block tiles shared by the blocks of one launch: queue[0] is the next tile to take,
// queue[1] counts the blocks that have finished. The last block out resets both, so the next
// launch starts from zero without a memset of its own. Persistent kernels run as many blocks
// as fit on the device at once and each takes tiles until none is left: the work of tiles
// that skip different amounts evens out across the device instead of waiting for the slowest
// tile of every wave.
__device__ inline int takeBlockTile(unsigned* queue, int* broadcast) {
  if (threadIdx.x == 0) *broadcast = static_cast<int>(atomicAdd(&queue[0], 1u));
  __syncthreads();
  const int tile = *broadcast;
  __syncthreads();  // every thread has read it before thread 0 writes the next one
  return tile;
}

// takeBlockTile split in two for a block that has work left when it asks: thread 0 asks for the
// next tile before the block's C store (askBlockTile), so that the atomic's round trip overlaps
// the store, and passBlockTile hands the answer to every thread after it. One barrier, where
// takeBlockTile needs two: the next tile's gather passes barriers before thread 0 writes again.
__device__ inline unsigned askBlockTile(unsigned* queue) { return threadIdx.x == 0 ? atomicAdd(&queue[0], 1u) : 0u; }

__device__ inline int passBlockTile(unsigned asked, int* broadcast) {
  if (threadIdx.x == 0) *broadcast = static_cast<int>(asked);
  __syncthreads();
  return *broadcast;
}

// The queue's second word counts the blocks done with it; the last one clears both for the next
// launch. `leader`: the one thread of the block that counts it (thread 0, or the lane that takes
// tiles in a kernel whose one warp does).
__device__ inline void leaveBlockTileQueue(unsigned* queue, bool leader) {
  if (leader && atomicAdd(&queue[1], 1u) == gridDim.x - 1) {
    queue[0] = 0u;  // no block of this launch touches the queue any more
    queue[1] = 0u;
  }
}

__device__ inline void leaveBlockTileQueue(unsigned* queue) { leaveBlockTileQueue(queue, threadIdx.x == 0); }

}  // namespace tileskip::cuda
