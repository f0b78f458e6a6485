#include "backends/vulkan/vulkan_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "backends/backend_registry.hpp"
#include "backends/vulkan/compute_queue.hpp"
#include "backends/vulkan/embedded_spirv.hpp"
#include "backends/vulkan/memory.hpp"
#include "backends/vulkan/tile_overrides.hpp"
#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"
#include "core/process/process_exit.hpp"
#include "core/model/reference.hpp"
#include "core/model/tile_layout.hpp"
#include "core/measure/tune.hpp"

namespace tileskip::vk {

namespace {

constexpr std::uint32_t kPatternAWordsPerGroup = 32;   // kernels/pattern_a.comp: 32 x 8 invocations
constexpr std::uint32_t kPatternARowsPerGroup = 64;
constexpr std::uint32_t kPatternBColsPerGroup = 1024;  // kernels/pattern_b.comp: 256 x 4 columns
constexpr std::uint32_t kNaN = 0x7FC00000;              // a quiet NaN, as fill words
constexpr std::uint64_t kToHalfThreads = 256;           // kernels/to_half.comp's workgroup

// Pattern words per tile: one uint holds 4 K-blocks (32 K-indices).
std::uint64_t patternWords(int k) { return ceilDiv(static_cast<std::uint64_t>(k), 32); }

Specialization patternConstants(Operand operand, int granularity) {
  Specialization s;
  s.set(SpecId::BK, kKBlock);
  s.set(operand == Operand::A ? SpecId::AGranularity : SpecId::BGranularity, granularity);
  return s;
}

std::string shapeText(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// The persistent kernels' workgroup count from the environment, where set (tests, tuning on a
// GPU); 0 where not.
constexpr const char* kPersistentWorkgroupsVariable = "TILESKIP_VULKAN_PERSISTENT_WORKGROUPS";

std::uint32_t requestedPersistentWorkgroups() {
  const char* text = std::getenv(kPersistentWorkgroupsVariable);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value == 0 || value > std::numeric_limits<std::uint32_t>::max() || text[0] == '-') {
    throw InputError(std::string(kPersistentWorkgroupsVariable) + " must be a positive number of workgroups, not '" + text + "'");
  }
  return static_cast<std::uint32_t>(value);
}

class VulkanProblem final : public DeviceProblem {
 public:
  VulkanProblem(std::shared_ptr<Context> context, std::shared_ptr<const OverrideTable> overrides, const Matrix& a, const Matrix& b,
                DType dtype)
      : context_(std::move(context)), overrides_(std::move(overrides)), m_(a.rows()), n_(b.cols()), k_(a.cols()), dtype_(dtype) {
    const ComputeLimits& limits = device().limits();
    std::uint64_t cBytes = static_cast<std::uint64_t>(m_) * static_cast<std::uint64_t>(n_) * sizeof(float);
    checkBufferFits(a.bytes(), "matrix A (" + shapeText(m_, k_) + ")", limits);
    checkBufferFits(b.bytes(), "matrix B (" + shapeText(k_, n_) + ")", limits);
    checkBufferFits(cBytes, "matrix C (" + shapeText(m_, n_) + ")", limits);
    std::uint64_t needed = a.bytes() + b.bytes() + cBytes;
    if (std::uint64_t available = device().memoryAvailable(); needed > available) {
      throw UnavailableError("A, B and C need " + byteText(needed) + " of device memory, " + byteText(available) +
                             " is available on " + device().info().name + "; use smaller matrices");
    }
    a_ = Buffer(device(), a.bytes(), MemoryUse::Device, "matrix A (" + shapeText(m_, k_) + ")");
    b_ = Buffer(device(), b.bytes(), MemoryUse::Device, "matrix B (" + shapeText(k_, n_) + ")");
    c_ = Buffer(device(), cBytes, MemoryUse::Device, "matrix C (" + shapeText(m_, n_) + ")");
    noPattern_ = Buffer(device(), 16, MemoryUse::Device, "an empty pattern");
    // The persistent kernels' block tile queue: next tile, finished workgroups. Zero once here;
    // every dispatch leaves it at zero again (kernels/parts/warp_skip.glsl).
    tileQueue_ = Buffer(device(), 2 * sizeof(std::uint32_t), MemoryUse::Device, "the block tile queue");
    context_->queue().execute([&](VkCommandBuffer cmd) { device().vk().vkCmdFillBuffer(cmd, tileQueue_.handle(), 0, VK_WHOLE_SIZE, 0); }, false);
    upload(*context_, a_, staging_, a.data(), a.bytes());
    upload(*context_, b_, staging_, b.data(), b.bytes());
    // fp16 copies for the tensor-core kernels, which take fp16 inputs only here (Backend::takes).
    if (dtype_ == DType::Fp16 && limits.halfArithmetic) {
      aHalf_ = Buffer(device(), a.bytes() / 2 + 4, MemoryUse::Device, "A in fp16 (" + shapeText(m_, k_) + ")");
      bHalf_ = Buffer(device(), b.bytes() / 2 + 4, MemoryUse::Device, "B in fp16 (" + shapeText(k_, n_) + ")");
    }
  }

