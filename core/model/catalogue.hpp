// The kernel catalogue: the single source of truth for every kernel id. The CLI's help, the
// reports, the tests, the viewer and both backends read this one table; tile shapes and
// pattern granularities live here once. The table is constexpr so CUDA code can take its tile
// parameters as template arguments and GLSL pipelines as specialization constants.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/model/dtype.hpp"

namespace tileskip {

// The K-block: 8 consecutive indices of K, so the pattern of one K-block fits a byte.
inline constexpr int kKBlock = 8;

// A transposed, the copy the compaction kernels read (a live column of A is one row of it): K rows
// of M values, each row padded with zeros to a multiple of kTransposedRowAlign values, so every row
// starts on a 16-byte boundary (32 in fp32) and is copied in whole vectors whatever M is (unpadded,
// an M that is not a multiple of 8 left S15's copies element by element, 85x slower than cuBLAS:
// lab/59-l1-trained-relu). The padding reaches only C's rows past M, which no kernel stores.
// The GLSL twin is common.glsl's transposedRowLength.
inline constexpr int kTransposedRowAlign = 8;
constexpr int transposedRowLength(int m) { return (m + kTransposedRowAlign - 1) / kTransposedRowAlign * kTransposedRowAlign; }

// CUDA's warp. A GLSL kernel's "warp" is 32 invocations too, whatever the subgroup size, so the
// catalogue's WM x WN tile means the same outputs in both twins.
inline constexpr int kWarpLanes = 32;
// A warpgroup: the four warps that issue one Hopper warpgroup MMA together (WarpgroupMmaTiles).
inline constexpr int kWarpgroupThreads = 4 * kWarpLanes;

enum class KernelFamily {
  Dense,     // computes every rank-1 update
  SkipA,     // skips by the A-pattern only
  SkipB,     // skips by the B-pattern only
  Joint,     // skips by a_pat & b_pat
  Compact,   // gathers the K columns live in a block's rows of A (zeros spread out, not in blocks)
  Bsr,       // reads A packed (core/model/block_sparse.hpp): its kept blocks and their index, no pattern
  Baseline,  // a vendor library (cuBLAS, cuSPARSE, OpenBLAS), not one of our twins
};

std::string_view familyName(KernelFamily family);

// Tile parameters, in the names every kernel file uses.
//   BM x BN: output tile of one thread block / workgroup; BK: K-depth staged in shared memory, in
//            values (a warpgroup row counts its narrowest input's: a tf32 K-tile there is the
//            same 128-byte swizzled row, half as deep)
//   WM x WN: output tile of one warp (32 invocations in GLSL, whatever the subgroup size)
//   TM x TN: outputs per thread in one warp sub-iteration; threads: block / workgroup size
// A field a kernel does not use is 0 (the naive kernel has no warp tile).
struct TileShape {
  int BM = 0, BN = 0, BK = 0;
  int WM = 0, WN = 0;
  int TM = 0, TN = 0;
  int threads = 0;
  bool operator==(const TileShape&) const = default;
};

// How the threads of a block (invocations of a workgroup) share out the block tile's outputs.
// The rule of each mapping is written once, in threadOutputs() (core/model/tile_layout.hpp); both
// twins and the viewer's teaching model follow it, and a conformance test probes both backends.
enum class ThreadMapping {
  None,               // a vendor baseline: not ours to describe
  OutputDownColumns,  // one output per thread, consecutive threads down a column of C (K1's lesson)
  OutputAlongRows,    // one output per thread, consecutive threads along a row of C
  ColumnOfOutputs,    // TM consecutive rows of one column per thread, threads along N
  ThreadTile,         // a TM x TN block of outputs per thread, threads along N
  WarpTile,           // a WM x WN tile per warp, its 32 lanes in a 4 x 8 grid of TM x TN sub-tiles
  MmaTiles,           // a WM x WN tile per warp in the tensor cores' 16 x 8 output tiles, each lane holding
                      // rows l/4 and l/4 + 8, columns 2(l%4) and 2(l%4) + 1 of every one (TM = TN = 0)
  WarpgroupMmaTiles,  // the first warpgroup (4 warps) owns no outputs (it copies); every other owns a WM x WN
                      // tile, its warp w the rows 16w .. 16w + 15 of it in MmaTiles' 16 x 8 fragments
  RowStrips,          // TM rows BM / TM apart and TN consecutive columns per thread: thread t the rows
                      // t % (BM / TM) + (BM / TM) i and the columns (t / (BM / TM)) TN .. + TN - 1; a row of
                      // A then meets each value of B it needs in one thread, for any number of columns
};

// How the main loop over K stages the operands: what the shaders' shared memory and pipelines
// follow, and what a tile shape must satisfy to be built.
enum class MainLoop {
  Global,          // no shared memory: every product reads global memory (BK = 1)
  Staged,          // one BM x BK tile of A and one BK x BN of B per step, scalar loads
  Vectorized,      // the same with 128-bit loads and A stored transposed, its rows padded
  DoubleBuffered,  // two Vectorized stages: the next one loads while this one computes
  Hoisted,         // DoubleBuffered with addresses hoisted out of the loop, loads in fixed passes; blocks
                   // inside the matrices stream K-tiles unchecked, with no branch in the loop (CUDA steps
                   // running pointers; GLSL adds each K-tile's offset, 1 % faster on NVIDIA's Vulkan driver)
  KBlockList,      // Hoisted's two stages fed from a gathered list of the K-blocks a tile needs, one
                   // K-block a K-tile (BK = 8), each marked whole when every pattern tile keeps all its
                   // depths (then no pattern read); a list of whole ones runs with no branch on the pattern
  StageRing,       // a ring of ringStages K-tiles of 16-bit values, rows padded by 8 elements: K-tile
                   // t + ringStages - 1 is on its way while t is multiplied (no transposed A). The CUDA
                   // twin stages them all (cp.async lands in shared memory); the GLSL twin, with no
                   // asynchronous copy, carries the ringStages - 1 on their way in registers and stages
                   // ringStages - 1: the one multiplied and the one the next lands in (glslRingStages)
  GatherHoisted,   // Hoisted's two stages over the block's live K columns, BK of them a K-tile in K order: a
                   // column is a row of A transposed (K x M, made in the preparation) and a row of B, both
                   // loaded as 128-bit vectors, A's row stored as the transposed stage's row (As[k][m]) as it
                   // is. The block lists its columns from the A-pattern at its height, kBlockList K-blocks a pass
  GatherRing,      // StageRing's ring over the block's live K columns, BK of them a K-tile in K order: a column
                   // is a row of A transposed (K x M, made in the preparation) and a row of B, so both
                   // arrive in 16-byte copies; A's stage is K-major, its MMA operands read by transposing
                   // loads. The block lists its columns from the A-pattern at its height, kBlockList
                   // K-blocks a pass
  BulkCopyRing,    // ringStages stages of 16-bit tiles in 128-byte swizzled rows (BK = 64 values), filled by
                   // the copy engine for a producer warpgroup and read by the consumers' warpgroup MMAs, a
                   // full and an empty mbarrier per stage between them: Hopper only, so CUDA only
  StreamedBlocks,  // each kept block of A read once, straight from global memory into the registers of the
                   // threads whose rows it holds, K-block by K-block (BK = the block: a step is a kept
                   // block); B's rows for it are staged in two stages of shared memory (BK x BN, widened to
                   // fp32), one filled while the other is read
  PackedBlocks,    // Hoisted's two stages over the kept blocks of the block tile's block row (A packed: its
                   // blocks square, BM on a side), BK deep a K-tile in the index's order: A's K-tile is a slice
                   // of one kept block, BM rows of its row-major values, B's the rows of B it multiplies
  SwizzledGatherRing,  // BulkCopyRing's stages, roles and mbarriers over the block's live K columns, BK of them a
                       // K-tile in K order (GatherRing's list and rows of A transposed): the producer warpgroup
                       // copies the scattered rows itself in 16-byte asynchronous copies (the copy engine moves
                       // boxes, a copy per 128-byte row here), and A's stage is M-major, laid out as B's, read
                       // by MMAs that take A transposed. Hopper only, so CUDA only
};

// How block tiles are given to blocks.
enum class Scheduling {
  TilePerBlock,  // one block per block tile (blockIdx / gl_WorkGroupID)
  Persistent,    // as many blocks as are resident; they take block tiles from a queue
  SplitBlocks,   // a block per unit of a packed A's kept blocks (BlockStreamPlan) and column tile: a block
                 // row split over units sums their partial tiles in the units' order, in the last to finish
};

// Who decides a skip, and so what it can save.
enum class SkipScope {
  None,    // a dense kernel
  Thread,  // each thread by its own pattern byte: lanes of a warp disagree (a teaching kernel)
  Warp,    // each warp per pattern tile of its sub-tiles, and the block per K-block for loads
  Block,   // the block per K column: a column no row of its tile needs is neither loaded nor multiplied
  Topology,  // the packed A's own: a block it does not store is never read, loaded or multiplied
};

// The vendor routine a baseline row runs: what its backend calls (our twins: None).
enum class VendorRoutine {
  None,
  CublasGemm,       // cuBLAS in the problem's dtype (SGEMM with TF32 off for fp32, cublasGemmEx otherwise)
  CusparseCsrSpmm,  // cuSPARSE SpMM of A in CSR: its work follows A's non-zeros, not tiles
  OpenblasSgemm,    // OpenBLAS SGEMM on the host
};

struct KernelStructure {
  ThreadMapping mapping = ThreadMapping::None;
  MainLoop loop = MainLoop::Global;
  Scheduling scheduling = Scheduling::TilePerBlock;
  SkipScope skip = SkipScope::None;
  // A warp-uniform skip only: the K-blocks gathered per pass (longer K takes passes). It is shared memory
  // beside the stages: 1024 covers K = 8192 in one pass; the one-warp kernels take 512, since
  // NVIDIA's Vulkan driver ran them 1.37x faster with 2 KB less (lab/14-vulkan-shared-memory).
  int kBlockList = 0;
  // The input precisions it takes (the problem's --dtype): fp32 for the SIMT kernels, the 16-bit
  // types for the tensor-core ones, and tf32 too for those whose MMA reads 32-bit words: the warp
  // MMA rows (m16n8k8) and the dense warpgroup row (wgmma k8). tf32 is read along K only: B arrives
  // transposed, made in the kernel's preparation. Accumulation is fp32 everywhere.
  DTypeSet dtypes = kFp32Inputs;
  // The rings only: the shared-memory stages of its ring.
  int ringStages = 0;
  // A baseline only: the vendor routine it is.
  VendorRoutine vendor = VendorRoutine::None;
  // A gather ring on Hopper (SwizzledGatherRing) only, 0 elsewhere: a K-tile's range of BK columns
  // in which a block's rows need at least this many is copied whole by the copy engine, dead columns
  // and all (their zeros multiply), where its boxes can (N a multiple of 8: A transposed's rows are
  // padded to whole boxes, transposedRowLength); the others' live
  // columns are gathered. The copy engine moves a range about twice as fast as the gather moves
  // its columns, so half a range is where whole starts to pay.
  int wholeRangeColumns = 0;
};

struct KernelInfo {
  std::string_view id;       // the dispatch key, e.g. "joint-8x32"
  std::string_view number;   // its place in the progression, e.g. "S7"
  std::string_view stem;     // its name in the build: "s07_joint_8x32" (the SPIR-V of its GLSL twin, its lane probe)
  // The twin pair that implements it, kernels/<source>.cuh and kernels/<source>.comp (where
  // hasGlslTwin()): its stem, or a source several rows are variants of, built for each row alone.
  std::string_view source;
  KernelFamily family;
  TileShape tile;
  int aGranularity;       // rows per A-pattern tile (8, 32, 64), 0 when A is not inspected
  int bGranularity;       // columns per B-pattern tile (8, 32, 64), 0 when B is not inspected
  KernelStructure structure;  // how both twins are built
  std::string_view summary;  // one line: what this kernel teaches

