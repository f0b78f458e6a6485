// Shared by the translation units of lab/tools/dense_variants (issue 17): the variant record
// the harness times and the helpers that name and register a kernel. Each dense_variants_*.cu
// instantiates a few kernels so that they compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "k12_hoisted.cuh"
#include "multistage.cuh"
#include "tune_kernels.cuh"

namespace tileskip::tune {

using Kernel = void (*)(const float*, const float*, float*, int, int, int);

struct Variant {
  std::string name;        // shape and build, e.g. "ms3 128x128x8 w64x64 t8x4 l4x8"
  std::string prediction;  // what it should change against the reference, and why
  Kernel kernel = nullptr;
  int BM = 0, BN = 0, threads = 0, dynamicSmem = 0;
};

// Registers one kernel; its attributes (registers, spills) are read by the harness.
inline void addVariant(std::vector<Variant>& into, const std::string& name, const std::string& prediction,
                       Kernel kernel, int BM, int BN, int threads, int dynamicSmem) {
  into.push_back(Variant{name, prediction, kernel, BM, BN, threads, dynamicSmem});
}

void addReferenceVariants(std::vector<Variant>& into);   // K11 and K12 as in the catalogue, multistage as written
void addRegisterVariants(std::vector<Variant>& into);    // register-staged, hoisted
void addStagesVariants(std::vector<Variant>& into);      // cp.async stages, 128 x 128
void addLanesVariants(std::vector<Variant>& into);       // lane arrangements, 128 x 128
void addDepthVariants(std::vector<Variant>& into);       // BK = 16, launch bounds, block order
void addWideVariants(std::vector<Variant>& into);        // 256-thread tiles 128 x 256 and 256 x 128
void addCopyScheduleVariants(std::vector<Variant>& into);  // cp.async copies spread over the depths (step 11)
void addOrderVariants(std::vector<Variant>& into);         // the FMA order of the outer product (step 18)
void addStreamlinedVariants(std::vector<Variant>& into);   // K12 with a branch-free interior K loop (step 18)

}  // namespace tileskip::tune


namespace tileskip::tune {

// "128x128x8 w64x64 t8x4 l4x8": block, warp, lane fragment and lane grid (il2: lane pairs
// interleaved), then what differs from the defaults (128 threads, min 1 block/SM, groups of 8,
// early barrier).
inline std::string shapeName(int BM, int BN, int BK, int WM, int WN, int TM, int TN, int threads, int minBlocks,
                             int laneRows, int interleave, int groupRows, bool early) {
  std::string name = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + " w" +
                     std::to_string(WM) + "x" + std::to_string(WN) + " t" + std::to_string(TM) + "x" +
                     std::to_string(TN) + " l" + std::to_string(laneRows) + "x" + std::to_string(32 / laneRows);
  if (interleave > 1) name += "il" + std::to_string(interleave);
  if (threads != 128) name += " " + std::to_string(threads) + "thr";
  if (minBlocks != 1) name += " min" + std::to_string(minBlocks);
  if (groupRows != 8) name += " g" + std::to_string(groupRows);
  if (!early) name += " late";
  return name;
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kStages, int kMinBlocks = 1,
          int kLaneRows = 4, int kInterleave = 1, int kGroupRows = 8, bool kEarlyBarrier = true>
void addMultistage(std::vector<Variant>& into, const std::string& prediction) {
  addVariant(into,
             "ms" + std::to_string(kStages) + " " +
                 shapeName(BM, BN, BK, WM, WN, TM, TN, kThreads, kMinBlocks, kLaneRows, kInterleave, kGroupRows,
                           kEarlyBarrier),
             prediction,
             cuda::multistage<BM, BN, BK, WM, WN, TM, TN, kThreads, kStages, kMinBlocks, kLaneRows, kInterleave,
                              kGroupRows, kEarlyBarrier>,
             BM, BN, kThreads, cuda::multistageSharedBytes<BM, BN, BK, kStages>());
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kThreads, int kMinBlocks = 1, int kLaneRows = 4,
          int kInterleave = 1, int kGroupRows = 8, bool kEarlyBarrier = true>
void addRegisterStaged(std::vector<Variant>& into, const std::string& prediction) {
  addVariant(into,
             "reg2 " + shapeName(BM, BN, BK, WM, WN, TM, TN, kThreads, kMinBlocks, kLaneRows, kInterleave, kGroupRows,
                                 kEarlyBarrier),
             prediction,
             cuda::registerStaged<BM, BN, BK, WM, WN, TM, TN, kThreads, kMinBlocks, kLaneRows, kInterleave, kGroupRows,
                                  kEarlyBarrier>,
             BM, BN, kThreads, cuda::multistageSharedBytes<BM, BN, BK, 2>());
}

}  // namespace tileskip::tune
