// Teaching mode's source view: the CUDA and GLSL twins are found by their row's source in a source
// tree, a missing twin says so (and why), and the lines that decide a skip are marked.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ui/kernel_source.hpp"

using namespace tileskip;
using namespace tileskip::ui;
namespace fs = std::filesystem;

TEST(KernelSource, FindsTheTwinsByTheirSourceAndSaysWhenOneIsMissing) {
  fs::path root = fs::temp_directory_path() / ("tileskip_source_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "kernels");
  std::ofstream(root / "kernels" / "warp_uniform_skip.comp") << "// joint skip\n    walkKBlocks(row0, col0);\nx += 1;\n";
  const KernelInfo& kernel = kernelInfo("joint-8x32");

  KernelSourceFile glsl = loadKernelSource(kernel, SourceLanguage::Glsl, {root / "elsewhere", root});
  ASSERT_TRUE(glsl.found()) << glsl.note;
  EXPECT_EQ(glsl.relativePath, "kernels/warp_uniform_skip.comp");
  EXPECT_NE(glsl.text.find("walkKBlocks"), std::string::npos);
  EXPECT_EQ(skipDecisionLines(glsl.relativePath, glsl.text), std::vector<int>{2});
  // The same line in a file no marker points at is not marked.
  EXPECT_TRUE(skipDecisionLines("kernels/parts/stage.glsl", glsl.text).empty());

  KernelSourceFile cuda = loadKernelSource(kernel, SourceLanguage::Cuda, {root});
  EXPECT_FALSE(cuda.found());
  EXPECT_EQ(cuda.relativePath, "kernels/warp_uniform_skip.cuh");
  EXPECT_NE(cuda.note.find("does not exist"), std::string::npos) << cuda.note;

  KernelSourceFile vendor = loadKernelSource(kernelInfo("cublas"), SourceLanguage::Cuda, {root});
  EXPECT_FALSE(vendor.found());
  EXPECT_NE(vendor.note.find("vendor library"), std::string::npos);
  // A Hopper kernel has CUDA source and no GLSL twin, and says why rather than "not found".
  KernelSourceFile hopper = loadKernelSource(kernelInfo("wgmma"), SourceLanguage::Glsl, {root});
  EXPECT_FALSE(hopper.found());
  EXPECT_NE(hopper.note.find("no GLSL twin"), std::string::npos) << hopper.note;
  EXPECT_EQ(kernelSourceCandidates(kernelInfo("wgmma"), SourceLanguage::Cuda).front(), "kernels/k14_wgmma.cuh");
  fs::remove_all(root);
}

TEST(KernelSource, TheBuildTreeIsASourceRoot) {
  std::vector<fs::path> roots = sourceRoots();
  bool hasCore = false;
  for (const fs::path& r : roots) hasCore = hasCore || fs::exists(r / "core" / "model" / "catalogue.hpp");
  EXPECT_TRUE(hasCore);
}

// Every marker the viewer uses matches a line of the file it points at (for a folder, of some
// kernel twin in it): a renamed function cannot silently leave the viewer pointing at nothing.
TEST(KernelSource, EveryMarkerMatchesALineOfItsFile) {
  std::vector<fs::path> roots = sourceRoots();
  for (const SkipMarker& m : skipMarkers()) {
    std::vector<std::string> files;
    if (m.file.back() == '/') {
      for (const KernelInfo& kernel : twinKernels()) {
        for (SourceLanguage language : {SourceLanguage::Cuda, SourceLanguage::Glsl}) {
          KernelSourceFile file = loadKernelSource(kernel, language, roots);
          if (file.found() && file.relativePath.rfind(m.file, 0) == 0) files.push_back(file.relativePath);
        }
      }
    } else {
      files.emplace_back(m.file);
    }
    bool matched = false;
    for (const std::string& relative : files) {
      for (const fs::path& root : roots) {
        std::ifstream in(root / relative);
        for (std::string line; in && std::getline(in, line);) matched = matched || line.find(m.marker) != std::string::npos;
        if (in.is_open()) break;
      }
    }
    EXPECT_TRUE(matched) << "marker '" << m.marker << "' matches no line of " << m.file;
  }
}

// Every skipping kernel's twins point at their skip, following includes to the shared main loop
// where the warp-uniform kernels decide it: the block's gathered K-block list and the warp's
// per-sub-tile update.
TEST(KernelSource, EverySkippingKernelShowsWhereItsSkipIsDecided) {
  std::vector<fs::path> roots = sourceRoots();
  for (const KernelInfo& kernel : kCatalogue) {
    if (kernel.stem.empty() || !kernel.skips()) continue;
    for (SourceLanguage language : {SourceLanguage::Cuda, SourceLanguage::Glsl}) {
      if (language == SourceLanguage::Glsl && !kernel.hasGlslTwin()) continue;
      std::vector<MarkedSource> sources = skipSources(kernel, language, roots);
      ASSERT_TRUE(sources.front().file.found()) << sources.front().file.note;
      EXPECT_FALSE(sources.front().marks.empty()) << sources.front().file.relativePath << " marks no line";
      if (kernel.structure.skip == SkipScope::Block) {
        // Compaction: the kernel lists a pass of live columns; the gather part reads and orders them.
        ASSERT_EQ(sources.size(), 2u) << kernel.id << ": the include that gathers the live columns is not followed";
        const bool cuda = language == SourceLanguage::Cuda;
        EXPECT_EQ(sources.back().file.relativePath, cuda ? "kernels/parts/gather.cuh" : "kernels/parts/gather.glsl");
        EXPECT_GE(sources.back().marks.size(), 3u) << kernel.id << ": the pattern words, the ballots, the list";
        continue;
      }
      if (kernel.structure.skip == SkipScope::Topology) {
        // A bsr kernel's list is its packed A's index: the kernel reads the tile's slice of it, and
        // where the staging part reads each kept block's column, that part is followed.
        std::size_t marks = 0;
        for (const MarkedSource& source : sources) marks += source.marks.size();
        EXPECT_GE(marks, 2u) << kernel.id << ": where the index gives the blocks, and each block's column";
        if (sources.size() == 2u) EXPECT_FALSE(sources.back().marks.empty()) << sources.back().file.relativePath;
        continue;
      }
      if (kernel.needsHopper()) {
        // Gathered and decided in the kernel's own file: the list and each consumer warpgroup's bit.
        EXPECT_EQ(sources.size(), 1u) << kernel.id;
        EXPECT_GE(sources.front().marks.size(), 3u) << kernel.id << ": the joint bytes, the compaction, the warpgroup's bit";
        continue;
      }
      if (kernel.structure.skip == SkipScope::Thread) {
        EXPECT_EQ(sources.size(), 1u) << kernel.id << ": a per-thread skip is decided in the kernel's own file";
        continue;
      }
      ASSERT_EQ(sources.size(), 2u) << kernel.id << ": the include that decides the skip is not followed";
      const MarkedSource& decision = sources.back();
      auto marked = [](const MarkedSource& source, std::string_view name) {
        std::istringstream in(source.file.text);
        int number = 0;
        for (std::string line; std::getline(in, line);) {
          ++number;
          if (line.find(name) != std::string::npos &&
              std::find(source.marks.begin(), source.marks.end(), number) != source.marks.end()) {
            return true;
          }
        }
        return false;
      };
      const bool cuda = language == SourceLanguage::Cuda;
      if (kernel.usesTensorCores()) {
        // The block's gather is shared; each warp's decision to issue an MMA step is the kernel's own.
        EXPECT_EQ(decision.file.relativePath, cuda ? "kernels/parts/block_skip.cuh" : "kernels/parts/block_skip.glsl");
        EXPECT_TRUE(marked(sources.front(), "warpKeptSteps")) << kernel.id;
        EXPECT_TRUE(marked(sources.front(), "kept >>")) << kernel.id;
        EXPECT_TRUE(marked(decision, "gatherKBlocks(")) << kernel.id;
        continue;
      }
      // The kernel walks the list its block gathers; the warp's decision is the warp_skip part's.
      EXPECT_TRUE(marked(sources.front(), "walkKBlocks")) << kernel.id;
      EXPECT_EQ(decision.file.relativePath, cuda ? "kernels/parts/warp_skip.cuh" : "kernels/parts/warp_skip.glsl");
      EXPECT_TRUE(marked(decision, "gatherKBlocks")) << kernel.id;
      EXPECT_TRUE(marked(decision, "updateKBlock(")) << kernel.id;
    }
  }
  // A dense kernel's source is shown alone and unmarked.
  std::vector<MarkedSource> dense = skipSources(kernelInfo("pipelined"), SourceLanguage::Cuda, roots);
  ASSERT_EQ(dense.size(), 1u);
  EXPECT_TRUE(dense.front().marks.empty());
}
