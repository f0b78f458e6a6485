// The catalogue id -> kernel table, shared by kernel_dispatch.cu (CUDA launches) and the CPU
// emulation in the tests. Tile parameters and pattern granularities come from
// core/model/catalogue.hpp's constexpr kCatalogue as template arguments, so they are written once,
// there, and shared with the GLSL twins; each kernel's static_asserts check that the shape it
// is given is one it can run (thread counts, warp tiles matching pattern tiles). How a kernel
// is launched (one block per tile, or persistent) is its row's structure, not a column here.
//
// This table is the one per-kernel registration the CUDA backend needs: a template's name and
// argument list cannot come from a row. The static_assert below it fails the build when an
// entry is missing, out of the catalogue's order, or of the wrong kind (dense or skipping).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "core/model/catalogue.hpp"

#include "k01_naive.cuh"
#include "k02_coalesced.cuh"
#include "k03_smem.cuh"
#include "k04_blocktile1d.cuh"
#include "k05_blocktile2d.cuh"
#include "k06_vectorized.cuh"
#include "k10_warptile.cuh"
#include "s01_a_row.cuh"
#include "k11_pipelined.cuh"
#include "k12_hoisted.cuh"
#include "k13_mma.cuh"
#include "k14_wgmma.cuh"
#include "s02_a_warp.cuh"
#include "s03_b_group8.cuh"
#include "s04_b_warp.cuh"
#include "s05_joint_64x32.cuh"
#include "s07_joint_8x32.cuh"
#include "s06_joint_32x32.cuh"
#include "s08_warp_joint_64x64.cuh"
#include "s09_warp_joint_32x32.cuh"
#include "s10_mma_joint_64x32.cuh"
#include "s11_wgmma_joint_64x64.cuh"

namespace tileskip::cuda {

static_assert(tileskip::kKBlock == kKBlock, "device and host agree on the K-block");
static_assert(tileskip::kWarpgroupThreads == kWarpgroupThreads && tileskip::kWarpLanes == kWarpThreads,
              "device and host agree on the warp and the warpgroup");

using DenseKernel = void (*)(const float*, const float*, float*, int, int, int);
using SkipKernel = void (*)(const float*, const float*, float*, int, int, int, const std::uint8_t*,
                            const std::uint8_t*, unsigned*);
// A tensor-core kernel: A and B as the 16-bit words of its input type, C fp32.
using TensorKernel = void (*)(const std::uint16_t*, const std::uint16_t*, float*, int, int, int);
using TensorSkipKernel = void (*)(const std::uint16_t*, const std::uint16_t*, float*, int, int, int, const std::uint8_t*,
                                  const std::uint8_t*, unsigned*);
// A Hopper warpgroup kernel: A and B also as the copy engine's tensor maps, and whether to use them
// (`bulk`: every row 16-byte aligned), hopper_common.cuh.
using WarpgroupKernel = void (*)(BulkTensorMap, BulkTensorMap, bool, const std::uint16_t*, const std::uint16_t*, float*, int, int,
                                 int);
using WarpgroupSkipKernel = void (*)(BulkTensorMap, BulkTensorMap, bool, const std::uint16_t*, const std::uint16_t*, float*, int,
                                     int, int, const std::uint8_t*, const std::uint8_t*);
// The tf32 instances: A and transposed B as fp32 words (mma_common.cuh's MmaInputType).
using Tf32TensorKernel = void (*)(const std::uint32_t*, const std::uint32_t*, float*, int, int, int);
using Tf32TensorSkipKernel = void (*)(const std::uint32_t*, const std::uint32_t*, float*, int, int, int, const std::uint8_t*,
                                      const std::uint8_t*, unsigned*);
using Tf32WarpgroupKernel = void (*)(BulkTensorMap, BulkTensorMap, bool, const std::uint32_t*, const std::uint32_t*, float*, int,
                                     int, int);

// The instance of a tensor-core kernel for inputs of `type` (fp32 has none).
constexpr MmaInput mmaInput(DType type) {
  return type == DType::Bf16 ? MmaInput::Bf16 : type == DType::Tf32 ? MmaInput::Tf32 : MmaInput::Fp16;
}

// Exactly one of dense, skipping, the tensor pair, the tensor skipping pair and the warpgroup pairs
// is set, and the tf32 instance of its kind where the row takes tf32.
struct GemmKernel {
  std::string_view id;
  DenseKernel dense = nullptr;
  SkipKernel skipping = nullptr;
  TensorKernel fp16 = nullptr, bf16 = nullptr;  // a dense tensor-core kernel, one instance per input type
  TensorSkipKernel fp16Skipping = nullptr, bf16Skipping = nullptr;  // a skipping one
  unsigned dynamicSharedBytes = 0;  // what its launch asks for (the tensor kernels' stage ring)
  WarpgroupKernel fp16Warpgroup = nullptr, bf16Warpgroup = nullptr;  // a Hopper kernel
  WarpgroupSkipKernel fp16WarpgroupSkipping = nullptr, bf16WarpgroupSkipping = nullptr;  // a skipping one
  Tf32WarpgroupKernel tf32Warpgroup = nullptr;  // a Hopper kernel's tf32 instance, where it has one
  Tf32TensorKernel tf32 = nullptr;              // a tensor-core kernel's, dense
  Tf32TensorSkipKernel tf32Skipping = nullptr;  // or skipping
  unsigned tf32SharedBytes = 0;                 // the tf32 instance's stage ring, where it differs (B^T's tile)

