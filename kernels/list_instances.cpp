// Writes, at configure time, what the build makes of the catalogue's rows (kernels/CMakeLists.txt
// runs it): the CUDA instance table, one instance per row and dtype the row takes, and the list of
// GLSL twins the Vulkan backend compiles, each a named variant of its row's source. Adding a kernel
// is a catalogue row and its source files; nothing here names a kernel.
//   list_instances OUTPUT_DIR
// writes OUTPUT_DIR/kernel_instances.cuh and OUTPUT_DIR/glsl_twins.cmake.
//
// The table comes in kTableParts parts (instance i in part i % kTableParts), each a macro of its
// entries: the CUDA module lists them all, while the tests' CPU emulator compiles each part in a
// file of its own (tests/cuda_emulation/emulated_instances.cpp), side by side: the whole table as
// one file was the sanitizer build's slowest compile, alone on one core at the end.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/catalogue.hpp"

namespace {

using tileskip::DType;
using tileskip::KernelInfo;

constexpr DType kEveryDType[] = {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16};
constexpr int kTableParts = 2;  // tests/CMakeLists.txt compiles as many emulator parts

const char* dtypeEnumerator(DType type) {
  switch (type) {
    case DType::Fp32: return "DType::Fp32";
    case DType::Tf32: return "DType::Tf32";
    case DType::Fp16: return "DType::Fp16";
    case DType::Bf16: return "DType::Bf16";
  }
  return "";
}

// "joint-64x32" -> "kTileskipRowJoint64x32": the row as a variable of its own.
std::string rowVariable(const KernelInfo& row) {
  std::string name = "kTileskipRow";
  bool upper = true;
  for (char c : row.id) {
    if (c == '-') {
      upper = true;
      continue;
    }
    name += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  return name;
}

std::string cudaInstances() {
  std::ostringstream out;
  out << "// Generated from core/model/catalogue.hpp by kernels/list_instances.cpp at configure time. Do not edit:\n"
         "// a kernel is added by its catalogue row and its source files (docs/adding-a-kernel.md).\n"
         "#pragma once\n\n"
         "#include \"backends/cuda/gemm_instance.cuh\"\n";
  std::set<std::string> sources;
  for (const KernelInfo& row : tileskip::twinKernels()) {
    if (sources.insert(std::string(row.source)).second) out << "#include \"kernels/" << row.source << ".cuh\"\n";
  }
  out << "\n// Each row as a variable of its own, at global scope: nvcc takes a whole variable as a kernel's\n"
         "// reference template argument, but neither an element of kCatalogue nor a variable in a namespace.\n";
  std::size_t index = 0;
  for (const KernelInfo& row : tileskip::kCatalogue) {
    if (!row.isBaseline()) {
      out << "inline constexpr tileskip::KernelInfo " << rowVariable(row) << " = tileskip::kCatalogue[" << index << "];\n";
    }
    ++index;
  }
  // Every row x every dtype it takes: the kernel of its source, instantiated for both.
  std::vector<std::ostringstream> parts(kTableParts);
  int count = 0;
  for (const KernelInfo& row : tileskip::twinKernels()) {
    for (DType type : kEveryDType) {
      if (!row.takes(type)) continue;
      const std::string args = rowVariable(row) + ", " + dtypeEnumerator(type);
      parts[count++ % kTableParts] << " \\\n    instance<" << args << ", &" << row.source << "<" << args << ">>(),";
    }
  }
  out << "\n// Every row x every dtype it takes, in " << kTableParts << " parts (kernels/list_instances.cpp says why).\n";
  std::string all;
  for (int p = 0; p < kTableParts; ++p) {
    out << "#define TILESKIP_GEMM_INSTANCES_PART_" << p << parts[p].str() << "\n";
    all += " TILESKIP_GEMM_INSTANCES_PART_" + std::to_string(p);
  }
  out << "\n#if !defined(TILESKIP_GEMM_INSTANCE_PARTS_ONLY)\n"
         "namespace tileskip::cuda {\n\n"
         "inline const GemmInstance kGemmInstances[] = {" << all << "};\n\n"
         "}  // namespace tileskip::cuda\n"
         "#endif\n";
  return out.str();
}

// One CMake list entry per GLSL twin: "stem|source|defines", the defines separated by ','.
std::string glslTwins() {
  std::ostringstream out;
  out << "# Generated from core/model/catalogue.hpp by kernels/list_instances.cpp at configure time. Do not edit.\n"
         "# Each GLSL twin: its stem (the SPIR-V's name), the source it is a variant of, and the defines that make it.\n"
         "set(TILESKIP_GLSL_TWINS\n";
  for (const KernelInfo& row : tileskip::twinKernels()) {
    if (!row.hasGlslTwin()) continue;
    out << "  \"" << row.stem << "|" << row.source << "|";
    const char* separator = "";
    for (std::string_view define : tileskip::glslDefines(row)) {
      out << separator << define;
      separator = ",";
    }
    out << "\"\n";
  }
  out << ")\n";
  // The tensor-core twins, which the tests also build on emulated cooperative matrices.
  out << "set(TILESKIP_GLSL_TENSOR_CORE_TWINS";
  for (const KernelInfo& row : tileskip::twinKernels()) {
    if (row.hasGlslTwin() && row.usesTensorCores()) out << " " << row.stem;
  }
  out << ")\n";
  return out.str();
}

// Writes `text` to `path` unless the file holds it already, so that an unchanged catalogue
// rebuilds nothing.
bool writeIfChanged(const std::string& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: list_instances OUTPUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  if (!writeIfChanged(dir + "/kernel_instances.cuh", cudaInstances()) || !writeIfChanged(dir + "/glsl_twins.cmake", glslTwins())) {
    std::cerr << "list_instances: cannot write into " << dir << "\n";
    return 1;
  }
  return 0;
}