  ~VulkanProblem() override {
    if (processExiting()) return;  // see core/process/process_exit.hpp
    for (VkDescriptorPool pool : pools_) device().vk().vkDestroyDescriptorPool(device().handle(), pool, nullptr);
  }

  // A skipping tensor-core kernel needs both: its fp16 inputs and its patterns (built from the
  // fp32 copies, which hold the rounded values, so the zeros are the same). The fp16 copies are
  // made once per problem and timed apart (DeviceProblem::roundingMs).
  double prepare(const KernelInfo& kernel) override {
    if (kernel.readsPackedA()) return packed_.contains(kernel.packedBlock()) ? 0.0 : packA(kernel);
    if (kernel.usesTensorCores() && !halvesMade_) roundingMs_ = makeHalves(kernel);
    const double transposed = kernel.readsTransposedA() ? makeTransposedA() : 0.0;
    return transposed + buildPatterns(kernel);
  }
  double roundingMs() const override { return roundingMs_; }

  // The patterns `kernel` reads, built again on every call so that repeated calls time the real
  // work; returns the device milliseconds.
  double buildPatterns(const KernelInfo& kernel) {
    bool usesA = kernel.buildsAPattern(), usesB = kernel.usesBPattern();
    if (!usesA && !usesB) return 0.0;
    const DeviceFunctions& vk = device().vk();
    Pipelines& pipelines = context_->pipelines();
    VkDescriptorSet set = descriptorSet(usesA ? kernel.aGranularity : 0, kernel.bGranularity, false);
    Buffer* aPattern = usesA ? &pattern(Operand::A, kernel.aGranularity) : nullptr;
    Buffer* bPattern = usesB ? &pattern(Operand::B, kernel.bGranularity) : nullptr;
    VkPipeline aBuilder = usesA ? pipelines.pipeline("pattern_a", patternConstants(Operand::A, kernel.aGranularity), 0) : VK_NULL_HANDLE;
    VkPipeline bBuilder = usesB ? pipelines.pipeline("pattern_b", patternConstants(Operand::B, kernel.bGranularity), 0) : VK_NULL_HANDLE;
    std::uint64_t words = patternWords(k_);
    double ms = context_->queue().execute(
        [&](VkCommandBuffer cmd) {
          // The builders OR bits into the patterns, so they start from zero.
          if (aPattern) vk.vkCmdFillBuffer(cmd, aPattern->handle(), 0, VK_WHOLE_SIZE, 0);
          if (bPattern) vk.vkCmdFillBuffer(cmd, bPattern->handle(), 0, VK_WHOLE_SIZE, 0);
          stepBarrier(vk, cmd);
          if (aPattern) {
            pipelines.dispatch(cmd, aBuilder, set, constants(), ceilDiv(words, kPatternAWordsPerGroup),
                         ceilDiv(static_cast<std::uint64_t>(m_), kPatternARowsPerGroup));
          }
          if (aPattern && bPattern) stepBarrier(vk, cmd);
          if (bPattern) pipelines.dispatch(cmd, bBuilder, set, constants(), ceilDiv(static_cast<std::uint64_t>(n_), kPatternBColsPerGroup), words);
        },
        true);
    if (usesA) built_.insert({Operand::A, kernel.aGranularity});
    if (usesB) built_.insert({Operand::B, kernel.bGranularity});
    return ms;
  }

  // A packed (core/model/block_sparse.hpp) for the bsr kernels of its block: its values where a
  // dense kernel reads A (binding 0) and its index where a skipping one reads its A-pattern
  // (binding 3), in buffers of their own.
  void attachPackedA(const BlockSparseMatrix& packed) override {
    requirePackedA(packed, m_, k_, dtype_);
    const std::vector<std::int32_t> index = packed.packedIndexWords();
    const std::string what = "A packed in blocks of " + std::to_string(packed.block());
    const std::uint64_t valueBytes = static_cast<std::uint64_t>(packed.values().size()) * sizeof(float) + 16;
    checkBufferFits(valueBytes, what, device().limits());
    Packed onDevice{Buffer(device(), valueBytes, MemoryUse::Device, what + " (its kept blocks)"),
                    Buffer(device(), 4 * index.size(), MemoryUse::Device, what + " (its index)"),
                    planBlockStream(packed, streamUnitTarget(device().limits())),
                    {}};
    if (!packed.values().empty()) upload(*context_, onDevice.values, staging_, packed.values().data(), packed.values().size() * sizeof(float));
    upload(*context_, onDevice.index, staging_, index.data(), 4 * index.size());
    std::erase_if(sets_, [&](const auto& entry) { return std::get<3>(entry.first) == packed.block(); });  // sets that bound the old one
    packed_.insert_or_assign(packed.block(), std::move(onDevice));
  }

  void poisonC() override {
    context_->queue().execute([&](VkCommandBuffer cmd) { device().vk().vkCmdFillBuffer(cmd, c_.handle(), 0, VK_WHOLE_SIZE, kNaN); },
                      false);
  }