  bool hasTf32Instance() const { return tf32Warpgroup != nullptr || tf32 != nullptr || tf32Skipping != nullptr; }
  // What the launch of the instance for inputs of `type` asks for.
  unsigned sharedBytes(DType type) const { return type == DType::Tf32 && tf32SharedBytes > 0 ? tf32SharedBytes : dynamicSharedBytes; }

  bool usesTensorCores() const {
    return fp16 != nullptr || fp16Skipping != nullptr || fp16Warpgroup != nullptr || fp16WarpgroupSkipping != nullptr;
  }
  bool onHopper() const { return fp16Warpgroup != nullptr || fp16WarpgroupSkipping != nullptr; }
  // The kernel function of the instance for inputs of `type`, for the runtime's attribute and
  // occupancy queries.
  const void* function(DType type) const {
    const bool bf16Inputs = type == DType::Bf16;
    if (type == DType::Tf32 && tf32Warpgroup != nullptr) return reinterpret_cast<const void*>(tf32Warpgroup);
    if (type == DType::Tf32 && tf32 != nullptr) return reinterpret_cast<const void*>(tf32);
    if (type == DType::Tf32 && tf32Skipping != nullptr) return reinterpret_cast<const void*>(tf32Skipping);
    if (dense != nullptr) return reinterpret_cast<const void*>(dense);
    if (skipping != nullptr) return reinterpret_cast<const void*>(skipping);
    if (fp16 != nullptr) return reinterpret_cast<const void*>(bf16Inputs ? bf16 : fp16);
    if (fp16Warpgroup != nullptr) return reinterpret_cast<const void*>(bf16Inputs ? bf16Warpgroup : fp16Warpgroup);
    if (fp16WarpgroupSkipping != nullptr) {
      return reinterpret_cast<const void*>(bf16Inputs ? bf16WarpgroupSkipping : fp16WarpgroupSkipping);
    }
    return reinterpret_cast<const void*>(bf16Inputs ? bf16Skipping : fp16Skipping);
  }
};

inline constexpr const KernelInfo& catalogueEntry(std::string_view id) { return *findKernelInfo(id); }

inline constexpr TileShape kNaive = catalogueEntry("naive").tile;
inline constexpr TileShape kCoalesced = catalogueEntry("coalesced").tile;
inline constexpr TileShape kSmem = catalogueEntry("smem").tile;
inline constexpr TileShape kBlocktile1d = catalogueEntry("blocktile1d").tile;
inline constexpr TileShape kBlocktile2d = catalogueEntry("blocktile2d").tile;
inline constexpr TileShape kVectorized = catalogueEntry("vectorized").tile;
inline constexpr TileShape kWarptile = catalogueEntry("warptile").tile;
inline constexpr TileShape kPipelined = catalogueEntry("pipelined").tile;
inline constexpr TileShape kHoisted = catalogueEntry("hoisted").tile;
inline constexpr KernelInfo kMma = catalogueEntry("mma");
// The twins declare the stage ring the row describes (KernelInfo::stagedSharedBytes), for each input.
template <const KernelInfo& k, DType type>
inline constexpr bool kRingMatchesRow = mmaSharedBytes<mmaInput(type), k.tile.BM, k.tile.BN, k.tile.BK, k.structure.ringStages>() ==
                                        static_cast<std::size_t>(k.stagedSharedBytes(type));
static_assert(kRingMatchesRow<kMma, DType::Fp16> && kRingMatchesRow<kMma, DType::Tf32>);
inline constexpr KernelInfo kWgmma = catalogueEntry("wgmma");
// The row's BK counts 16-bit values; the tf32 instance's K-tile is the same 128-byte swizzled row
// (kWgmmaKTile), so both instances have one stage size.
using WgmmaRowLayout = WgmmaLayout<MmaInput::Bf16, kWgmma.tile.BM, kWgmma.tile.BN, kWgmma.tile.BK, kWgmma.structure.ringStages>;
static_assert(WgmmaRowLayout::kStageBytes * kWgmma.structure.ringStages == kWgmma.stagedSharedBytes());
static_assert(WgmmaLayout<MmaInput::Tf32, kWgmma.tile.BM, kWgmma.tile.BN, kWgmmaKTile<MmaInput::Tf32>,
                          kWgmma.structure.ringStages>::kSharedBytes == WgmmaRowLayout::kSharedBytes);
inline constexpr KernelInfo kWgmmaJoint64x64 = catalogueEntry("wgmma-joint-64x64");
static_assert(WgmmaLayout<MmaInput::Bf16, kWgmmaJoint64x64.tile.BM, kWgmmaJoint64x64.tile.BN, kWgmmaJoint64x64.tile.BK,
                          kWgmmaJoint64x64.structure.ringStages>::kStageBytes * kWgmmaJoint64x64.structure.ringStages ==
              kWgmmaJoint64x64.stagedSharedBytes());
inline constexpr KernelInfo kARow = catalogueEntry("a-row");
inline constexpr KernelInfo kAWarp = catalogueEntry("a-warp");
inline constexpr KernelInfo kBGroup8 = catalogueEntry("b-group8");
inline constexpr KernelInfo kBWarp = catalogueEntry("b-warp");
inline constexpr KernelInfo kJoint64x32 = catalogueEntry("joint-64x32");
inline constexpr KernelInfo kJoint32x32 = catalogueEntry("joint-32x32");
inline constexpr KernelInfo kJoint8x32 = catalogueEntry("joint-8x32");
inline constexpr KernelInfo kWarpJoint64x64 = catalogueEntry("warp-joint-64x64");
inline constexpr KernelInfo kWarpJoint32x32 = catalogueEntry("warp-joint-32x32");
inline constexpr KernelInfo kMmaJoint64x32 = catalogueEntry("mma-joint-64x32");
static_assert(kRingMatchesRow<kMmaJoint64x32, DType::Fp16> && kRingMatchesRow<kMmaJoint64x32, DType::Tf32>);

// clang-format off
inline constexpr GemmKernel kGemmKernels[] = {
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
  {"pipelined", pipelined<kPipelined.BM, kPipelined.BN, kPipelined.BK, kPipelined.WM, kPipelined.WN, kPipelined.TM,
                          kPipelined.TN, kPipelined.threads>, nullptr},
  {"hoisted", hoisted<kHoisted.BM, kHoisted.BN, kHoisted.BK, kHoisted.WM, kHoisted.WN, kHoisted.TM, kHoisted.TN,
                      kHoisted.threads>, nullptr},
  {.id = "mma",
   .fp16 = mmaDense<MmaInput::Fp16, kMma.tile.BM, kMma.tile.BN, kMma.tile.BK, kMma.tile.WM, kMma.tile.WN,
                    kMma.structure.ringStages, kMma.tile.threads>,
   .bf16 = mmaDense<MmaInput::Bf16, kMma.tile.BM, kMma.tile.BN, kMma.tile.BK, kMma.tile.WM, kMma.tile.WN,
                    kMma.structure.ringStages, kMma.tile.threads>,
   .dynamicSharedBytes = static_cast<unsigned>(kMma.stagedSharedBytes(DType::Fp16)),
   .tf32 = mmaDense<MmaInput::Tf32, kMma.tile.BM, kMma.tile.BN, kMma.tile.BK, kMma.tile.WM, kMma.tile.WN,
                    kMma.structure.ringStages, kMma.tile.threads>,
   .tf32SharedBytes = static_cast<unsigned>(kMma.stagedSharedBytes(DType::Tf32))},
  {"wgmma", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, static_cast<unsigned>(WgmmaRowLayout::kSharedBytes),
   wgmmaDense<MmaInput::Fp16, kWgmma.tile.BM, kWgmma.tile.BN, kWgmma.tile.BK, kWgmma.tile.WM, kWgmma.tile.WN,
              kWgmma.structure.ringStages, kWgmma.tile.threads>,
   wgmmaDense<MmaInput::Bf16, kWgmma.tile.BM, kWgmma.tile.BN, kWgmma.tile.BK, kWgmma.tile.WM, kWgmma.tile.WN,
              kWgmma.structure.ringStages, kWgmma.tile.threads>,
   nullptr, nullptr,
   wgmmaDense<MmaInput::Tf32, kWgmma.tile.BM, kWgmma.tile.BN, kWgmmaKTile<MmaInput::Tf32>, kWgmma.tile.WM, kWgmma.tile.WN,
              kWgmma.structure.ringStages, kWgmma.tile.threads>},
  {"a-row", nullptr, aRow<kARow.tile.BM, kARow.tile.BN, kARow.tile.BK, kARow.tile.TM, kARow.tile.TN, kARow.tile.threads,
                          kARow.aRowGranularity>},
  {"a-warp", nullptr, aWarp<kAWarp.tile.BM, kAWarp.tile.BN, kAWarp.tile.BK, kAWarp.tile.WM, kAWarp.tile.WN, kAWarp.tile.TM,
                            kAWarp.tile.TN, kAWarp.tile.threads, kAWarp.aRowGranularity, kAWarp.structure.kBlockList>},
  {"b-group8", nullptr, bGroup8<kBGroup8.tile.BM, kBGroup8.tile.BN, kBGroup8.tile.BK, kBGroup8.tile.TM, kBGroup8.tile.TN,
                                kBGroup8.tile.threads, kBGroup8.bColGranularity>},
  {"b-warp", nullptr, bWarp<kBWarp.tile.BM, kBWarp.tile.BN, kBWarp.tile.BK, kBWarp.tile.WM, kBWarp.tile.WN, kBWarp.tile.TM,
                            kBWarp.tile.TN, kBWarp.tile.threads, kBWarp.bColGranularity, kBWarp.structure.kBlockList>},
  {"joint-64x32", nullptr, joint64x32<kJoint64x32.tile.BM, kJoint64x32.tile.BN, kJoint64x32.tile.BK, kJoint64x32.tile.WM,
                                      kJoint64x32.tile.WN, kJoint64x32.tile.TM, kJoint64x32.tile.TN,
                                      kJoint64x32.tile.threads, kJoint64x32.aRowGranularity, kJoint64x32.bColGranularity, kJoint64x32.structure.kBlockList>},
  {"joint-32x32", nullptr, joint32x32<kJoint32x32.tile.BM, kJoint32x32.tile.BN, kJoint32x32.tile.BK, kJoint32x32.tile.WM,
                                      kJoint32x32.tile.WN, kJoint32x32.tile.TM, kJoint32x32.tile.TN,
                                      kJoint32x32.tile.threads, kJoint32x32.aRowGranularity, kJoint32x32.bColGranularity, kJoint32x32.structure.kBlockList>},
  {"joint-8x32", nullptr, joint8x32<kJoint8x32.tile.BM, kJoint8x32.tile.BN, kJoint8x32.tile.BK, kJoint8x32.tile.WM,
                                    kJoint8x32.tile.WN, kJoint8x32.tile.TM, kJoint8x32.tile.TN, kJoint8x32.tile.threads,
                                    kJoint8x32.aRowGranularity, kJoint8x32.bColGranularity, kJoint8x32.structure.kBlockList>},
  {"warp-joint-64x64", nullptr, warpJoint64x64<kWarpJoint64x64.tile.BM, kWarpJoint64x64.tile.BN, kWarpJoint64x64.tile.BK,
                                               kWarpJoint64x64.tile.WM, kWarpJoint64x64.tile.WN, kWarpJoint64x64.tile.TM,
                                               kWarpJoint64x64.tile.TN, kWarpJoint64x64.tile.threads,
                                               kWarpJoint64x64.aRowGranularity, kWarpJoint64x64.bColGranularity, kWarpJoint64x64.structure.kBlockList>},
  {"warp-joint-32x32", nullptr, warpJoint32x32<kWarpJoint32x32.tile.BM, kWarpJoint32x32.tile.BN, kWarpJoint32x32.tile.BK,
                                               kWarpJoint32x32.tile.WM, kWarpJoint32x32.tile.WN, kWarpJoint32x32.tile.TM,
                                               kWarpJoint32x32.tile.TN, kWarpJoint32x32.tile.threads,
                                               kWarpJoint32x32.aRowGranularity, kWarpJoint32x32.bColGranularity, kWarpJoint32x32.structure.kBlockList>},
  {.id = "mma-joint-64x32",
   .fp16Skipping = mmaJoint64x32<MmaInput::Fp16, kMmaJoint64x32.tile.BM, kMmaJoint64x32.tile.BN, kMmaJoint64x32.tile.BK,
                                 kMmaJoint64x32.tile.WM, kMmaJoint64x32.tile.WN, kMmaJoint64x32.structure.ringStages,
                                 kMmaJoint64x32.tile.threads, kMmaJoint64x32.aRowGranularity, kMmaJoint64x32.bColGranularity,
                                 kMmaJoint64x32.structure.kBlockList>,
   .bf16Skipping = mmaJoint64x32<MmaInput::Bf16, kMmaJoint64x32.tile.BM, kMmaJoint64x32.tile.BN, kMmaJoint64x32.tile.BK,
                                 kMmaJoint64x32.tile.WM, kMmaJoint64x32.tile.WN, kMmaJoint64x32.structure.ringStages,
                                 kMmaJoint64x32.tile.threads, kMmaJoint64x32.aRowGranularity, kMmaJoint64x32.bColGranularity,
                                 kMmaJoint64x32.structure.kBlockList>,
   .dynamicSharedBytes = static_cast<unsigned>(kMmaJoint64x32.stagedSharedBytes(DType::Fp16)),
   .tf32Skipping = mmaJoint64x32<MmaInput::Tf32, kMmaJoint64x32.tile.BM, kMmaJoint64x32.tile.BN, kMmaJoint64x32.tile.BK,
                                 kMmaJoint64x32.tile.WM, kMmaJoint64x32.tile.WN, kMmaJoint64x32.structure.ringStages,
                                 kMmaJoint64x32.tile.threads, kMmaJoint64x32.aRowGranularity, kMmaJoint64x32.bColGranularity,
                                 kMmaJoint64x32.structure.kBlockList>,
   .tf32SharedBytes = static_cast<unsigned>(kMmaJoint64x32.stagedSharedBytes(DType::Tf32))},
  {"wgmma-joint-64x64", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
   static_cast<unsigned>(wgmmaJointSharedBytes<kWgmmaJoint64x64.tile.BM, kWgmmaJoint64x64.tile.BN, kWgmmaJoint64x64.tile.BK,
                                               kWgmmaJoint64x64.structure.ringStages, kWgmmaJoint64x64.structure.kBlockList>()),
   nullptr, nullptr,
   wgmmaJoint64x64<MmaInput::Fp16, kWgmmaJoint64x64.tile.BM, kWgmmaJoint64x64.tile.BN, kWgmmaJoint64x64.tile.BK,
                   kWgmmaJoint64x64.tile.WM, kWgmmaJoint64x64.tile.WN, kWgmmaJoint64x64.structure.ringStages,
                   kWgmmaJoint64x64.tile.threads, kWgmmaJoint64x64.aRowGranularity, kWgmmaJoint64x64.bColGranularity,
                   kWgmmaJoint64x64.structure.kBlockList>,
   wgmmaJoint64x64<MmaInput::Bf16, kWgmmaJoint64x64.tile.BM, kWgmmaJoint64x64.tile.BN, kWgmmaJoint64x64.tile.BK,
                   kWgmmaJoint64x64.tile.WM, kWgmmaJoint64x64.tile.WN, kWgmmaJoint64x64.structure.ringStages,
                   kWgmmaJoint64x64.tile.threads, kWgmmaJoint64x64.aRowGranularity, kWgmmaJoint64x64.bColGranularity,
                   kWgmmaJoint64x64.structure.kBlockList>},
};
// clang-format on

// Entry i is the catalogue's twin kernel i: same id, and of its kind: a dense or skipping SIMT
// launcher, or a pair of tensor-core instances, dense or skipping (or warpgroup ones, on Hopper),
// and a tf32 one where the row takes tf32, for a row on the tensor cores.
constexpr bool tableMatchesCatalogue() {
  std::size_t twins = 0;
  while (twins < kCatalogue.size() && !kCatalogue[twins].isBaseline()) ++twins;
  if (std::size(kGemmKernels) != twins) return false;
  for (std::size_t i = 0; i < twins; ++i) {
    const GemmKernel& entry = kGemmKernels[i];
    const bool hopper = kCatalogue[i].needsHopper();
    const bool tensor = kCatalogue[i].usesTensorCores() && !hopper, skips = kCatalogue[i].skips();
    if (entry.id != kCatalogue[i].id || (entry.dense != nullptr) != (!tensor && !hopper && !skips) ||
        (entry.skipping != nullptr) != (!tensor && !hopper && skips) || (entry.fp16 != nullptr) != (tensor && !skips) ||
        (entry.bf16 != nullptr) != (tensor && !skips) || (entry.fp16Skipping != nullptr) != (tensor && skips) ||
        (entry.bf16Skipping != nullptr) != (tensor && skips) || (entry.fp16Warpgroup != nullptr) != (hopper && !skips) ||
        (entry.bf16Warpgroup != nullptr) != (hopper && !skips) || (entry.fp16WarpgroupSkipping != nullptr) != (hopper && skips) ||
        (entry.bf16WarpgroupSkipping != nullptr) != (hopper && skips) || (entry.dynamicSharedBytes > 0) != (tensor || hopper) ||
        (entry.tf32Warpgroup != nullptr) != (hopper && !skips && kCatalogue[i].takes(DType::Tf32)) ||
        (entry.tf32 != nullptr) != (tensor && !skips && kCatalogue[i].takes(DType::Tf32)) ||
        (entry.tf32Skipping != nullptr) != (tensor && skips && kCatalogue[i].takes(DType::Tf32)) ||
        (entry.tf32SharedBytes > 0) != (tensor && kCatalogue[i].takes(DType::Tf32))) {
      return false;
    }
  }
  return true;
}
// GCC's AddressSanitizer build turns off -fdelete-null-pointer-checks, after which a function's
// address is no longer known to be non-null at compile time: there the check cannot be a
// constant expression, and tests/test_cuda_emulation.cpp makes it at run time instead.
#if !defined(__SANITIZE_ADDRESS__)
static_assert(tableMatchesCatalogue(), "kGemmKernels must list every twin kernel of kCatalogue, in its order");
#endif

inline const GemmKernel* findGemmKernel(std::string_view id) {
  for (const GemmKernel& k : kGemmKernels) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

// Thread blocks a launch of a kernel with this tile needs for an M x N output (blocks are
// numbered along one grid dimension, see BlockTile).
inline long long gemmBlockCount(const TileShape& tile, int m, int n) {
  return static_cast<long long>((m + tile.BM - 1) / tile.BM) * ((n + tile.BN - 1) / tile.BN);
}

}  // namespace tileskip::cuda
