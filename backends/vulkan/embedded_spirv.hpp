// SPIR-V of every shader in shaders/, compiled by glslangValidator at build time and embedded in
// the binary (backends/vulkan/CMakeLists.txt generates the table), so the installed tool needs
// no shader files beside it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tileskip::vk {

inline constexpr std::uint32_t kSpirvMagic = 0x07230203;

// The words of shader `stem` (a .comp file stem: "k28_joint_8x32", "patterns_a"); empty when no
// such shader was built.
std::span<const std::uint32_t> embeddedSpirv(std::string_view stem);

// Every embedded stem, including test-only variants (stems starting with "testing_").
std::span<const std::string_view> embeddedStems();

}  // namespace tileskip::vk