  std::string variantOf(const KernelInfo& kernel) const override {
    const KernelOverride* o = overrideOf(kernel);
    return o != nullptr ? o->text : std::string();
  }

  // Every pipeline `kernels` need, built together (Pipelines::buildAhead); a kernel that cannot
  // run here is left out, for run() to say why.
  void buildAhead(std::span<const KernelInfo* const> kernels) override {
    std::vector<Pipelines::Request> requests;
    for (const KernelInfo* catalogued : kernels) {
      if (!catalogued->takes(dtype_)) continue;
      try {
        auto [kernel, switches] = withOverride(*catalogued);
        requests.push_back(kernelRequest(kernel, switches));
        if (kernel.buildsAPattern()) requests.push_back({"pattern_a", patternConstants(Operand::A, kernel.aGranularity), 0, {}});
        if (kernel.usesBPattern()) requests.push_back({"pattern_b", patternConstants(Operand::B, kernel.bGranularity), 0, {}});
        if (kernel.usesTensorCores() && aHalf_) requests.push_back({"to_half", toHalfConstants(false), 0, {}});
        if (kernel.readsTransposedA() && aHalf_) requests.push_back({"to_half", toHalfConstants(true), 0, {}});
        if (kernel.readsTransposedA() && dtype_ == DType::Fp32) requests.push_back({"transpose_a", {}, 0, {}});
      } catch (const Error&) {
        // left out: its run says why it cannot run
      }
    }
    context_->pipelines().buildAhead(requests);
  }

  double run(const KernelInfo& catalogued) override {
    requireInputs(catalogued, dtype_);
    const ComputeLimits& limits = device().limits();
    auto [kernel, switches] = withOverride(catalogued);
    VkPipeline pipeline = context_->pipelines().pipeline(kernelRequest(kernel, switches));
    if (std::optional<std::string> why = loopLimitProblem(kernel, static_cast<std::uint64_t>(m_), static_cast<std::uint64_t>(n_),
                                                          static_cast<std::uint64_t>(k_), limits)) {
      throw UnavailableError(*why);
    }
    bool ready = (!kernel.buildsAPattern() || built_.count({Operand::A, kernel.aGranularity})) &&
                 (!kernel.readsPackedA() || packed_.contains(kernel.packedBlock())) &&
                 (!kernel.usesBPattern() || built_.count({Operand::B, kernel.bGranularity})) &&
                 (!kernel.usesTensorCores() || halvesMade_) && (!kernel.readsTransposedA() || aTransposedMade_);
    if (!ready) prepare(kernel);
    VkDescriptorSet set = kernel.readsPackedA() ? descriptorSet(0, 0, false, kernel.packedBlock())
                                                : descriptorSet(kernel.aGranularity, kernel.bGranularity, kernel.readsTransposedA());
    const TileShape& t = kernel.tile;
    if (kernel.structure.scheduling == Scheduling::SplitBlocks) {
      // A workgroup per unit of the plan and column tile (kernels/s20_bsr_stream_64.comp).
      const Packed& packed = packed_.at(kernel.packedBlock());
      VkDescriptorSet streaming = streamSet(kernel);
      const std::uint64_t colTiles = ceilDiv(static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(t.BN));
      Pipelines& pipelines = context_->pipelines();
      return context_->queue().execute(
          [&](VkCommandBuffer cmd) { pipelines.dispatch(cmd, pipeline, streaming, constants(), colTiles, static_cast<std::uint64_t>(packed.plan.units)); },
          true);
    }
    std::uint64_t colTiles = ceilDiv(static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(t.BN));
    std::uint64_t rowTiles = ceilDiv(static_cast<std::uint64_t>(m_), static_cast<std::uint64_t>(t.BM));
    Pipelines& pipelines = context_->pipelines();
    if (kernel.persistent()) {
      // Block tiles come from the queue, numbered along one dimension, in as many dispatches as
      // the device's loop limit asks for (one where it has none).
      const std::uint64_t tiles = colTiles * rowTiles;
      if (tiles > std::numeric_limits<std::uint32_t>::max()) {
        throw InputError("problem too large for kernel " + std::string(kernel.id) + ": more than 2^32 - 1 block tiles");
      }
      const std::uint64_t perDispatch = blockTilesPerDispatch(kernel, static_cast<std::uint64_t>(m_), static_cast<std::uint64_t>(n_),
                                                              static_cast<std::uint64_t>(k_), limits);
      const std::uint32_t workgroups = persistentWorkgroups(std::min(tiles, perDispatch), limits, requestedPersistentWorkgroups(),
                                                            static_cast<std::uint32_t>(kernel.tile.threads));
      return context_->queue().execute(
          [&](VkCommandBuffer cmd) {
            for (std::uint64_t first = 0; first < tiles; first += perDispatch) {
              // The queue's reset and C's tiles are written by the dispatch before.
              if (first > 0) stepBarrier(device().vk(), cmd);
              PushConstants range = constants();
              range.tileFirst = static_cast<std::uint32_t>(first);
              range.tileCount = static_cast<std::uint32_t>(std::min(perDispatch, tiles - first));
              pipelines.dispatch(cmd, pipeline, set, range, workgroups, 1);
            }
          },
          true);
    }
    return context_->queue().execute([&](VkCommandBuffer cmd) { pipelines.dispatch(cmd, pipeline, set, constants(), colTiles, rowTiles); }, true);
  }

