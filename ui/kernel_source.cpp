#include "ui/kernel_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <fstream>
#include <sstream>

#include "core/process/runtime_module.hpp"

namespace tileskip::ui {

namespace fs = std::filesystem;

std::vector<fs::path> sourceRoots() {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("TILESKIP_SOURCE_DIR"); env != nullptr && *env != '\0') roots.emplace_back(env);
#ifdef TILESKIP_SOURCE_DIR
  roots.emplace_back(TILESKIP_SOURCE_DIR);
#endif
  if (const std::string folder = executableFolder(); folder != ".") {
    roots.push_back(fs::path(folder).parent_path() / "share" / "tileskip");
  }
  return roots;
}

namespace {
std::optional<KernelSourceFile> readSource(const std::string& relativePath, const std::vector<fs::path>& roots);
}  // namespace

std::vector<std::string> kernelSourceCandidates(const KernelInfo& kernel, SourceLanguage language) {
  if (kernel.source.empty()) return {};
  const std::string source(kernel.source);
  if (language == SourceLanguage::Cuda) return {"kernels/" + source + ".cuh"};
  if (!kernel.hasGlslTwin()) return {};
  return {"kernels/" + source + ".comp"};
}

KernelSourceFile loadKernelSource(const KernelInfo& kernel, SourceLanguage language, const std::vector<fs::path>& roots) {
  KernelSourceFile file;
  const char* what = language == SourceLanguage::Cuda ? "CUDA" : "GLSL";
  std::vector<std::string> candidates = kernelSourceCandidates(kernel, language);
  if (candidates.empty()) {
    file.note = kernel.isBaseline() ? std::string(kernel.id) + " is a vendor library: there is no " + what + " source to show."
                                    : std::string(kernel.id) +
                                          " has no GLSL twin: it is built on Hopper's warpgroup MMAs and mbarriers, which "
                                          "Vulkan does not have (see its CUDA source).";
    return file;
  }
  file.relativePath = candidates.front();
  for (const fs::path& root : roots) {
    for (const std::string& candidate : candidates) {
      if (std::optional<KernelSourceFile> found = readSource(candidate, {root})) return *found;
    }
  }
  file.note = file.relativePath + " does not exist in this source tree yet (the " + what +
              " backend has not been merged here), or the viewer cannot find the tree: set TILESKIP_SOURCE_DIR.";
  return file;
}