  constexpr bool skips() const {
    return family == KernelFamily::SkipA || family == KernelFamily::SkipB || family == KernelFamily::Joint ||
           family == KernelFamily::Compact || family == KernelFamily::Bsr;
  }
  constexpr bool compacts() const { return family == KernelFamily::Compact; }
  // Reads A transposed (K x M) in the problem's dtype: a live column is then one row.
  constexpr bool readsTransposedA() const { return compacts(); }
  // Reads A packed in square blocks of packedBlock() on a side (core/model/block_sparse.hpp): its
  // aGranularity is that block, whose rows and K-blocks its tiles follow, and it builds no pattern.
  constexpr bool readsPackedA() const { return family == KernelFamily::Bsr; }
  constexpr int packedBlock() const { return readsPackedA() ? aGranularity : 0; }
  // Inspects A at aGranularity: by a pattern its backend builds per call, or, packed, by its blocks.
  constexpr bool usesAPattern() const { return aGranularity > 0; }
  // Reads an A-pattern the backend builds on the device before it runs.
  constexpr bool buildsAPattern() const { return usesAPattern() && !readsPackedA(); }
  constexpr bool usesBPattern() const { return bGranularity > 0; }
  constexpr bool isBaseline() const { return family == KernelFamily::Baseline; }
  // The skip is decided per thread on purpose (a teaching kernel): loads are never skipped.
  constexpr bool divergent() const { return structure.skip == SkipScope::Thread; }
  constexpr bool persistent() const { return structure.scheduling == Scheduling::Persistent; }
  constexpr bool hasWarpTile() const { return structure.mapping == ThreadMapping::WarpTile; }
  constexpr bool usesTensorCores() const {
    return structure.mapping == ThreadMapping::MmaTiles || structure.mapping == ThreadMapping::WarpgroupMmaTiles;
  }
  // Built on Hopper's warpgroup MMAs and mbarriers (compute capability 9.0), fed by its copy engine or by
  // a gathering producer's asynchronous copies: Vulkan has none of them, so such a row has a CUDA kernel
  // and no GLSL twin.
  constexpr bool needsHopper() const {
    return structure.loop == MainLoop::BulkCopyRing || structure.loop == MainLoop::SwizzledGatherRing;
  }
  constexpr bool hasGlslTwin() const { return !isBaseline() && !needsHopper(); }
  // The K-blocks one copy of its main loop spans: a block tile copies its rows and columns a run
  // of them deep wherever some product of the tile is kept in the run (the warpgroup ring copies
  // whole K-tiles, the other loops a K-block at a time). What a block loads over what its products
  // need is its union waste.
  constexpr int loadKBlocks() const {
    if (readsPackedA()) return packedBlock() / kKBlock;  // a kept block is loaded whole
    return structure.loop == MainLoop::BulkCopyRing ? tile.BK / kKBlock : 1;
  }
  // Whether it takes inputs of `type` (a baseline's: what its vendor routine offers).
  constexpr bool takes(DType type) const { return structure.dtypes.contains(type); }
  constexpr bool runs(VendorRoutine routine) const { return structure.vendor == routine; }
  // A vendor's dense GEMM (cuBLAS, OpenBLAS): what a user runs where tileskip has nothing better.
  constexpr bool isVendorGemm() const { return runs(VendorRoutine::CublasGemm) || runs(VendorRoutine::OpenblasSgemm); }