  std::array<std::uint32_t, 2> tileQueue() {
    std::array<std::uint32_t, 2> counters{};
    download(*context_, tileQueue_, staging_, counters.data(), sizeof counters);
    return counters;
  }

  Matrix downloadC() override {
    Matrix c(m_, n_);
    download(*context_, c_, staging_, c.data(), c.bytes());
    return c;
  }

  Pattern downloadPattern(Operand operand, int granularity) override {
    if (!built_.count({operand, granularity})) {
      throw InputError("no kernel prepared so far on the vulkan backend uses the " + std::string(operandName(operand)) +
                       "-pattern at granularity " + std::to_string(granularity));
    }
    const Buffer& device = patterns_.at({operand, granularity});
    std::vector<std::uint8_t> padded(device.bytes());
    download(*context_, device, staging_, padded.data(), padded.size());
    Pattern p;
    p.operand = operand;
    p.granularity = granularity;
    p.extent = operand == Operand::A ? m_ : n_;
    p.depth = k_;
    p.tiles = static_cast<int>(ceilDiv(static_cast<std::uint64_t>(p.extent), static_cast<std::uint64_t>(granularity)));
    p.kBlocks = static_cast<int>(ceilDiv(static_cast<std::uint64_t>(k_), kKBlock));
    // On the device each tile starts on a word; the pattern's bytes are the tiles' first kBlocks
    // bytes (a little-endian word holds K-blocks 4w .. 4w+3 in byte order).
    std::size_t stride = patternWords(k_) * sizeof(std::uint32_t);
    p.bits.resize(static_cast<std::size_t>(p.tiles) * static_cast<std::size_t>(p.kBlocks));
    for (std::size_t tile = 0; tile < static_cast<std::size_t>(p.tiles); ++tile) {
      std::memcpy(&p.bits[tile * static_cast<std::size_t>(p.kBlocks)], &padded[tile * stride], static_cast<std::size_t>(p.kBlocks));
    }
    return p;
  }

 private:
  Device& device() const { return context_->device(); }

  PushConstants constants() const {
    auto m = static_cast<std::uint32_t>(m_), n = static_cast<std::uint32_t>(n_), k = static_cast<std::uint32_t>(k_);
    return {m, n, k, k, n, n, 0, 0, 0, 0};
  }

  // TILESKIP_VULKAN_TILES replaces the catalogue's tile and switches (tile_overrides.hpp).
  std::pair<KernelInfo, PipelineSwitches> withOverride(const KernelInfo& catalogued) const {
    KernelInfo kernel = catalogued;
    PipelineSwitches switches;
    if (const KernelOverride* o = overrideOf(catalogued)) {
      kernel.tile = o->kernel.tile;
      switches = o->switches;
    }
    return {kernel, switches};
  }

  // The pipeline `kernel` runs with, or why it cannot run here.
  Pipelines::Request kernelRequest(const KernelInfo& kernel, const PipelineSwitches& switches) const {
    if (kernel.isBaseline() || kernel.stem.empty() || embeddedSpirv(kernel.stem).empty()) {
      throw InputError("the vulkan backend does not implement kernel '" + std::string(kernel.id) + "'");
    }
    if (std::optional<std::string> why = tensorCoreProblem(kernel, device().limits(), device().info().name)) throw UnavailableError(*why);
    if (std::optional<std::string> why = tileShapeProblem(kernel)) throw InputError(*why);
    if (std::optional<std::string> why = launchProblem(kernel, device().limits())) throw UnavailableError(*why);
    Specialization constants = kernelConstants(kernel, switches);
    if (std::uint32_t list = kBlockListLength(kernel, device().limits().maxSharedBytes); list > 0) {
      constants.set(SpecId::KBlockListLength, static_cast<int>(list));
    }
    return {std::string(kernel.stem), constants, static_cast<std::uint32_t>(kernel.tile.threads), std::string(kernel.id)};
  }

  Buffer& pattern(Operand operand, int granularity) {
    auto key = std::pair(operand, granularity);
    if (auto it = patterns_.find(key); it != patterns_.end()) return it->second;
    int extent = operand == Operand::A ? m_ : n_;
    std::uint64_t bytes = ceilDiv(static_cast<std::uint64_t>(extent), static_cast<std::uint64_t>(granularity)) *
                          patternWords(k_) * sizeof(std::uint32_t);
    std::string what = std::string(operandName(operand)) + "-pattern at granularity " + std::to_string(granularity);
    checkBufferFits(bytes, what, device().limits());
    return patterns_.emplace(key, Buffer(device(), bytes, MemoryUse::Device, what)).first->second;
  }