namespace {

// The names the twins use where they read pattern bits, vote on them or branch on them; not the
// pattern pointers themselves, whose declarations say nothing about the skip.
constexpr SkipMarker kSkipMarkers[] = {
    // The per-thread skips live in the kernels' own files.
    {"kernels/s01_a_row.cuh", "patternByte("},
    {"kernels/s01_a_row.cuh", "(aBits >> k) & 1u"},
    {"kernels/s03_b_group8.cuh", "patternByte("},
    {"kernels/s03_b_group8.cuh", "(bBits >> k) & 1u"},
    {"kernels/s01_a_row.comp", "aWordOverRows("},
    {"kernels/s03_b_group8.comp", "bWordOverCols("},
    {"kernels/s01_a_row.comp", "stageBits("},
    {"kernels/s03_b_group8.comp", "stageBits("},
    {"kernels/s01_a_row.comp", "& 1u) != 0u) threadTileRank1"},
    {"kernels/s03_b_group8.comp", "& 1u) != 0u) threadTileRank1"},
    // The warp-uniform kernels walk the K-blocks their block gathers (parts/block_skip), and each
    // warp decides per sub-tile (parts/warp_skip).
    {"kernels/warp_uniform_skip.cuh", "keepsEverything<"},
    {"kernels/warp_uniform_skip.cuh", "walkKBlocks<"},
    {"kernels/warp_uniform_skip.comp", "walkKBlocks("},
    {"kernels/warp_uniform_skip.comp", "placeBlockPatternTiles("},
    {"kernels/parts/warp_skip.cuh", "gatherKBlocks<"},
    {"kernels/parts/warp_skip.cuh", "updateKBlock("},
    {"kernels/parts/warp_skip.cuh", "jointPattern"},
    {"kernels/parts/warp_skip.glsl", "gatherKBlocks("},
    {"kernels/parts/warp_skip.glsl", "updateKBlock("},
    {"kernels/parts/warp_skip.glsl", "jointPattern"},
    {"kernels/parts/block_skip.cuh", "gatherKBlocks("},
    {"kernels/parts/block_skip.cuh", "__ballot_sync"},
    {"kernels/parts/block_skip.cuh", "keepsEverything("},
    {"kernels/parts/block_skip.glsl", "gatherKBlocks("},
    {"kernels/parts/block_skip.glsl", "subgroupBallot("},
    {"kernels/parts/block_skip.glsl", "blockKept("},
    // The tensor-core joint kernel decides its warps' multiplies in its own file; the block's
    // K-block list comes from the shared gather above.
    {"kernels/s10_mma_joint_64x32.cuh", "keepsEverything<"},
    {"kernels/s10_mma_joint_64x32.cuh", "gatherKBlocks<"},
    {"kernels/s10_mma_joint_64x32.cuh", "warpKeptSteps"},
    {"kernels/s10_mma_joint_64x32.cuh", "unsigned joint"},
    {"kernels/s10_mma_joint_64x32.cuh", "recordKeptSteps<"},
    {"kernels/s10_mma_joint_64x32.cuh", "kept >>"},
    // The Hopper joint kernel gathers and decides in its own file: the joint bytes of each K-tile,
    // their compaction into the list, and each consumer warpgroup's bit.
    {"kernels/s11_wgmma_joint_64x64.cuh", "joint |= patternByte("},
    {"kernels/s11_wgmma_joint_64x64.cuh", "__ballot_sync"},
    {"kernels/s11_wgmma_joint_64x64.cuh", "list.consumers[i] >> consumer"},
    // S12 (and S13, its source) decides in its own file too: the producer warp's joint bytes, its
    // ballot listing the kept K-tiles in K order, and the bit of each consumer that multiplies one
    // (which the consumers read from the stage's note: warpgroup.cuh's consumeQueue).
    {"kernels/s12_wgmma_queue_joint_64x64.cuh", "const std::uint64_t joint ="},
    {"kernels/s12_wgmma_queue_joint_64x64.cuh", "__ballot_sync"},
    {"kernels/s12_wgmma_queue_joint_64x64.cuh", "kept |= 1u << c"},
    {"kernels/s10_mma_joint_64x32.comp", "placeBlockPatternTiles("},
    {"kernels/s10_mma_joint_64x32.comp", "blockKeepsEverything("},
    {"kernels/s10_mma_joint_64x32.comp", "gatherKBlocks("},
    {"kernels/s10_mma_joint_64x32.comp", "warpKeptSteps("},
    {"kernels/s10_mma_joint_64x32.comp", "warpJointBits("},
    {"kernels/s10_mma_joint_64x32.comp", "recordKeptSteps("},
    {"kernels/s10_mma_joint_64x32.comp", "kept >>"},
    // Compaction: the kernel lists its tile's live columns a pass at a time; the gather part reads
    // them from the A-pattern's words and writes them in K order.
    {"kernels/s14_compact_mma_64.cuh", "gatherLiveColumns<"},
    {"kernels/s14_compact_mma_64.cuh", "GatheredColumns<"},
    {"kernels/s14_compact_mma_64.comp", "gatherLiveColumns("},
    // S15's producer lists them the same way and gathers each K-tile's rows by copies of its own.
    {"kernels/s15_compact_wgmma_128.cuh", "gatherLiveColumns<"},
    {"kernels/s15_compact_wgmma_128.cuh", "GatheredColumns<"},
    {"kernels/s15_compact_wgmma_128.cuh", "copyGatheredKTile<"},
    // S16's too, and walks them through K12's loop from rows of A transposed.
    {"kernels/s16_compact_64.cuh", "gatherLiveColumns<"},
    {"kernels/s16_compact_64.cuh", "gatheredKLoop("},
    {"kernels/s16_compact_64.comp", "gatherLiveColumns("},
    {"kernels/s16_compact_64.comp", "gatheredKLoop("},
    {"kernels/parts/gather.cuh", "patternWord<"},
    {"kernels/parts/gather.cuh", "__ballot_sync"},
    {"kernels/parts/gather.cuh", "list[at++]"},
    {"kernels/parts/gather.glsl", "aPattern["},
    {"kernels/parts/gather.glsl", "subgroupBallot("},
    {"kernels/parts/gather.glsl", "liveColumns[at++]"},
    // A bsr kernel decides nothing from a pattern: its packed A's index is the list. S19's block
    // row's slice of it gives the steps, each reading its kept block's column (parts/packed_stage).
    {"kernels/s19_bsr_64.cuh", "staged.steps()"},
    {"kernels/s19_bsr_64.comp", "packedSteps()"},
    {"kernels/parts/packed_stage.cuh", "packed.rowPointers() +"},
    {"kernels/parts/packed_stage.cuh", "__ldg(columns + kept)"},
    {"kernels/parts/packed_stage.glsl", "packedIndex[blockRow"},
    {"kernels/parts/packed_stage.glsl", "packedIndex[packedColumnsAt + kept]"},
    // S20's unit of the plan names its block row's kept blocks, each read at its column.
    {"kernels/s20_bsr_stream_64.cuh", "stream.unit(unit)"},
    {"kernels/s20_bsr_stream_64.cuh", "A.columnIndices() + kept"},
    {"kernels/s20_bsr_stream_64.comp", "streamUnits[at"},
    {"kernels/s20_bsr_stream_64.comp", "packedIndex[columnsAt + kept]"},
    // S21's producer walks its consumers' block rows together, a kept column at a time, and sets
    // the bit of each consumer whose row keeps it.
    {"kernels/s21_bsr_wgmma_64.cuh", "next[c] = blockRow < A.blockRows"},
    {"kernels/s21_bsr_wgmma_64.cuh", "consumers |= 1u << c"},
    {"kernels/s21_bsr_wgmma_64.cuh", "ring.fillPacked("},
};

bool markerApplies(const SkipMarker& m, const std::string& relativePath) { return relativePath == m.file; }

bool hasOwnMarkers(const std::string& relativePath) {
  for (const SkipMarker& m : kSkipMarkers) {
    if (m.file == relativePath) return true;
  }
  return false;
}

std::optional<KernelSourceFile> readSource(const std::string& relativePath, const std::vector<fs::path>& roots) {
  for (const fs::path& root : roots) {
    std::ifstream in(root / relativePath, std::ios::binary);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    KernelSourceFile file;
    file.relativePath = relativePath;
    file.path = (root / relativePath).string();
    file.text = text.str();
    return file;
  }
  return std::nullopt;
}

// The files `text` includes with #include "name", relative to the root, as written (a name
// resolves against the including file's folder, as both compilers do here).
std::vector<std::string> quotedIncludes(const std::string& relativePath, const std::string& text) {
  std::string folder = fs::path(relativePath).parent_path().generic_string();
  std::vector<std::string> names;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line.compare(at, 8, "#include") != 0) continue;
    std::size_t open = line.find('"', at), close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close == std::string::npos) continue;
    names.push_back((folder.empty() ? "" : folder + "/") + line.substr(open + 1, close - open - 1));
  }
  return names;
}

