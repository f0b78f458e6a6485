#include "ui/kernel_source.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/runtime_module.hpp"

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

std::vector<std::string> kernelSourceCandidates(const KernelInfo& kernel, SourceLanguage language) {
  if (kernel.stem.empty()) return {};
  std::string stem(kernel.stem);
  if (language == SourceLanguage::Cuda) return {"backends/cuda/" + stem + ".cuh", "backends/cuda/" + stem + ".cu"};
  return {"shaders/" + stem + ".comp"};
}

KernelSourceFile loadKernelSource(const KernelInfo& kernel, SourceLanguage language, const std::vector<fs::path>& roots) {
  KernelSourceFile file;
  const char* what = language == SourceLanguage::Cuda ? "CUDA" : "GLSL";
  std::vector<std::string> candidates = kernelSourceCandidates(kernel, language);
  if (candidates.empty()) {
    file.note = std::string(kernel.id) + " is a vendor library: there is no " + what + " source to show.";
    return file;
  }
  file.relativePath = candidates.front();
  for (const fs::path& root : roots) {
    for (const std::string& candidate : candidates) {
      std::ifstream in(root / candidate, std::ios::binary);
      if (!in) continue;
      std::ostringstream text;
      text << in.rdbuf();
      file.relativePath = candidate;
      file.path = (root / candidate).string();
      file.text = text.str();
      return file;
    }
  }
  file.note = file.relativePath + " does not exist in this source tree yet (the " + what +
              " backend has not been merged here), or the viewer cannot find the tree: set TILESKIP_SOURCE_DIR.";
  return file;
}

std::vector<int> skipDecisionLines(const std::string& text) {
  // The names the twins use where they read pattern bits, vote on them or branch on them; not
  // the pattern pointers themselves, whose declarations say nothing about the skip.
  static const char* const kMarkers[] = {
      "jointPattern", "patternByte(", "patternUnion", "WordOver", "stageBits(", "stageKBlockMask(", "kBlockMask == 0",
      "SkipGemm<", "SkipGemm(", "& 1u)", "subgroupAny", "subgroupAll", "subgroupBallot", "subgroupAgreedBits", "__any_sync",
      "__all_sync", "__ballot_sync", "__syncthreads_or"};
  std::vector<int> lines;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    for (const char* marker : kMarkers) {
      if (line.find(marker) != std::string::npos) {
        lines.push_back(number);
        break;
      }
    }
  }
  return lines;
}

}  // namespace tileskip::ui