  // A packed at the bsr kernel's block from A's values (downloaded, packed on the host, attached):
  // the format's one-time cost; returns the milliseconds it took.
  double packA(const KernelInfo& kernel) {
    const auto start = std::chrono::steady_clock::now();
    Matrix a(m_, k_);
    download(*context_, a_, staging_, a.data(), a.bytes());
    attachPackedA(packBlocks(a, kernel.packedBlock(), dtype_));
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  // A and B in fp16 for a tensor-core kernel (kernels/to_half.comp); returns the device milliseconds.
  double makeHalves(const KernelInfo& kernel) {
    if (!aHalf_) {
      if (std::optional<std::string> why = tensorCoreProblem(kernel, device().limits(), device().info().name)) throw UnavailableError(*why);
      throw InputError("kernel '" + std::string(kernel.id) + "' on the vulkan backend takes fp16 inputs, not " +
                       std::string(dtypeName(dtype_)) + " (--dtype fp16)");
    }
    Pipelines& pipelines = context_->pipelines();
    VkPipeline convert = pipelines.pipeline("to_half", toHalfConstants(false), 0);
    VkDescriptorSet set = descriptorSet(0, 0, false);
    const std::uint64_t largest = std::max(static_cast<std::uint64_t>(m_), static_cast<std::uint64_t>(n_)) * static_cast<std::uint64_t>(k_);
    const std::uint64_t groups = std::min<std::uint64_t>(ceilDiv(largest, kToHalfThreads), device().limits().maxGroupCountX);
    double ms = context_->queue().execute(
        [&](VkCommandBuffer cmd) {
          // Row 0 of workgroups converts A, row 1 B: one dispatch, no split (to_half.comp's loop strides).
          pipelines.dispatch(cmd, convert, set, constants(), groups, 2);
        },
        true);
    halvesMade_ = true;
    return ms;
  }

  // A transposed (K rows of transposedRowLength(M), zeros past M) for a compaction kernel, in the
  // problem's dtype: in fp16 made from the
  // fp32 A as the fp16 copies are (kernels/to_half.comp, TRANSPOSE_A), in fp32 by
  // kernels/transpose_a.comp, into the buffer that kernel's set binds at binding 6; returns the
  // device milliseconds. Made again on every call, as the patterns are.
  double makeTransposedA() {
    const bool fp32 = dtype_ == DType::Fp32;
    if (!aTransposed_) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(transposedRowLength(m_)) * static_cast<std::uint64_t>(k_) * (fp32 ? 4 : 2) + 4;
      checkBufferFits(bytes, "A transposed", device().limits());
      aTransposed_ = Buffer(device(), bytes, MemoryUse::Device,
                            std::string("A in ") + (fp32 ? "fp32" : "fp16") + ", transposed (" + shapeText(k_, m_) + ")");
    }
    Pipelines& pipelines = context_->pipelines();
    VkPipeline transpose = fp32 ? pipelines.pipeline("transpose_a", {}, 0) : pipelines.pipeline("to_half", toHalfConstants(true), 0);
    VkDescriptorSet set = descriptorSet(0, 0, true);
    const std::uint64_t groups = std::min<std::uint64_t>(
        ceilDiv(static_cast<std::uint64_t>(transposedRowLength(m_)) * static_cast<std::uint64_t>(k_), kToHalfThreads),
        device().limits().maxGroupCountX);
    double ms = context_->queue().execute([&](VkCommandBuffer cmd) { pipelines.dispatch(cmd, transpose, set, constants(), groups, 1); }, true);
    aTransposedMade_ = true;
    return ms;
  }

  static Specialization toHalfConstants(bool transposeA) {
    Specialization constants;
    constants.set(SpecId::TransposeA, transposeA ? 1 : 0);
    return constants;
  }

  // The set binding A, B, C and the patterns at these granularities (0: not used), and A's fp16
  // words as they are, or A transposed (a compaction kernel's); or, with a packed block, A packed at
  // it in A's and its pattern's places (kernels/parts/packed.glsl).
  VkDescriptorSet descriptorSet(int aGranularity, int bGranularity, bool aTransposed, int packedBlock = 0) {
    auto key = std::tuple(aGranularity, bGranularity, aTransposed, packedBlock);
    if (auto it = sets_.find(key); it != sets_.end()) return it->second;
    const Packed* packed = packedBlock > 0 ? &packed_.at(packedBlock) : nullptr;
    const Buffer& aPattern = packed ? packed->index : aGranularity > 0 ? pattern(Operand::A, aGranularity) : noPattern_;
    const Buffer& bPattern = bGranularity > 0 ? pattern(Operand::B, bGranularity) : noPattern_;
    VkDescriptorSet set = allocateSet();
    VkDescriptorBufferInfo buffers[Pipelines::kBindings] = {{(packed ? packed->values : a_).handle(), 0, VK_WHOLE_SIZE},
                                                          {b_.handle(), 0, VK_WHOLE_SIZE},
                                                          {c_.handle(), 0, VK_WHOLE_SIZE},
                                                          {aPattern.handle(), 0, VK_WHOLE_SIZE},
                                                          {bPattern.handle(), 0, VK_WHOLE_SIZE},
                                                          {tileQueue_.handle(), 0, VK_WHOLE_SIZE},
                                                          {(aTransposed ? aTransposed_ : aHalf_ ? aHalf_ : noPattern_).handle(), 0, VK_WHOLE_SIZE},
                                                          {(bHalf_ ? bHalf_ : noPattern_).handle(), 0, VK_WHOLE_SIZE}};
    writeSet(set, buffers);
    return sets_.emplace(key, set).first->second;
  }

