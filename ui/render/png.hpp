// Writing a screenshot: RGBA8 pixels to a PNG file with stb_image_write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tileskip::ui {

// Throws InputError when the file cannot be written (naming the path).
void writePng(const std::string& path, const std::vector<std::uint8_t>& rgba, int width, int height);

}  // namespace tileskip::ui
