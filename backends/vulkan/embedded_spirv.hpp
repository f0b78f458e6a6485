// SPIR-V of every GLSL twin and support shader in kernels/, compiled by glslangValidator at build time and embedded in
// the binary (backends/vulkan/CMakeLists.txt generates the table), so the installed tool needs
// no shader files beside it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace tileskip::vk {

inline constexpr std::uint32_t kSpirvMagic = 0x07230203;

// The words of shader `stem` (a .comp file stem: "s07_joint_8x32", "pattern_a"), or of a shader
// added by addEmbeddedShaders(); empty when there is no such shader.
std::span<const std::uint32_t> embeddedSpirv(std::string_view stem);

// Every stem the product embeds (not the added ones).
std::span<const std::string_view> embeddedStems();

struct EmbeddedShader {
  std::string_view stem;
  std::span<const std::uint32_t> words;
};

// Makes `shaders` (static data) visible to embeddedSpirv() after the product's own. The tests
// add their test-only builds this way (testingShaders()), so the product does not ship them.
// Call before any backend looks a shader up; not thread-safe.
void addEmbeddedShaders(std::span<const EmbeddedShader> shaders);

// The "testing_" builds (shaders compiled with a TILESKIP_TEST_ define). Defined only in
// tileskip_vulkan_test_shaders, which only the tests link.
std::span<const EmbeddedShader> testingShaders();

}  // namespace tileskip::vk