  // Points every binding of `set` at its buffer.
  void writeSet(VkDescriptorSet set, const VkDescriptorBufferInfo (&buffers)[Pipelines::kBindings]) {
    VkWriteDescriptorSet writes[Pipelines::kBindings] = {};
    for (std::uint32_t i = 0; i < Pipelines::kBindings; ++i) {
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &buffers[i];
    }
    device().vk().vkUpdateDescriptorSets(device().handle(), Pipelines::kBindings, writes, 0, nullptr);
  }

  VkDescriptorSet allocateSet() {
    constexpr std::uint32_t kSetsPerPool = 16;
    const DeviceFunctions& vk = device().vk();
    if (pools_.empty() || setsInLastPool_ == kSetsPerPool) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, Pipelines::kBindings * kSetsPerPool};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool pool = VK_NULL_HANDLE;
      device().check(vk.vkCreateDescriptorPool(device().handle(), &info, nullptr, &pool), "creating a descriptor pool");
      pools_.push_back(pool);
      setsInLastPool_ = 0;
    }
    VkDescriptorSetLayout layout = context_->pipelines().setLayout();
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pools_.back();
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    device().check(vk.vkAllocateDescriptorSets(device().handle(), &info, &set), "allocating a descriptor set");
    ++setsInLastPool_;
    return set;
  }

  const KernelOverride* overrideOf(const KernelInfo& kernel) const {
    return findOverride(overrides_->forProblem(m_, n_, k_), kernel);
  }

  std::shared_ptr<Context> context_;  // first member: destroyed last, after every buffer
  std::shared_ptr<const OverrideTable> overrides_;  // the backend's, read at every run: tune changes it
  int m_, n_, k_;
  DType dtype_;
  Buffer a_, b_, c_, noPattern_, tileQueue_, staging_;
  Buffer aHalf_, bHalf_;  // A and B in fp16 for the tensor-core kernels: only in an fp16 problem
  bool halvesMade_ = false;
  Buffer aTransposed_;  // A as K x M in the problem's dtype, for the compaction kernels (makeTransposedA)
  bool aTransposedMade_ = false;
  double roundingMs_ = 0.0;  // the device time makeHalves() took, once per problem
  std::map<std::pair<Operand, int>, Buffer> patterns_;
  std::set<std::pair<Operand, int>> built_;  // patterns prepare() has built at least once
  // A packed, by block: its kept blocks' values (fp32) and its index (attachPackedA), the streaming
  // kernels' plan of units, and per streaming kernel (its column tile sizes them) the units, a
  // counter per block row and column tile, and the partial tiles of the rows split into units.
  struct Stream {
    Buffer units, counters, partials;
    VkDescriptorSet set = VK_NULL_HANDLE;
  };
  struct Packed {
    Buffer values, index;
    BlockStreamPlan plan;
    std::map<std::string, Stream, std::less<>> streams;
  };
  // The units a streaming kernel's plan aims at: eight a multiprocessor (enough to keep each busy
  // several times over), two a host thread of a CPU device.
  static int streamUnitTarget(const ComputeLimits& limits) {
    if (limits.multiprocessors > 0) return 8 * static_cast<int>(limits.multiprocessors);
    return limits.cpuThreads > 0 ? 2 * static_cast<int>(limits.cpuThreads) : 64;
  }

  // The set a streaming kernel runs with: A packed at its block, B and C, and its units, counters and
  // partial tiles (kernels/parts/packed.glsl's bindings 4 to 6), made by its first run.
  VkDescriptorSet streamSet(const KernelInfo& kernel) {
    Packed& packed = packed_.at(kernel.packedBlock());
    if (auto it = packed.streams.find(kernel.id); it != packed.streams.end()) return it->second.set;
    const std::uint64_t colTiles = ceilDiv(static_cast<std::uint64_t>(n_), static_cast<std::uint64_t>(kernel.tile.BN));
    const std::uint64_t unitBytes = 4 * packed.plan.words.size();
    const std::uint64_t counterBytes = 4 * ceilDiv(static_cast<std::uint64_t>(m_), static_cast<std::uint64_t>(kernel.packedBlock())) * colTiles;
    const std::uint64_t partialBytes = 4 * std::max<std::uint64_t>(1, static_cast<std::uint64_t>(packed.plan.slots)) * colTiles *
                                       static_cast<std::uint64_t>(kernel.tile.BM) * static_cast<std::uint64_t>(kernel.tile.BN);
    const std::string what = "kernel " + std::string(kernel.id) + "'s ";
    checkBufferFits(partialBytes, what + "partial tiles", device().limits());
    Stream stream{Buffer(device(), unitBytes, MemoryUse::Device, what + "units"), Buffer(device(), counterBytes, MemoryUse::Device, what + "counters"),
                  Buffer(device(), partialBytes, MemoryUse::Device, what + "partial tiles")};
    upload(*context_, stream.units, staging_, packed.plan.words.data(), unitBytes);
    context_->queue().execute([&](VkCommandBuffer cmd) { device().vk().vkCmdFillBuffer(cmd, stream.counters.handle(), 0, VK_WHOLE_SIZE, 0); }, false);
    stream.set = allocateSet();
    VkDescriptorBufferInfo buffers[Pipelines::kBindings] = {{packed.values.handle(), 0, VK_WHOLE_SIZE},
                                                          {b_.handle(), 0, VK_WHOLE_SIZE},
                                                          {c_.handle(), 0, VK_WHOLE_SIZE},
                                                          {packed.index.handle(), 0, VK_WHOLE_SIZE},
                                                          {stream.units.handle(), 0, VK_WHOLE_SIZE},
                                                          {stream.counters.handle(), 0, VK_WHOLE_SIZE},
                                                          {stream.partials.handle(), 0, VK_WHOLE_SIZE},
                                                          {noPattern_.handle(), 0, VK_WHOLE_SIZE}};
    writeSet(stream.set, buffers);
    return packed.streams.emplace(std::string(kernel.id), std::move(stream)).first->second.set;
  }
  std::map<int, Packed> packed_;
  std::map<std::tuple<int, int, bool, int>, VkDescriptorSet> sets_;
  std::vector<VkDescriptorPool> pools_;
  std::uint32_t setsInLastPool_ = 0;
};

}  // namespace

