#include "ui/render/png.hpp"

#include <stb_image_write.h>

#include <string>

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"

namespace tileskip::ui {

void writePng(const std::string& path, const std::vector<std::uint8_t>& rgba, int width, int height) {
  if (rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4) {
    throw InputError("a " + std::to_string(width) + "x" + std::to_string(height) + " screenshot needs " +
                     std::to_string(width * height * 4) + " bytes of RGBA");
  }
  // Encoded in memory, then written complete or not at all (a full disk, /dev/full: an error,
  // no truncated PNG).
  std::string encoded;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (stbi_write_png_to_func(append, &encoded, width, height, 4, rgba.data(), width * 4) == 0) {
    throw InputError(path + ": cannot encode the screenshot");
  }
  AtomicFile out(path);
  out.stream().write(encoded.data(), static_cast<std::streamsize>(encoded.size()));
  out.commit();
}

}  // namespace tileskip::ui