  // Shared-memory stages the main loop keeps (0: none), and the bytes of one stage for inputs of
  // `dtype`: the A and B tiles, plus the padding of the transposed A tile (4 floats per depth)
  // where loads are vectorized, or for a stage ring the tiles with 16 bytes of padding per row
  // (16-bit A BM x BK and B BK x BN; tf32 A and B transposed, BN x BK). Both twins declare exactly
  // this; a persistent kernel adds its K-block list (structure.kBlockList entries, fewer where a
  // Vulkan device's shared memory is smaller).
  constexpr int stages() const {
    switch (structure.loop) {
      case MainLoop::Global: return 0;
      case MainLoop::Staged:
      case MainLoop::Vectorized: return 1;
      case MainLoop::DoubleBuffered:
      case MainLoop::Hoisted:
      case MainLoop::KBlockList:
      case MainLoop::GatherHoisted:
      case MainLoop::StreamedBlocks:
      case MainLoop::PackedBlocks: return 2;
      case MainLoop::StageRing:
      case MainLoop::GatherRing:
      case MainLoop::BulkCopyRing:
      case MainLoop::SwizzledGatherRing: return structure.ringStages;
    }
    return 0;
  }
  constexpr bool transposesA() const {
    return stages() > 0 && structure.loop != MainLoop::Staged && structure.loop != MainLoop::StageRing &&
           structure.loop != MainLoop::GatherRing && structure.loop != MainLoop::StreamedBlocks && !needsHopper();
  }
  constexpr int stageFloats() const {
    if (structure.loop == MainLoop::StreamedBlocks) return tile.BK * tile.BN;  // B's rows alone: A is never staged
    return stages() > 0 ? tile.BM * tile.BK + tile.BK * tile.BN + (transposesA() ? 4 * tile.BK : 0) : 0;
  }
  constexpr int stageBytes(DType dtype = DType::Fp16) const {
    if (structure.loop == MainLoop::StageRing && dtype == DType::Tf32) return 4 * (tile.BM + tile.BN) * (tile.BK + 4);
    if (structure.loop == MainLoop::StageRing) return 2 * (tile.BM * (tile.BK + 8) + tile.BK * (tile.BN + 8));
    if (structure.loop == MainLoop::GatherRing) return 2 * tile.BK * ((tile.BM + 8) + (tile.BN + 8));  // both K-major
    if (needsHopper()) return 2 * (tile.BM * tile.BK + tile.BK * tile.BN);  // swizzled, unpadded
    return 4 * stageFloats();
  }
  constexpr int stagedSharedBytes(DType dtype = DType::Fp16) const { return stages() * stageBytes(dtype); }
  // K values one stage holds for inputs of `dtype`: BK, except in a copy-engine ring of tf32, whose
  // 128-byte rows hold half as many 32-bit values.
  constexpr int kTileDepth(DType dtype) const {
    return structure.loop == MainLoop::BulkCopyRing && dtype == DType::Tf32 ? tile.BK / 2 : tile.BK;
  }
};

// Why a row's structure contradicts the rest of it, or nullptr: checked for every row at
// compile time below, so a row cannot describe a kernel that does not hang together.
constexpr const char* structureContradiction(const KernelInfo& k) {
  const KernelStructure& s = k.structure;
  if (k.isBaseline() != (s.mapping == ThreadMapping::None)) return "a baseline, and only a baseline, has no thread mapping";
  if (k.isBaseline() != (s.vendor != VendorRoutine::None)) return "a baseline, and only a baseline, runs a vendor routine";
  if (k.isBaseline()) return nullptr;
  if (k.skips() != (s.skip != SkipScope::None)) return "a skipping family needs a skip scope, a dense one none";
  if ((s.mapping == ThreadMapping::WarpTile || s.mapping == ThreadMapping::MmaTiles ||
       s.mapping == ThreadMapping::WarpgroupMmaTiles) != (k.tile.WM > 0 && k.tile.WN > 0)) {
    return "a warp tile mapping needs WM, WN";
  }
  if (s.skip == SkipScope::Thread && s.mapping != ThreadMapping::ThreadTile) return "a per-thread skip needs thread tiles";
  if (s.skip == SkipScope::Warp && s.mapping != ThreadMapping::WarpTile && s.mapping != ThreadMapping::MmaTiles &&
      s.mapping != ThreadMapping::WarpgroupMmaTiles) {
    return "a warp-uniform skip needs warp tiles (of FMAs or of MMAs, a warp's or a warpgroup's)";
  }
  // A warpgroup kernel gathers with the whole block before its warpgroups split, a tile per block
  // (S11), or has its producer take tiles from a queue and tell the consumers what each stage holds (S12).
  if (s.loop != MainLoop::BulkCopyRing && (s.skip == SkipScope::Warp) != (s.scheduling == Scheduling::Persistent)) {
    return "the warp-uniform skipping kernels, and only they, are persistent";
  }
  if (s.loop == MainLoop::BulkCopyRing && s.scheduling == Scheduling::Persistent && s.skip != SkipScope::Warp &&
      s.skip != SkipScope::Topology) {
    return "a copy-engine ring takes tiles from a queue only to skip: its producer decides each tile's K-tiles";
  }
  // The SIMT ones walk it in K12's two stages (KBlockList), the tensor-core ones in their rings.
  if ((s.skip == SkipScope::Warp || s.skip == SkipScope::Block) != (s.kBlockList > 0)) {
    return "a warp-uniform or a block's skip, and only one, gathers a list over K-blocks of some length";
  }
  if (k.readsPackedA() != (s.skip == SkipScope::Topology)) {
    return "the bsr family, and only it, skips by the packed matrix's topology";
  }
  // A warp (or a warpgroup's) rows are one block row: a bsr tile is one block row tall, or, on
  // warpgroups, each consumer's.
  const int packedRows = s.mapping == ThreadMapping::WarpgroupMmaTiles ? k.tile.WM : k.tile.BM;
  if (k.readsPackedA() &&
      (k.aGranularity != packedRows || k.usesBPattern() || s.kBlockList != 0 || k.aGranularity % k.tile.BK != 0 ||
       (k.aGranularity != 16 && k.aGranularity != 32 && k.aGranularity != 64 && k.aGranularity != 128))) {
    return "a bsr kernel's tile (a consumer warpgroup's, on warpgroups) is one block row of the packed A tall (aGranularity, a "
           "block size the format takes, whole K-tiles deep), B is not inspected and its K-list is the index, not a gathered list";
  }
  if ((s.scheduling == Scheduling::SplitBlocks) != (s.loop == MainLoop::StreamedBlocks) ||
      (s.loop == MainLoop::StreamedBlocks) != (s.mapping == ThreadMapping::RowStrips) ||
      (s.loop == MainLoop::StreamedBlocks && (!k.readsPackedA() || k.tile.BK != k.tile.BM))) {
    return "the streaming bsr kernels, and only they, split a packed A's kept blocks into units and read each block once "
           "into row strips, a kept block a step (BK = BM)";
  }
  if ((s.loop == MainLoop::PackedBlocks) != (k.readsPackedA() && s.mapping == ThreadMapping::WarpTile)) {
    return "the SIMT bsr kernels, and only they, run K12's stages over the packed blocks";
  }
  if (s.loop == MainLoop::PackedBlocks && (k.tile.BK != kKBlock || s.scheduling != Scheduling::TilePerBlock)) {
    return "the packed two stages are K12's warp tiles fed one K-block of a kept block a K-tile (BK = 8), a tile per block";
  }
  const bool gathers = s.loop == MainLoop::GatherRing || s.loop == MainLoop::SwizzledGatherRing || s.loop == MainLoop::GatherHoisted;
  if (k.compacts() != gathers || k.compacts() != (s.skip == SkipScope::Block)) {
    return "the compaction family, and only it, gathers live columns (a gather ring or gathered stages), decided by the block";
  }
  if (gathers && (k.aGranularity != k.tile.BM || k.usesBPattern() || s.scheduling != Scheduling::TilePerBlock)) {
    return "a gathering loop lists the live columns of its block's rows from one A-pattern tile (granularity BM, B not "
           "inspected) and takes a tile per block";
  }
  if (gathers && (s.loop == MainLoop::GatherHoisted) != (s.dtypes == kFp32Inputs)) {
    return "a gather ring copies 16-bit rows of A transposed, the gathered two stages fp32 ones";
  }
  if (s.loop == MainLoop::GatherHoisted && (k.tile.BK != kKBlock || s.mapping != ThreadMapping::WarpTile)) {
    return "the gathered two stages are K12's warp tiles fed one K-block's worth of columns (BK = 8) a K-tile";
  }
  if (s.loop == MainLoop::KBlockList && s.skip != SkipScope::Warp) return "a K-block list is what a warp-uniform skip gathers";
  if (s.loop == MainLoop::KBlockList && k.tile.BK != kKBlock) return "a K-block list loop stages one K-block a K-tile (BK = 8)";
  if (s.skip == SkipScope::Warp && s.loop != MainLoop::KBlockList && s.loop != MainLoop::StageRing &&
      s.loop != MainLoop::BulkCopyRing) {
    return "a warp-uniform skip walks its K-block list in two stages (KBlockList) or in a ring";
  }
  if (s.kBlockList % 4 != 0) return "the K-block list's length is a multiple of 4 (a gather round's votes)";
  if (s.wholeRangeColumns != 0 && (s.loop != MainLoop::SwizzledGatherRing || s.wholeRangeColumns < 1 || s.wholeRangeColumns > k.tile.BK ||
                                   s.kBlockList % (k.tile.BK / kKBlock) != 0)) {
    return "only a gather ring on Hopper copies ranges whole, ranges of BK columns (at most BK of them live), whole ranges a pass";
  }
  if ((s.loop == MainLoop::Global) != (k.tile.BK == 1)) return "only a kernel without shared memory has BK = 1";
  if (s.mapping == ThreadMapping::RowStrips ? s.dtypes != kStoredInputs
      : k.usesTensorCores()                  ? s.dtypes != kHalfInputs && s.dtypes != kHalfInputs.with(DType::Tf32)
                                             : s.dtypes != kFp32Inputs) {
    return "the tensor-core mappings take the 16-bit inputs (fp16, bf16), the row strips every stored type (their FMAs "
           "widen each word to fp32 as it arrives), the other SIMT ones fp32";
  }
  if (s.dtypes.contains(DType::Tf32) && s.mapping == ThreadMapping::WarpgroupMmaTiles && s.skip != SkipScope::None) {
    return "tf32 is the warp MMA rows' and the dense warpgroup row's: the warpgroup skipping kernel is built for 16-bit K-tiles";
  }
  if ((s.mapping == ThreadMapping::MmaTiles) != (s.loop == MainLoop::StageRing || s.loop == MainLoop::GatherRing)) {
    return "the warp-level tensor-core kernels, and only they, fill a stage ring (of K-blocks or of gathered columns)";
  }
  if ((s.mapping == ThreadMapping::WarpgroupMmaTiles) != k.needsHopper()) {
    return "the warpgroup tensor-core kernels, and only they, are fed by a swizzled ring (the copy engine's, or a gathering producer's)";
  }
  if ((s.loop == MainLoop::StageRing || s.loop == MainLoop::GatherRing || k.needsHopper()) != (s.ringStages >= 2)) {
    return "a ring, and only one, has two stages or more";
  }
  if ((s.loop == MainLoop::StageRing || s.loop == MainLoop::GatherRing) && s.ringStages < 3) return "a register-fed ring (the GLSL twin's) needs two stages: three K-tiles or more";
  if (k.needsHopper() &&
      (k.tile.BK != 64 || k.tile.WM != 64 || (k.tile.WN != 128 && k.tile.WN != 256) || k.tile.BM % k.tile.WM != 0 ||
       k.tile.BN != k.tile.WN || k.tile.threads != kWarpgroupThreads * (1 + k.tile.BM / k.tile.WM))) {
    return "a copy-engine ring is K-tiles of one swizzled row (BK 64), consumer warpgroups of one m64n128k16 or m64n256k16 "
           "MMA each (WM x WN 64 x 128 or 64 x 256) down the block, and a producer warpgroup beside them";
  }
  if (s.loop == MainLoop::BulkCopyRing && k.skips() &&
      ((k.aGranularity != 0 && k.aGranularity != k.tile.WM) || k.bGranularity < 0 ||
       (k.bGranularity > 0 && k.tile.WN % k.bGranularity != 0) || s.kBlockList % (k.tile.BK / kKBlock * kWarpLanes) != 0)) {
    return "a warpgroup skips a K-tile whole: its rows are one A-pattern tile, its columns whole B-pattern tiles (either "
           "operand may be not inspected), and the list holds whole K-tiles, a warp's width of them at a time";
  }
  if (s.mapping == ThreadMapping::MmaTiles && (k.tile.WM % 16 != 0 || k.tile.WN % 16 != 0 || k.tile.BK % 16 != 0 || k.tile.TM != 0 ||
                              k.tile.TN != 0)) {
    return "a tensor-core warp tile is whole 16 x 16 pieces (B's fragments come two 8-column tiles at a time), BK whole "
           "16-deep steps, and no TM x TN";
  }
  if (s.mapping == ThreadMapping::MmaTiles && k.skips() &&
      ((k.usesAPattern() && k.aGranularity % k.tile.WM != 0) || (k.usesBPattern() && k.bGranularity % k.tile.WN != 0))) {
    return "a tensor-core warp issues each MMA step whole or not at all: its warp tile lies in one A-pattern and one B-pattern tile";
  }
  return nullptr;
}

// clang-format off
inline constexpr auto kCatalogue = std::to_array<KernelInfo>({
  //  id              K#     stem                 family                 BM   BN  BK  WM   WN  TM TN thr   aR  bC
  //  {thread mapping, main loop, scheduling, skip scope, K-block list}
  //  summary
  {"naive",        "K1",  "k01_naive", "k01_naive",       KernelFamily::Dense,    {16,  16,  1,  0,   0, 1, 1, 256},  0,  0,
   {ThreadMapping::OutputDownColumns, MainLoop::Global, Scheduling::TilePerBlock, SkipScope::None},
   "one thread per output; neighbouring threads walk down a column of C, so loads are not coalesced"},
  {"coalesced",    "K2",  "k02_coalesced", "k02_coalesced",   KernelFamily::Dense,    {16,  16,  1,  0,   0, 1, 1, 256},  0,  0,
   {ThreadMapping::OutputAlongRows, MainLoop::Global, Scheduling::TilePerBlock, SkipScope::None},
   "neighbouring threads take neighbouring columns, so a warp's loads of B and stores of C coalesce"},
  {"smem",         "K3",  "k03_smem", "k03_smem",        KernelFamily::Dense,    {32,  32, 32,  0,   0, 1, 1, 1024}, 0,  0,
   {ThreadMapping::OutputAlongRows, MainLoop::Staged, Scheduling::TilePerBlock, SkipScope::None},
   "stage 32x32 tiles of A and B in shared memory so each global load is reused 32 times"},
  {"blocktile1d",  "K4",  "k04_blocktile1d", "k04_blocktile1d", KernelFamily::Dense,    {64,  64,  8,  0,   0, 8, 1, 512},  0,  0,
   {ThreadMapping::ColumnOfOutputs, MainLoop::Staged, Scheduling::TilePerBlock, SkipScope::None},
   "each thread computes a column of 8 outputs, reusing one B value from a register 8 times"},
  {"blocktile2d",  "K5",  "k05_blocktile2d", "k05_blocktile2d", KernelFamily::Dense,    {128, 128, 8,  0,   0, 8, 8, 256},  0,  0,
   {ThreadMapping::ThreadTile, MainLoop::Staged, Scheduling::TilePerBlock, SkipScope::None},
   "each thread computes an 8x8 block of outputs: 16 shared loads feed 64 FMAs"},
  {"vectorized",   "K6",  "k06_vectorized", "k06_vectorized",  KernelFamily::Dense,    {128, 128, 8,  0,   0, 8, 8, 256},  0,  0,
   {ThreadMapping::ThreadTile, MainLoop::Vectorized, Scheduling::TilePerBlock, SkipScope::None},
   "128-bit global loads, and the A tile stored transposed so the inner loop reads it as vectors"},
  {"warptile",     "K10", "k10_warptile", "k10_warptile",    KernelFamily::Dense,    {128, 128, 16, 64, 64, 8, 4, 128},  0,  0,
   {ThreadMapping::WarpTile, MainLoop::Vectorized, Scheduling::TilePerBlock, SkipScope::None},
   "warp tiling: each warp owns a 64x64 sub-tile, matching the hardware's scheduling unit"},
  {"pipelined",    "K11", "k11_pipelined", "k11_pipelined",   KernelFamily::Dense,    {128, 128, 8,  64, 64, 8, 4, 128},  0,  0,
   {ThreadMapping::WarpTile, MainLoop::DoubleBuffered, Scheduling::TilePerBlock, SkipScope::None},
   "double buffering: the next K-tile travels into registers while the warps compute this one (the dense reference)"},
  {"hoisted",      "K12", "k12_hoisted", "k12_hoisted",     KernelFamily::Dense,    {128, 256, 8,  64, 64, 8, 4, 256},  0,  0,
   {ThreadMapping::WarpTile, MainLoop::Hoisted, Scheduling::TilePerBlock, SkipScope::None},
   "K11 with its addresses hoisted out of the K loop, the barrier before the last depth, and a branch-free, unchecked K loop for blocks inside the matrices, in a 128x256 block of eight 64x64 warps"},
  {"mma",          "K13", "k13_mma", "k13_mma",         KernelFamily::Dense,    {128, 128, 16, 64, 32, 0, 0, 256},  0,  0,
   {ThreadMapping::MmaTiles, MainLoop::StageRing, Scheduling::TilePerBlock, SkipScope::None, 0, kHalfInputs.with(DType::Tf32), 3},
   "tensor cores: each warp multiplies 16x8x16 tiles with one MMA instruction (fp16 or bf16 in, fp32 out; tf32 in two 16x8x8 ones, B transposed first), fed from a ring of three K-tiles: one multiplied while two are on their way"},
  {"wgmma",        "K14", "k14_wgmma", "k14_wgmma",       KernelFamily::Dense,    {128, 256, 64, 64, 256, 0, 0, 384}, 0,  0,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::TilePerBlock, SkipScope::None, 0,
    kHalfInputs.with(DType::Tf32), 4},
   "Hopper (CUDA only): warps specialize; one warpgroup has the copy engine fill a ring of swizzled stages, two multiply 64x256 tiles with warpgroup MMAs that read A and B from shared memory themselves (tf32: B transposed first)"},
  {"a-row",        "S1",  "s01_a_row", "s01_a_row",       KernelFamily::SkipA,    {128, 128, 8,  0,   0, 8, 8, 256},  8,  0,
   {ThreadMapping::ThreadTile, MainLoop::Vectorized, Scheduling::TilePerBlock, SkipScope::Thread},
   "skip A's zero 8-row segments per thread: lanes of one warp disagree and the warp diverges"},
  {"a-warp",       "S2",  "s02_a_warp", "warp_uniform_skip",      KernelFamily::SkipA,    {128, 128, 8,  64, 64, 8, 4, 128}, 32,  0,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 1024},
   "A-pattern per 32 rows, one warp sub-tile's rows: every lane reads the same byte, so the skip is warp-uniform"},
  {"b-group8",     "S3",  "s03_b_group8", "s03_b_group8",    KernelFamily::SkipB,    {128, 128, 8,  0,   0, 8, 8, 256},  0,  8,
   {ThreadMapping::ThreadTile, MainLoop::Vectorized, Scheduling::TilePerBlock, SkipScope::Thread},
   "skip B's zero 8-column segments per thread: divergence again, now along N"},
  {"b-warp",       "S4",  "s04_b_warp", "warp_uniform_skip",      KernelFamily::SkipB,    {128, 128, 8,  64, 64, 8, 4, 128},  0, 32,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 1024},
   "B-pattern per 32 columns, one warp sub-tile's columns: a warp-uniform skip along N"},
  {"joint-64x32",  "S5",  "s05_joint_64x32", "warp_uniform_skip", KernelFamily::Joint,    {128, 128, 8,  64, 64, 8, 4, 128}, 64, 32,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 1024},
   "skip only where a_pat & b_pat is zero, A at 64 rows: coarse, so few K-blocks clear"},
  {"joint-32x32",  "S6",  "s06_joint_32x32", "warp_uniform_skip", KernelFamily::Joint,    {128, 128, 8,  64, 64, 8, 4, 128}, 32, 32,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 1024},
   "joint skip with A at 32 rows: each warp sub-tile row is one pattern tile, so more K-blocks clear"},
  {"joint-8x32",   "S7",  "s07_joint_8x32", "warp_uniform_skip",  KernelFamily::Joint,    {128, 128, 8,  64, 64, 2, 4, 128},  8, 32,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 1024},
   "joint skip with A at 8 rows: the warp walks 8-row sub-tiles, so each check stays warp-uniform"},
  {"warp-joint-64x64", "S8", "s08_warp_joint_64x64", "warp_uniform_skip", KernelFamily::Joint, {64, 64, 8, 64, 64, 8, 4, 32},   64, 64,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 512},
   "a block of one warp: each 64x64 block tile lists its own K-blocks, so zeros 64 wide skip loads too"},
  {"warp-joint-32x32", "S9", "s09_warp_joint_32x32", "warp_uniform_skip", KernelFamily::Joint, {64, 64, 8, 64, 64, 8, 4, 32},   32, 32,
   {ThreadMapping::WarpTile, MainLoop::KBlockList, Scheduling::Persistent, SkipScope::Warp, 512},
   "one-warp 64x64 blocks with 32x32 pattern tiles: the block skips loads, its sub-tiles skip FMAs"},
  {"mma-joint-64x32", "S10", "s10_mma_joint_64x32", "s10_mma_joint_64x32", KernelFamily::Joint, {128, 128, 16, 64, 32, 0, 0, 256}, 64, 32,
   {ThreadMapping::MmaTiles, MainLoop::StageRing, Scheduling::Persistent, SkipScope::Warp, 1024, kHalfInputs.with(DType::Tf32), 3},
   "K13 skipping by a_pat & b_pat: the block loads only the K-blocks some warp needs, and a warp whose 64x32 tile keeps neither K-block of a 16-deep step issues none of its MMAs"},
  {"wgmma-joint-64x64", "S11", "s11_wgmma_joint_64x64", "s11_wgmma_joint_64x64", KernelFamily::Joint, {128, 256, 64, 64, 256, 0, 0, 384}, 64, 64,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::TilePerBlock, SkipScope::Warp, 8192, kHalfInputs, 4},
   "K14 skipping by a_pat & b_pat (Hopper, CUDA only): the block gathers the 64-deep K-tiles its tile needs and the copy engine fetches only those; a consumer warpgroup with no product in a K-tile issues none of its MMAs"},
  {"wgmma-queue-joint-64x64", "S12", "s12_wgmma_queue_joint_64x64", "s12_wgmma_queue_joint_64x64", KernelFamily::Joint, {128, 128, 64, 64, 128, 0, 0, 384}, 64, 64,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::Persistent, SkipScope::Warp, 256, kHalfInputs, 6},
   "S11 on 128x128 tiles that fit 64-blocks (Hopper, CUDA only): resident blocks whose producer warp takes tiles from a queue, lists each one's K-tiles and streams them through the ring without a pause between tiles, while the consumers store the last tile"},
  {"wgmma-queue-wide-64x64", "S13", "s13_wgmma_queue_wide_64x64", "s12_wgmma_queue_joint_64x64", KernelFamily::Joint, {128, 256, 64, 64, 256, 0, 0, 384}, 64, 64,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::Persistent, SkipScope::Warp, 256, kHalfInputs, 4},
   "S12 on S11's 128x256 tiles (Hopper, CUDA only): a quarter fewer bytes copied per product where B's columns share their zeros (B dense, or blocks wider than 64), at the union waste of two B-pattern tiles per tile"},
  {"compact-mma-64", "S14", "s14_compact_mma_64", "s14_compact_mma_64", KernelFamily::Compact, {64, 128, 16, 64, 32, 0, 0, 128}, 64, 0,
   {ThreadMapping::MmaTiles, MainLoop::GatherRing, Scheduling::TilePerBlock, SkipScope::Block, 512, kHalfInputs, 3},
   "compaction for zeros spread out (ReLU activations): a 64-row block lists the K columns some row of it needs and multiplies only those, packed 16 to a K-tile, one row of A transposed and one of B each, so both arrive by 16-byte copies"},
  {"compact-wgmma-128", "S15", "s15_compact_wgmma_128", "s15_compact_wgmma_128", KernelFamily::Compact, {128, 256, 64, 64, 256, 0, 0, 384}, 128, 0,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::SwizzledGatherRing, Scheduling::TilePerBlock, SkipScope::Block, 512, kHalfInputs, 4,
    VendorRoutine::None, 24},
   "S14's compaction on K14's roles (Hopper, CUDA only): a producer warpgroup lists the live columns of 128 rows and gathers them 64 to a K-tile by 16-byte copies into swizzled stages, A's M-major, or has the copy engine move a 64-column range whole where half its columns are live; two consumer warpgroups multiply them with warpgroup MMAs that read A transposed"},
  {"compact-64",   "S16", "s16_compact_64", "s16_compact_64", KernelFamily::Compact, {64, 256, 8, 64, 64, 8, 4, 128}, 64, 0,
   {ThreadMapping::WarpTile, MainLoop::GatherHoisted, Scheduling::TilePerBlock, SkipScope::Block, 512},
   "S14's compaction in fp32 on K12's loop: a 64-row block lists the K columns some row of it needs and runs K12's two stages and 64x64 warp tiles over those alone, 8 to a K-tile, one row of A transposed and one of B each, so both arrive as 128-bit loads"},
  {"wgmma-queue-a-64", "S17", "s17_wgmma_queue_a_64", "s12_wgmma_queue_joint_64x64", KernelFamily::SkipA, {128, 256, 64, 64, 256, 0, 0, 384}, 64, 0,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::Persistent, SkipScope::Warp, 256, kHalfInputs, 4},
   "S13 by A's pattern alone (Hopper, CUDA only): for a block-sparse A beside a dense B it copies and multiplies the same K-tiles as S13 without reading B's pattern, so B needs no pass of its own and a call with a prepared A prepares nothing"},
  {"wgmma-queue-b-64", "S18", "s18_wgmma_queue_b_64", "s12_wgmma_queue_joint_64x64", KernelFamily::SkipB, {128, 128, 64, 64, 128, 0, 0, 384}, 0, 64,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::Persistent, SkipScope::Warp, 256, kHalfInputs, 6},
   "S12 by B's pattern alone (Hopper, CUDA only): for dense activations times a block-sparse weight (x times W transposed, a sparse layer's forward), 128x128 tiles that fit 64-wide zeros copy the K-tiles the tile's columns need, and A needs no pattern pass"},
  {"bsr-64",       "S19", "s19_bsr_64", "s19_bsr_64",   KernelFamily::Bsr,      {64, 256, 8, 64, 64, 8, 4, 128}, 64, 0,
   {ThreadMapping::WarpTile, MainLoop::PackedBlocks, Scheduling::TilePerBlock, SkipScope::Topology},
   "a packed block-sparse A read as it is, on K12's loop: a 64-row tile is one block row, its list of K-blocks that row's slice of the index, so no pattern is built and every value loaded is multiplied"},
  {"bsr-stream-64", "S20", "s20_bsr_stream_64", "s20_bsr_stream_64", KernelFamily::Bsr, {64, 16, 64, 0, 0, 4, 8, 32}, 64, 0,
   {ThreadMapping::RowStrips, MainLoop::StreamedBlocks, Scheduling::SplitBlocks, SkipScope::Topology, 0, kStoredInputs},
   "a packed A times a few columns of B (decode: a handful of tokens), where A's bytes decide the time: its kept blocks split into units of a block row's consecutive blocks, each read once straight into the threads whose rows it holds, the units of one row summed in their order by the last to finish"},
  {"bsr-wgmma-64", "S21", "s21_bsr_wgmma_64", "s21_bsr_wgmma_64", KernelFamily::Bsr, {128, 256, 64, 64, 256, 0, 0, 384}, 64, 0,
   {ThreadMapping::WarpgroupMmaTiles, MainLoop::BulkCopyRing, Scheduling::Persistent, SkipScope::Topology, 0, kHalfInputs, 4},
   "a packed A on S13's ring and queue (Hopper, CUDA only): a consumer's 64 rows are one block row, its K-tiles that row's kept blocks, which the copy engine fetches straight from the packed values beside B's rows, a consumer whose row keeps nothing at a column issuing no MMAs for it"},
  {"cublas",       "",    "", "",                KernelFamily::Baseline, {},                                  0,  0,
   {.dtypes = kEveryInput, .vendor = VendorRoutine::CublasGemm},
   "cuBLAS in the problem's dtype (SGEMM with TF32 off for fp32, cublasGemmEx otherwise): the vendor's dense baseline"},
  {"cusparse-csr", "",    "", "",                KernelFamily::Baseline, {},                                  0,  0,
   {.vendor = VendorRoutine::CusparseCsrSpmm},
   "cuSPARSE SpMM with A converted to CSR (conversion timed apart)"},
  {"cpu",          "",    "", "",                KernelFamily::Baseline, {},                                  0,  0,
   {.vendor = VendorRoutine::OpenblasSgemm},
   "OpenBLAS SGEMM on the host: the CPU baseline"},
});
// clang-format on