Specialization kernelConstants(const KernelInfo& kernel, const PipelineSwitches& switches) {
  const TileShape& t = kernel.tile;
  Specialization s;
  s.set(SpecId::BM, t.BM);
  s.set(SpecId::BN, t.BN);
  s.set(SpecId::BK, t.BK);
  s.set(SpecId::WM, t.WM);
  s.set(SpecId::WN, t.WN);
  s.set(SpecId::TM, t.TM);
  s.set(SpecId::TN, t.TN);
  s.set(SpecId::WorkgroupSize, t.threads);
  s.set(SpecId::AGranularity, kernel.aGranularity);
  s.set(SpecId::BGranularity, kernel.bGranularity);
  s.set(SpecId::LaneCols, kernel.hasWarpTile() ? warpLayout(kernel).laneCols : 1);
  s.set(SpecId::RingStages, glslRingStages(kernel));
  setSwitches(s, switches);
  return s;
}

std::array<std::uint32_t, 2> blockTileQueue(DeviceProblem& problem) {
  auto* onDevice = dynamic_cast<VulkanProblem*>(&problem);
  if (onDevice == nullptr) throw InputError("not a problem of the vulkan backend");
  return onDevice->tileQueue();
}

VulkanBackend::VulkanBackend(const BackendOptions& options) : context_(std::make_shared<Context>(options)) {
  overrides_ = std::make_shared<OverrideTable>();
  if (const char* text = std::getenv(kTileOverridesVariable); text != nullptr) {
    // Set, even empty, it is the whole choice: a tuning experiment must not mix with the cache.
    overrides_->everySize = parseTileOverrides(text, context_->device().limits());
  } else if (std::optional<std::filesystem::path> cache = tuneCachePath()) {
    // What `tileskip tune` chose on this device and driver, per size class. A cache that cannot
    // be used is reported and passed over: the catalogue's tiles always run.
    try {
      std::map<int, std::vector<KernelOverride>> chosen;
      for (const auto& [sizeClass, choices] : readTuneCache(*cache, tuneCacheKey(name(), context_->device().info()))) {
        for (const auto& [kernel, variant] : choices) {
          chosen[sizeClass].push_back(resolveVariant(kernel, variant, context_->device().limits(), "the tune cache " + cache->string()));
        }
      }
      overrides_->bySizeClass = std::move(chosen);  // all of them or, where one cannot be used, none
    } catch (const InputError& e) {
      std::cerr << "tileskip: vulkan: not using the tune cache: " << e.what() << "\n";
    }
  }
  describeDevice();
}

void VulkanBackend::describeDevice() {
  device_ = context_->device().info();
  // The device line of every report says so: a table never passes for the catalogue's tiles.
  if (std::string note = overrides_->describe(); !note.empty()) device_.api += " (" + note + ")";
}

std::vector<KernelVariant> VulkanBackend::variants(const KernelInfo& kernel) const {
  if (!implements(kernel.id)) return {};
  std::vector<KernelVariant> variants = tuningCandidates(kernel, context_->device().limits());
  return variants.size() > 1 ? variants : std::vector<KernelVariant>{};
}

void VulkanBackend::useVariant(const KernelInfo& kernel, const KernelVariant& variant) {
  std::vector<KernelVariant> offered = tuningCandidates(kernel, context_->device().limits());
  if (std::find(offered.begin(), offered.end(), variant) == offered.end()) {
    std::string list;
    for (const KernelVariant& v : offered) list += (list.empty() ? "'" : ", '") + variantText(v) + "'";
    throw InputError("vulkan has no variant '" + variantText(variant) + "' of kernel '" + std::string(kernel.id) +
                     "' on this device; it has " + list);
  }
  // Tuning compares each variant with the catalogue's own, at every size, whatever the cache holds.
  if (!overrides_->everySize) overrides_->everySize.emplace();
  std::vector<KernelOverride>& chosen = *overrides_->everySize;
  std::erase_if(chosen, [&](const KernelOverride& o) { return o.kernel.id == kernel.id; });
  if (!variant.isCatalogue()) chosen.push_back(resolveVariant(kernel.id, variant, context_->device().limits(), "tune"));
  describeDevice();
}