// Depth-first from `relativePath`: the first included file with markers of its own.
std::optional<KernelSourceFile> decidingInclude(const KernelSourceFile& from, const std::vector<fs::path>& roots,
                                                std::vector<std::string>& visited, int depth) {
  if (depth > 8) return std::nullopt;
  for (const std::string& name : quotedIncludes(from.relativePath, from.text)) {
    if (std::find(visited.begin(), visited.end(), name) != visited.end()) continue;
    visited.push_back(name);
    std::optional<KernelSourceFile> file = readSource(name, roots);
    if (!file) continue;
    if (hasOwnMarkers(name) && !skipDecisionLines(name, file->text).empty()) return file;
    if (std::optional<KernelSourceFile> deeper = decidingInclude(*file, roots, visited, depth + 1)) return deeper;
  }
  return std::nullopt;
}

}  // namespace

std::span<const SkipMarker> skipMarkers() { return kSkipMarkers; }

std::vector<int> skipDecisionLines(const std::string& relativePath, const std::string& text) {
  std::vector<const SkipMarker*> markers;
  for (const SkipMarker& m : kSkipMarkers) {
    if (markerApplies(m, relativePath)) markers.push_back(&m);
  }
  std::vector<int> lines;
  if (markers.empty()) return lines;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    for (const SkipMarker* m : markers) {
      if (line.find(m->marker) != std::string::npos) {
        lines.push_back(number);
        break;
      }
    }
  }
  return lines;
}

std::vector<MarkedSource> skipSources(const KernelInfo& kernel, SourceLanguage language, const std::vector<fs::path>& roots) {
  std::vector<MarkedSource> sources;
  sources.push_back({loadKernelSource(kernel, language, roots), {}});
  if (!kernel.skips() || !sources.front().file.found()) return sources;
  MarkedSource& own = sources.front();
  own.marks = skipDecisionLines(own.file.relativePath, own.file.text);
  std::vector<std::string> visited{own.file.relativePath};
  if (std::optional<KernelSourceFile> include = decidingInclude(own.file, roots, visited, 0)) {
    std::vector<int> marks = skipDecisionLines(include->relativePath, include->text);
    sources.push_back({std::move(*include), std::move(marks)});
  }
  return sources;
}

}  // namespace tileskip::ui