constexpr bool everyRowHangsTogether() {
  for (const KernelInfo& k : kCatalogue) {
    if (structureContradiction(k) != nullptr) return false;
  }
  return true;
}
static_assert(everyRowHangsTogether(), "a catalogue row's structure contradicts its family or tile (structureContradiction names it)");

// A twin's number is K<n> for a dense kernel and S<n> for a skipping one; 0 where `number` is not
// of that form. K numbers keep the classic SGEMM progression's where a kernel is its step
// (docs/teaching.md maps both series to SGEMM_CUDA's and ESMM's numbers).
constexpr int progressionNumber(const KernelInfo& k) {
  const char letter = k.skips() ? 'S' : 'K';
  if (k.isBaseline() || k.number.size() < 2 || k.number.size() > 3 || k.number[0] != letter) return 0;
  int n = 0;
  for (char c : k.number.substr(1)) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Why a row's number or stem breaks the naming rule, or nullptr. The stem is the number's letter
// in lower case, n in two digits and the id with '-' as '_' ("S7", "joint-8x32" ->
// "s07_joint_8x32"); the numbers grow in catalogue order, the dense series before the skipping
// one, so `tileskip list` and the files sort in the order a student reads the kernels.
constexpr const char* namingContradiction(const KernelInfo& k) {
  if (k.isBaseline()) return k.number.empty() && k.stem.empty() ? nullptr : "a baseline has no number and no files";
  const int n = progressionNumber(k);
  if (n <= 0 || n > 99) return "a twin's number is K<n> (dense) or S<n> (skipping), n from 1 to 99";
  const std::string_view id = k.id, stem = k.stem;
  if (stem.size() != 4 + id.size() || stem[0] != (k.skips() ? 's' : 'k') || stem[1] != '0' + n / 10 ||
      stem[2] != '0' + n % 10 || stem[3] != '_') {
    return "a twin's stem is its number's letter in lower case, the number in two digits, '_' and its id";
  }
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (stem[4 + i] != (id[i] == '-' ? '_' : id[i])) return "a twin's stem ends in its id, with '-' as '_'";
  }
  return nullptr;
}

