// A kernel instance: one catalogue row compiled for one dtype it takes. The instance table
// (kernel_instances.cuh, generated at configure time from the catalogue's rows x each row's dtypes
// by kernels/list_instances.cpp) lists them all; everything here reads the row, so no kernel is
// named in it. Every kernel source declares its kernel the same way,
//   template <const KernelInfo& Row, DType D> __global__ void <source>(ARGUMENTS)
// where ARGUMENTS are what kernelArguments() makes of the operands for that row: A (for a bsr row,
// packed: its PackedA), B, C and the sizes; after them the patterns and the tile queue for a row
// that skips by patterns; before them the copy engine's maps of A and B for a Hopper row.
//
// Compiled by nvcc for the CUDA module, where an instance is launched, and as C++ for the CPU
// emulator of the tests (TILESKIP_CUDA_EMULATION), where each emulated thread calls it.
#pragma once

#include <cstdint>
#include <tuple>

#include "backends/cuda/gemm_operands.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "core/model/shape_rules.hpp"
#include "kernels/parts/packed.cuh"     // PackedA
#include "kernels/parts/ring.cuh"       // mmaSharedBytes
#include "kernels/parts/warpgroup.cuh"  // WgmmaLayout, WgmmaKTileList, bulkCopiesFit
#include "kernels/s15_compact_wgmma_128.cuh"  // wgmmaGatherSharedBytes

#if !defined(TILESKIP_CUDA_EMULATION)
#include <cuda_runtime_api.h>

#include "backends/cuda/bulk_copy_host.hpp"
#include "backends/cuda/cuda_check.hpp"
#endif

