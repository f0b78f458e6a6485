// What the tensor-core probes (mma_probe.cu, wgmma_probe.cu) share: a kernel's median time after
// the warm-up an idle H200 needs (and check_call.cuh's CHECK).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "check_call.cuh"

// The median of `repeat` device-timed launches, after about half a second of GPU work: an idle
// H200 drops its clock (lab/13-gpu-clock).
template <class Launch>
float medianMs(Launch launch, int repeat) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  auto once = [&] {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  };
  for (float spent = 0; spent < 500.0f;) spent += once();
  std::vector<float> times;
  for (int i = 0; i < repeat; ++i) times.push_back(once());
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}