bool VulkanBackend::implements(std::string_view kernelId) const {
  const KernelInfo* info = findKernelInfo(kernelId);
  return info != nullptr && !info->isBaseline() && !embeddedSpirv(info->stem).empty() &&
         !tensorCoreProblem(*info, context_->device().limits(), context_->device().info().name);
}

std::optional<std::string> VulkanBackend::takeFirstBuildNote() {
  if (device_.isGpu || buildNoted_) return std::nullopt;
  buildNoted_ = true;
  return "vulkan: compiling the kernels' shaders for " + device_.name +
         " first, a few seconds each on a CPU device (once per process: it keeps no cache between runs)";
}

std::optional<std::string> VulkanBackend::refusal(const KernelInfo& catalogued, int m, int n, int k) const {
  const ComputeLimits& limits = context_->device().limits();
  KernelInfo kernel = catalogued;
  if (const KernelOverride* o = findOverride(overrides_->forProblem(m, n, k), catalogued)) kernel.tile = o->kernel.tile;
  if (std::optional<std::string> why = tensorCoreProblem(kernel, limits, context_->device().info().name)) return why;
  if (std::optional<std::string> why = launchProblem(kernel, limits)) return why;
  return loopLimitProblem(kernel, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k), limits);
}

bool VulkanBackend::takes(const KernelInfo& kernel, DType dtype) const {
  // GLSL here has fp16 cooperative matrices only (Debian 12's glslang knows no bf16 ones, and
  // VK_NV_cooperative_matrix offers no tf32 shape): the CUDA twins alone take tf32 and bf16. The
  // row-strip twins read fp32 words: the CUDA twins alone widen 16-bit ones.
  if (kernel.structure.mapping == ThreadMapping::RowStrips) return dtype == DType::Fp32;
  return kernel.takes(dtype) && (!kernel.usesTensorCores() || dtype == DType::Fp16);
}

std::optional<std::string> tensorCoreProblem(const KernelInfo& kernel, const ComputeLimits& limits, const std::string& deviceName) {
  if (!kernel.usesTensorCores()) return std::nullopt;
  if (!limits.halfArithmetic) {
    return "kernel " + std::string(kernel.id) + " needs fp16 in shaders and storage buffers (shaderFloat16, " +
           "storageBuffer16BitAccess), which " + deviceName + " does not offer";
  }
  // The emulated build (tests: testing_emulated_<stem>) needs no cooperative matrix.
  if (kernel.stem.rfind("testing_", 0) != 0 && !limits.cooperativeMatrix) {
    return "kernel " + std::string(kernel.id) + " needs VK_NV_cooperative_matrix with 16x16x16 fp16 x fp16 + fp32 in " +
           "subgroups of 32, which " + deviceName + " does not offer";
  }
  return std::nullopt;
}

std::optional<double> VulkanBackend::copyBandwidth() {
  Device& device = context_->device();
  // 64 MiB each way (within every device's allocation and buffer limits): past a GPU's L2.
  constexpr std::uint64_t kBytes = std::uint64_t{64} << 20;
  checkBufferFits(kBytes, "a copy's buffers", device.limits());
  Buffer from(device, kBytes, MemoryUse::Device, "a copy's source"), to(device, kBytes, MemoryUse::Device, "a copy's destination");
  context_->queue().execute([&](VkCommandBuffer cmd) { device.vk().vkCmdFillBuffer(cmd, from.handle(), 0, VK_WHOLE_SIZE, 0); }, false);
  std::vector<double> milliseconds;
  for (int run = 0; run < 6; ++run) {
    const double ms = context_->queue().execute(
        [&](VkCommandBuffer cmd) {
          const VkBufferCopy region{0, 0, kBytes};
          device.vk().vkCmdCopyBuffer(cmd, from.handle(), to.handle(), 1, &region);
        },
        true);
    if (run > 0) milliseconds.push_back(ms);  // the first warms the clocks up
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  return 2.0 * static_cast<double>(kBytes) / (milliseconds[milliseconds.size() / 2] * 1e-3);
}

std::unique_ptr<DeviceProblem> VulkanBackend::upload(const Matrix& a, const Matrix& b, DType dtype) {
  checkMultiplicable(a, b);
  return std::make_unique<VulkanProblem>(context_, overrides_, a, b, dtype);
}

}  // namespace tileskip::vk

namespace tileskip {

BackendEntry vulkanBackendEntry() {
  return {"vulkan", 20, [](const BackendOptions& options) -> std::unique_ptr<Backend> {
            return std::make_unique<vk::VulkanBackend>(options);
          }};
}

}  // namespace tileskip