// The same for a row that follows `previous` in the catalogue. A reference, not a pointer that
// may be null: GCC's -fsanitize=undefined makes comparing a row's address with null
// non-constant, and the sanitizer build must compile the static_assert too.
constexpr const char* namingContradiction(const KernelInfo& k, const KernelInfo& previous) {
  if (const char* why = namingContradiction(k)) return why;
  if (!k.isBaseline() && !previous.isBaseline()) {
    if (previous.skips() && !k.skips()) return "the dense kernels come before the skipping ones";
    if (previous.skips() == k.skips() && progressionNumber(previous) >= progressionNumber(k)) return "numbers grow in catalogue order";
  }
  return nullptr;
}

constexpr bool everyRowIsNamedInOrder() {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    const char* why = i == 0 ? namingContradiction(kCatalogue[i]) : namingContradiction(kCatalogue[i], kCatalogue[i - 1]);
    if (why != nullptr) return false;
  }
  return true;
}
static_assert(everyRowIsNamedInOrder(), "a catalogue row's number or stem breaks the naming rule (namingContradiction names it)");

// The kernel that skip efficiency and "vs dense" ratios are measured against, for fp32 inputs.
inline constexpr std::string_view kDenseReferenceKernel = "pipelined";

// The same for inputs of `type`: the fp32 reference, K13 for the tensor cores' types.
constexpr std::string_view denseReferenceKernel(DType type) {
  switch (type) {
    case DType::Fp32: return kDenseReferenceKernel;
    case DType::Tf32:
    case DType::Fp16:
    case DType::Bf16: return "mma";
  }
  return kDenseReferenceKernel;
}

