// The CUDA and GLSL twins of a kernel, for teaching mode's side-by-side source view. They are
// read at run time from a source tree, so the viewer shows the kernels as they are now and a
// backend merged later needs no change here. Roots are searched in order: $TILESKIP_SOURCE_DIR,
// the tree this binary was built from, <executable>/../share/tileskip.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/catalogue.hpp"

namespace tileskip::ui {

enum class SourceLanguage { Cuda, Glsl };

struct KernelSourceFile {
  std::string relativePath;  // "kernels/s10_mma_joint_64x32.cuh", empty for a vendor baseline
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

// A line worth pointing at in a skipping kernel's source: where it reads pattern bits, votes on
// them or branches on them. `file` is a path relative to a source root. Each marker matches a line
// of the file it points at
// (KernelSource.EveryMarkerMatchesALineOfItsFile).
struct SkipMarker {
  std::string_view file;
  std::string_view marker;
};
std::span<const SkipMarker> skipMarkers();

// 1-based numbers of the lines of `text` (the file at `relativePath`) that hold a marker for it.
// Meaningless for a dense kernel, which reads no pattern.
std::vector<int> skipDecisionLines(const std::string& relativePath, const std::string& text);

// A source file with its marked lines.
struct MarkedSource {
  KernelSourceFile file;
  std::vector<int> marks;
};

// The kernel's twin in `language` and, where its skip is decided in a file it includes (the
// warp-uniform kernels' source walks a list the block skip part gathers), that file
// after it: the viewer shows both and scrolls to the decision. Includes are followed depth-first
// in the order they appear, to the first file with markers of its own. A dense kernel gets its
// own file, unmarked.
std::vector<MarkedSource> skipSources(const KernelInfo& kernel, SourceLanguage language,
                                      const std::vector<std::filesystem::path>& roots);

}  // namespace tileskip::ui
