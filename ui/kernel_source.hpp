// The CUDA and GLSL twins of a kernel, for teaching mode's side-by-side source view. They are
// read at run time from a source tree, so the viewer shows the kernels as they are now and a
// backend merged later needs no change here. Roots are searched in order: $TILESKIP_SOURCE_DIR,
// the tree this binary was built from, <executable>/../share/tileskip.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/catalogue.hpp"

namespace tileskip::ui {

enum class SourceLanguage { Cuda, Glsl };

struct KernelSourceFile {
  std::string relativePath;  // "backends/cuda/k28_joint_8x32.cuh", empty for a vendor baseline
  std::string path;          // where it was read from; empty when not found
  std::string text;
  std::string note;          // why there is no text
  bool found() const { return !path.empty(); }
};

std::vector<std::filesystem::path> sourceRoots();

// Candidate paths of a kernel's twin relative to a root, most likely first.
std::vector<std::string> kernelSourceCandidates(const KernelInfo& kernel, SourceLanguage language);

KernelSourceFile loadKernelSource(const KernelInfo& kernel, SourceLanguage language,
                                  const std::vector<std::filesystem::path>& roots);

// 1-based numbers of the lines worth pointing at in a skipping kernel: where it reads pattern
// bits, votes on them or branches on them. Meaningless for a dense kernel, which reads none
// (the warp tiling it shares with the skipping kernels has a bit test of its own).
std::vector<int> skipDecisionLines(const std::string& text);

}  // namespace tileskip::ui
