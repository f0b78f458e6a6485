// Teaching mode's source view: the CUDA and GLSL twins are found by stem in a source tree, a
// missing twin says so (and why), and the lines that decide a skip are marked.
#include <gtest/gtest.h>

#include <fstream>

#include "ui/kernel_source.hpp"

using namespace tileskip;
using namespace tileskip::ui;
namespace fs = std::filesystem;

TEST(KernelSource, FindsTheTwinsByStemAndSaysWhenOneIsMissing) {
  fs::path root = fs::temp_directory_path() / ("tileskip_source_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "shaders");
  std::ofstream(root / "shaders" / "k28_joint_8x32.comp") << "// joint skip\nif (jointPattern == 0u) continue;\nx += 1;\n";
  const KernelInfo& kernel = kernelInfo("joint-8x32");

  KernelSourceFile glsl = loadKernelSource(kernel, SourceLanguage::Glsl, {root / "elsewhere", root});
  ASSERT_TRUE(glsl.found()) << glsl.note;
  EXPECT_EQ(glsl.relativePath, "shaders/k28_joint_8x32.comp");
  EXPECT_NE(glsl.text.find("jointPattern"), std::string::npos);
  EXPECT_EQ(skipDecisionLines(glsl.text), std::vector<int>{2});

  KernelSourceFile cuda = loadKernelSource(kernel, SourceLanguage::Cuda, {root});
  EXPECT_FALSE(cuda.found());
  EXPECT_EQ(cuda.relativePath, "backends/cuda/k28_joint_8x32.cuh");
  EXPECT_NE(cuda.note.find("does not exist"), std::string::npos) << cuda.note;

  KernelSourceFile vendor = loadKernelSource(kernelInfo("cublas"), SourceLanguage::Cuda, {root});
  EXPECT_FALSE(vendor.found());
  EXPECT_NE(vendor.note.find("vendor library"), std::string::npos);
  fs::remove_all(root);
}

TEST(KernelSource, TheBuildTreeIsASourceRoot) {
  std::vector<fs::path> roots = sourceRoots();
  bool hasCore = false;
  for (const fs::path& r : roots) hasCore = hasCore || fs::exists(r / "core" / "catalogue.hpp");
  EXPECT_TRUE(hasCore);
}

// Every skipping kernel's twins point at their skip: the markers follow the names the sources
// really use, in both languages.
TEST(KernelSource, EverySkippingKernelMarksItsSkipInBothTwins) {
  std::vector<fs::path> roots = sourceRoots();
  for (const KernelInfo& kernel : kCatalogue) {
    if (kernel.stem.empty() || !(kernel.usesAPattern() || kernel.usesBPattern())) continue;
    for (SourceLanguage language : {SourceLanguage::Cuda, SourceLanguage::Glsl}) {
      KernelSourceFile file = loadKernelSource(kernel, language, roots);
      ASSERT_TRUE(file.found()) << file.note;
      EXPECT_FALSE(skipDecisionLines(file.text).empty()) << file.relativePath << " marks no line";
    }
  }
}
