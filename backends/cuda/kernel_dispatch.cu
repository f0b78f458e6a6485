// The catalogue id -> kernel table. Tile parameters and pattern granularities come from
// core/catalogue.hpp's constexpr kCatalogue as template arguments, so they are written once,
// there, and shared with the GLSL twins; each kernel's static_asserts check that the shape it
// is given is one it can run (thread counts, warp tiles matching pattern tiles).
#include <limits>
#include <string>

#include "core/catalogue.hpp"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "launch.hpp"

#include "k01_naive.cuh"
#include "k02_coalesced.cuh"
#include "k03_smem.cuh"
#include "k04_blocktile1d.cuh"
#include "k05_blocktile2d.cuh"
#include "k06_vectorized.cuh"
#include "k09_warptile.cuh"
#include "k10_a_row.cuh"
#include "k16_a_warp.cuh"
#include "k18_b_group8.cuh"
#include "k21_b_warp.cuh"
#include "k24_joint_64x32.cuh"
#include "k28_joint_8x32.cuh"
#include "k29_joint_32x32.cuh"

namespace tileskip::cuda {

namespace {

static_assert(tileskip::kKBlock == kKBlock, "device and host agree on the K-block");

using DenseKernel = void (*)(const float*, const float*, float*, int, int, int);
using SkipKernel = void (*)(const float*, const float*, float*, int, int, int, const std::uint8_t*,
                            const std::uint8_t*);

struct GemmKernel {
  std::string_view id;
  DenseKernel dense;  // exactly one of dense / skipping is set
  SkipKernel skipping;
};

constexpr const KernelInfo& info(std::string_view id) { return *findKernelInfo(id); }

constexpr TileShape kNaive = info("naive").tile;
constexpr TileShape kCoalesced = info("coalesced").tile;
constexpr TileShape kSmem = info("smem").tile;
constexpr TileShape kBlocktile1d = info("blocktile1d").tile;
constexpr TileShape kBlocktile2d = info("blocktile2d").tile;
constexpr TileShape kVectorized = info("vectorized").tile;
constexpr TileShape kWarptile = info("warptile").tile;
constexpr KernelInfo kARow = info("a-row");
constexpr KernelInfo kAWarp = info("a-warp");
constexpr KernelInfo kBGroup8 = info("b-group8");
constexpr KernelInfo kBWarp = info("b-warp");
constexpr KernelInfo kJoint64x32 = info("joint-64x32");
constexpr KernelInfo kJoint32x32 = info("joint-32x32");
constexpr KernelInfo kJoint8x32 = info("joint-8x32");

// clang-format off
const GemmKernel kGemmKernels[] = {
  {"naive", naive<kNaive.BM, kNaive.BN, kNaive.threads>, nullptr},
  {"coalesced", coalesced<kCoalesced.BM, kCoalesced.BN, kCoalesced.threads>, nullptr},
  {"smem", smem<kSmem.BM, kSmem.BN, kSmem.BK, kSmem.threads>, nullptr},
  {"blocktile1d", blocktile1d<kBlocktile1d.BM, kBlocktile1d.BN, kBlocktile1d.BK, kBlocktile1d.TM, kBlocktile1d.threads>, nullptr},
  {"blocktile2d", blocktile2d<kBlocktile2d.BM, kBlocktile2d.BN, kBlocktile2d.BK, kBlocktile2d.TM, kBlocktile2d.TN,
                              kBlocktile2d.threads>, nullptr},
  {"vectorized", vectorized<kVectorized.BM, kVectorized.BN, kVectorized.BK, kVectorized.TM, kVectorized.TN,
                            kVectorized.threads>, nullptr},
  {"warptile", warptile<kWarptile.BM, kWarptile.BN, kWarptile.BK, kWarptile.WM, kWarptile.WN, kWarptile.TM, kWarptile.TN,
                        kWarptile.threads>, nullptr},
  {"a-row", nullptr, aRow<kARow.tile.BM, kARow.tile.BN, kARow.tile.BK, kARow.tile.TM, kARow.tile.TN, kARow.tile.threads,
                          kARow.aRowGranularity>},
  {"a-warp", nullptr, aWarp<kAWarp.tile.BM, kAWarp.tile.BN, kAWarp.tile.BK, kAWarp.tile.WM, kAWarp.tile.WN, kAWarp.tile.TM,
                            kAWarp.tile.TN, kAWarp.tile.threads, kAWarp.aRowGranularity>},
  {"b-group8", nullptr, bGroup8<kBGroup8.tile.BM, kBGroup8.tile.BN, kBGroup8.tile.BK, kBGroup8.tile.TM, kBGroup8.tile.TN,
                                kBGroup8.tile.threads, kBGroup8.bColGranularity>},
  {"b-warp", nullptr, bWarp<kBWarp.tile.BM, kBWarp.tile.BN, kBWarp.tile.BK, kBWarp.tile.WM, kBWarp.tile.WN, kBWarp.tile.TM,
                            kBWarp.tile.TN, kBWarp.tile.threads, kBWarp.bColGranularity>},
  {"joint-64x32", nullptr, joint64x32<kJoint64x32.tile.BM, kJoint64x32.tile.BN, kJoint64x32.tile.BK, kJoint64x32.tile.WM,
                                      kJoint64x32.tile.WN, kJoint64x32.tile.TM, kJoint64x32.tile.TN,
                                      kJoint64x32.tile.threads, kJoint64x32.aRowGranularity, kJoint64x32.bColGranularity>},
  {"joint-32x32", nullptr, joint32x32<kJoint32x32.tile.BM, kJoint32x32.tile.BN, kJoint32x32.tile.BK, kJoint32x32.tile.WM,
                                      kJoint32x32.tile.WN, kJoint32x32.tile.TM, kJoint32x32.tile.TN,
                                      kJoint32x32.tile.threads, kJoint32x32.aRowGranularity, kJoint32x32.bColGranularity>},
  {"joint-8x32", nullptr, joint8x32<kJoint8x32.tile.BM, kJoint8x32.tile.BN, kJoint8x32.tile.BK, kJoint8x32.tile.WM,
                                    kJoint8x32.tile.WN, kJoint8x32.tile.TM, kJoint8x32.tile.TN, kJoint8x32.tile.threads,
                                    kJoint8x32.aRowGranularity, kJoint8x32.bColGranularity>},
};
// clang-format on

const GemmKernel* findGemmKernel(std::string_view id) {
  for (const GemmKernel& k : kGemmKernels) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

dim3 gridFor(const TileShape& tile, const GemmOperands& op) {
  const long long blocks = static_cast<long long>((op.m + tile.BM - 1) / tile.BM) * ((op.n + tile.BN - 1) / tile.BN);
  if (blocks > std::numeric_limits<int>::max()) throw InputError("problem too large: more than 2^31 - 1 thread blocks");
  return dim3(static_cast<unsigned>(blocks));
}

}  // namespace

bool hasGemmKernel(std::string_view id) { return findGemmKernel(id) != nullptr; }

void launchGemmKernel(std::string_view id, const GemmOperands& op, cudaStream_t stream) {
  const GemmKernel* kernel = findGemmKernel(id);
  if (kernel == nullptr) throw InputError("the cuda backend has no kernel '" + std::string(id) + "'");
  const KernelInfo& entry = info(id);
  const dim3 grid = gridFor(entry.tile, op);
  const dim3 block(static_cast<unsigned>(entry.tile.threads));
  const std::string name(id);
  if (kernel->dense != nullptr) {
    kernel->dense<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k);
  } else {
    if ((entry.usesAPattern() && op.aPattern == nullptr) || (entry.usesBPattern() && op.bPattern == nullptr)) {
      throw InputError("kernel '" + name + "' launched before its skip patterns were built");
    }
    kernel->skipping<<<grid, block, 0, stream>>>(op.a, op.b, op.c, op.m, op.n, op.k, op.aPattern, op.bPattern);
  }
  checkLaunch(name.c_str());
}

void checkKernelImages() {
  for (const GemmKernel& k : kGemmKernels) {
    cudaFuncAttributes attributes{};
    const void* function = k.dense != nullptr ? reinterpret_cast<const void*>(k.dense) : reinterpret_cast<const void*>(k.skipping);
    check(cudaFuncGetAttributes(&attributes, function), ("looking up kernel " + std::string(k.id)).c_str());
  }
}

}  // namespace tileskip::cuda