namespace tileskip::cuda {

// Thread blocks a launch of a kernel with this tile needs for an M x N output (blocks are
// numbered along one grid dimension, see BlockTile).
inline long long gemmBlockCount(const TileShape& tile, int m, int n) {
  return static_cast<long long>((m + tile.BM - 1) / tile.BM) * ((n + tile.BN - 1) / tile.BN);
}

// The blocks a launch of `row` on these operands takes: one per block tile, or for a streaming bsr
// kernel one per unit of its plan and column tile (a persistent kernel takes fewer: the launcher's).
inline long long gridBlocks(const KernelInfo& row, const GemmOperands& op) {
  if (row.structure.scheduling == Scheduling::SplitBlocks) {
    return static_cast<long long>(op.streamUnitCount) * ((op.n + row.tile.BN - 1) / row.tile.BN);
  }
  return gemmBlockCount(row.tile, op.m, op.n);
}

// The words a kernel of `D` reads A and B as: fp32 values, 16-bit words, or tf32's 32-bit ones.
template <DType D>
using InputWord = std::conditional_t<D == DType::Fp32, float,
                                     std::conditional_t<D == DType::Tf32, std::uint32_t, std::uint16_t>>;

// The dynamic shared memory an instance's launch asks for: a tensor-core ring's stages (and a
// warpgroup skipping kernel's list beside them); 0 for the kernels whose shared memory is static.
template <const KernelInfo& Row, DType D>
constexpr unsigned dynamicSharedBytes() {
  constexpr TileShape t = Row.tile;
  if constexpr (Row.structure.loop == MainLoop::StageRing || Row.structure.loop == MainLoop::GatherRing) {
    constexpr std::size_t bytes = mmaSharedBytes<D, t.BM, t.BN, t.BK, Row.structure.ringStages, Row.readsTransposedA()>();
    static_assert(bytes == static_cast<std::size_t>(Row.stagedSharedBytes(D)), "the ring is the stages the row describes");
    return static_cast<unsigned>(bytes);
  } else if constexpr (Row.structure.loop == MainLoop::BulkCopyRing) {
    using Layout = WgmmaLayout<D, t.BM, t.BN, Row.kTileDepth(D), Row.structure.ringStages>;
    static_assert(Layout::kStageBytes * Row.structure.ringStages == Row.stagedSharedBytes(), "the ring is the stages the row describes");
    // Beside the ring, a skipping kernel's list of its tile's K-tiles (S11), or the notes that
    // tell the consumers what each stage holds (S12, persistent).
    if constexpr (Row.skips() && Row.persistent()) return static_cast<unsigned>(wgmmaQueueSharedBytes<t.BM, t.BN, t.BK, Row.structure.ringStages>());
    if constexpr (Row.skips()) return static_cast<unsigned>(Layout::kSharedBytes + sizeof(WgmmaKTileList<t.BK, Row.structure.kBlockList>));
    return static_cast<unsigned>(Layout::kSharedBytes);
  } else if constexpr (Row.structure.loop == MainLoop::SwizzledGatherRing) {
    static_assert(WgmmaLayout<D, t.BM, t.BN, t.BK, Row.structure.ringStages>::kStageBytes * Row.structure.ringStages ==
                      Row.stagedSharedBytes(),
                  "the ring is the stages the row describes");
    return static_cast<unsigned>(wgmmaGatherSharedBytes<t.BM, t.BN, t.BK, Row.structure.ringStages, Row.structure.kBlockList>());
  } else {
    return 0;
  }
}

// The copy engine's maps of A (M x K) and of B as a Hopper kernel reads it (16-bit B is K x N, read
// in boxes of a swizzled row of columns by BK rows; tf32's is transposed, N x K, in boxes of one
// swizzled row of K by all BN rows), and whether to use them: where a row is not 16-byte aligned
// (bulkCopiesFit) the kernel copies element by element instead. A compaction kernel reads A
// transposed (K rows of transposedRowLength(M)), in boxes of a swizzled row of rows by BK K-rows,
// as it reads B.
struct WarpgroupMaps {
  BulkTensorMap a{}, b{};
  bool bulk = false;
};

template <const KernelInfo& Row, DType D>
WarpgroupMaps warpgroupMaps(const InputWord<D>* a, const InputWord<D>* b, const GemmOperands& op) {
  WarpgroupMaps maps;
  // A transposed's rows are transposedRowLength(M) long: always whole 16-byte steps; a packed A's
  // kept blocks are whole swizzled rows, stacked (packedKeptBlocks blocks of WM rows).
  const int atRow = transposedRowLength(op.m);
  maps.bulk = Row.readsTransposedA() ? bulkCopiesFit(D, op.n, atRow) : Row.readsPackedA() ? bulkCopiesFit(D, op.n, Row.packedBlock())
                                                                                           : bulkCopiesFit(D, op.n, op.k);
  const int packedRows = std::max(1, op.packedKeptBlocks) * Row.tile.WM;
  const auto* packed = static_cast<const InputWord<D>*>(op.packedValues);
#if defined(TILESKIP_CUDA_EMULATION)
  constexpr int valueBytes = static_cast<int>(sizeof(InputWord<D>));
  maps.a = Row.readsTransposedA() ? BulkTensorMap{a, atRow, op.k, kRowValues<D>, Row.tile.BK, valueBytes}
           : Row.readsPackedA()   ? BulkTensorMap{packed, Row.packedBlock(), packedRows, kRowValues<D>, Row.tile.WM, valueBytes}
                                  : BulkTensorMap{a, op.k, op.m, kRowValues<D>, Row.tile.BM, valueBytes};
  maps.b = D == DType::Tf32 ? BulkTensorMap{b, op.k, op.n, kRowValues<D>, Row.tile.BN, valueBytes}
                            : BulkTensorMap{b, op.n, op.k, kRowValues<D>, Row.tile.BK, valueBytes};
#else
  if (!maps.bulk) return maps;
  try {
    maps.a = Row.readsTransposedA() ? encodeBulkTensorMap(a, atRow, op.k, Row.tile.BK)
             : Row.readsPackedA()   ? encodeBulkTensorMap(packed, Row.packedBlock(), packedRows, Row.tile.WM)
                                    : encodeBulkTensorMap(a, op.k, op.m, Row.tile.BM);
    maps.b = D == DType::Tf32 ? encodeBulkTensorMap(b, op.k, op.n, Row.tile.BN) : encodeBulkTensorMap(b, op.n, op.k, Row.tile.BK);
  } catch (const std::runtime_error& e) {
    throw UnavailableError(std::string(e.what()));
  }
#endif
  return maps;
}

// The arguments of the row's kernel for the operands, in the order every source declares them.
template <const KernelInfo& Row, DType D>
auto kernelArguments(const GemmOperands& op) {
  const InputWord<D>* a = nullptr;
  const InputWord<D>* b = nullptr;
  if constexpr (D == DType::Fp32) {
    a = Row.readsTransposedA() ? op.aTransposed : op.a, b = op.b;
  } else if constexpr (D == DType::Tf32) {  // A and transposed B as fp32 words (mma.cuh's MmaInputType)
    a = reinterpret_cast<const std::uint32_t*>(op.a), b = reinterpret_cast<const std::uint32_t*>(op.bTransposed);
  } else {
    a = Row.readsTransposedA() ? op.aHalfTransposed : op.aHalf, b = op.bHalf;
  }
  // A packed is its kept blocks and their index (parts/packed.cuh), its list of K-blocks: no patterns.
  auto aOperand = [&] {
    if constexpr (Row.readsPackedA()) {
      return PackedA<InputWord<D>>{static_cast<const InputWord<D>*>(op.packedValues), op.packedIndex, op.packedBlockRows};
    } else {
      return a;
    }
  }();
  auto problem = std::make_tuple(aOperand, b, op.c, op.m, op.n, op.k);
  auto skipping = [&] {
    if constexpr (Row.skips() && !Row.readsPackedA()) {
      return std::make_tuple(op.aPattern, op.bPattern, op.tileQueue);
    } else if constexpr (Row.persistent()) {  // a bsr kernel on a queue: its index is its list
      return std::make_tuple(op.tileQueue);
    } else {
      return std::tuple<>();
    }
  }();
  auto schedule = [&] {
    if constexpr (Row.structure.scheduling == Scheduling::SplitBlocks) {
      return std::make_tuple(BlockStream{op.streamUnits, op.streamCounters, op.streamPartials});
    } else {
      return std::tuple<>();
    }
  }();
  if constexpr (Row.needsHopper()) {
    const WarpgroupMaps maps = warpgroupMaps<Row, D>(a, b, op);
    return std::tuple_cat(std::make_tuple(maps.a, maps.b, maps.bulk), problem, skipping, schedule);
  } else {
    return std::tuple_cat(problem, skipping, schedule);
  }
}

// Why the operands lack what the row's kernel reads (made by the backend's prepare()), or nullptr.
template <const KernelInfo& Row, DType D>
const char* missingOperand(const GemmOperands& op) {
  if (op.dtype != D) return "operands of another dtype than the instance's";
  if (D == DType::Tf32 && op.bTransposed == nullptr) return "launched before its transposed B was made";
  // A compaction kernel reads A only transposed (an MLP layer's first GEMM writes H so, and no other copy).
  if (Row.readsPackedA() && (op.packedValues == nullptr || op.packedIndex == nullptr)) return "launched before its packed A was made";
  if (Row.readsTransposedA() && (D == DType::Fp32 ? op.aTransposed == nullptr : op.aHalfTransposed == nullptr)) {
    return "launched before its transposed A was made";
  }
  if ((D == DType::Fp16 || D == DType::Bf16) &&
      ((!Row.readsTransposedA() && !Row.readsPackedA() && op.aHalf == nullptr) || op.bHalf == nullptr)) {
    return "launched before its 16-bit inputs were made";
  }
  if ((Row.buildsAPattern() && op.aPattern == nullptr) || (Row.usesBPattern() && op.bPattern == nullptr)) {
    return "launched before its skip patterns were built";
  }
  if (Row.persistent() && op.tileQueue == nullptr) return "needs a block tile queue";
  if (Row.structure.scheduling == Scheduling::SplitBlocks && (op.streamUnits == nullptr || op.streamCounters == nullptr)) {
    return "launched before its plan of units was made";
  }
  return nullptr;
}

struct GemmInstance {
  const KernelInfo* row;
  DType dtype;
  unsigned dynamicSharedBytes;
#if defined(TILESKIP_CUDA_EMULATION)
  // The kernel as each emulated thread runs it (inside emu::launch, one block after another).
  void (*call)(const GemmOperands&);
#else
  const void* function;  // the __global__ function, for the runtime's attribute and occupancy queries
  void (*launch)(const GemmInstance&, const GemmOperands&, unsigned blocks, cudaStream_t);
#endif
};

template <class Function>
struct KernelParameters;
template <class... Parameters>
struct KernelParameters<void (*)(Parameters...)> {
  using Tuple = std::tuple<std::remove_cv_t<Parameters>...>;
};

template <const KernelInfo& Row, DType D, auto Kernel>
void runInstance([[maybe_unused]] const GemmInstance& self, const GemmOperands& op, [[maybe_unused]] unsigned blocks,
                 [[maybe_unused]] void* stream) {
  if (const char* missing = missingOperand<Row, D>(op)) throw InputError("kernel '" + std::string(Row.id) + "' " + missing);
  // The kernel's own parameter types, so that each argument is passed exactly as it is declared.
  typename KernelParameters<decltype(Kernel)>::Tuple arguments = kernelArguments<Row, D>(op);
#if defined(TILESKIP_CUDA_EMULATION)
  std::apply(Kernel, arguments);
#else
  std::apply(
      [&](auto&... argument) {
        void* pointers[] = {&argument...};
        check(cudaLaunchKernel(self.function, dim3(blocks), dim3(static_cast<unsigned>(Row.tile.threads)), pointers,
                               self.dynamicSharedBytes, static_cast<cudaStream_t>(stream)),
              ("launching kernel " + std::string(Row.id)).c_str());
      },
      arguments);
#endif
}

// The table's entry for the row's kernel `Kernel` instantiated for dtype `D`.
template <const KernelInfo& Row, DType D, auto Kernel>
GemmInstance instance() {
  static_assert(Row.takes(D), "an instance of a dtype the row takes");
  static_assert(shapeProblem(Row) == nullptr, "the row's tile can be built by its structure (shapeProblem says why not)");
  // The catalogue's own row, not the generated copy the template takes.
  const KernelInfo* row = findKernelInfo(Row.id);
#if defined(TILESKIP_CUDA_EMULATION)
  return {row, D, dynamicSharedBytes<Row, D>(), [](const GemmOperands& op) { runInstance<Row, D, Kernel>({}, op, 0, nullptr); }};
#else
  return {row, D, dynamicSharedBytes<Row, D>(), reinterpret_cast<const void*>(Kernel),
          [](const GemmInstance& self, const GemmOperands& op, unsigned blocks, cudaStream_t stream) {
            runInstance<Row, D, Kernel>(self, op, blocks, stream);
          }};
#endif
}

}  // namespace tileskip::cuda
