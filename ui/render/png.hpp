// Writing a screenshot: RGBA8 pixels to a PNG file with stb_image_write, and text chunks that say
// what the picture shows, so a check can tell a current picture from a stale one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tileskip::ui {

// (keyword, text) pairs written as PNG tEXt chunks: keywords of 1 to 79 printable Latin-1
// characters, text without NUL (ASCII JSON here).
using PngText = std::vector<std::pair<std::string, std::string>>;

// Throws InputError when the file cannot be written (naming the path).
void writePng(const std::string& path, const std::vector<std::uint8_t>& rgba, int width, int height, const PngText& text = {});

}  // namespace tileskip::ui
