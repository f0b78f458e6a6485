#include "ui/render/png.hpp"

#include <stb_image_write.h>

#include "core/error.hpp"

namespace tileskip::ui {

void writePng(const std::string& path, const std::vector<std::uint8_t>& rgba, int width, int height) {
  if (rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4) {
    throw InputError("a " + std::to_string(width) + "x" + std::to_string(height) + " screenshot needs " +
                     std::to_string(width * height * 4) + " bytes of RGBA");
  }
  if (stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4) == 0) {
    throw InputError(path + ": cannot write the screenshot here (does the folder exist?)");
  }
}

}  // namespace tileskip::ui