constexpr const KernelInfo* findKernelInfo(std::string_view id) {
  for (const KernelInfo& k : kCatalogue) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

// An MLP layer's two GEMMs fused (kernels/layer_first_gemm.cuh): the first runs this row's block
// with an epilogue that applies the activation and writes H transposed, with the pattern of its
// row tiles, which is A as a compaction kernel of the block's height reads it.
inline constexpr std::string_view kLayerFirstGemm = "wgmma";
constexpr bool layerFuses(const KernelInfo& first, const KernelInfo& second, DType dtype) {
  return first.id == kLayerFirstGemm && second.readsTransposedA() && second.aGranularity == first.tile.BM &&
         (dtype == DType::Fp16 || dtype == DType::Bf16) && first.takes(dtype) && second.takes(dtype);
}

// Throws InputError naming the known ids when `id` is not in the catalogue.
const KernelInfo& kernelInfo(std::string_view id);

// Catalogue rows of our twin kernels (dense and skipping), in progression order: the rows before
// the first baseline.
constexpr std::span<const KernelInfo> twinKernels() {
  std::size_t twins = 0;
  while (twins < kCatalogue.size() && !kCatalogue[twins].isBaseline()) ++twins;
  return {kCatalogue.data(), twins};
}

// What the GLSL twin of a row is built with beyond its specialization constants: the defines that
// change a declaration's type, which a constant cannot. The build compiles each GLSL twin from its
// source with these (kernels/list_instances.cpp), the CUDA twin decides the same from the row.
//  - TILESKIP_A_IN_PAIRS: a lane's TM = 2 rows of A are one 64-bit read of the stage (stage.glsl).
//  - TILESKIP_GATHER_RING: the ring's K-tiles are gathered columns, A's stage K-major (ring.glsl).
struct GlslDefines {
  std::array<std::string_view, 2> names{};
  std::size_t count = 0;
  constexpr const std::string_view* begin() const { return names.data(); }
  constexpr const std::string_view* end() const { return names.data() + count; }
};
constexpr GlslDefines glslDefines(const KernelInfo& k) {
  GlslDefines defines;
  if (k.structure.mapping == ThreadMapping::WarpTile && k.tile.TM == 2) defines.names[defines.count++] = "TILESKIP_A_IN_PAIRS";
  if (k.structure.loop == MainLoop::GatherRing) defines.names[defines.count++] = "TILESKIP_GATHER_RING";
  return defines;
}

// "id1, id2, ..." of every catalogue entry, for help texts and error messages.
std::string catalogueIdList();

}  // namespace tileskip
