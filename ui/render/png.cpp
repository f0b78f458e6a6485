#include "ui/render/png.hpp"

#include <stb_image_write.h>
#include <zlib.h>

#include <string>

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"

namespace tileskip::ui {

namespace {

void appendBigEndian(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xffu);
}

// One tEXt chunk: length, type, keyword NUL text, and the CRC-32 of type and data.
std::string textChunk(const std::string& keyword, const std::string& text) {
  if (keyword.empty() || keyword.size() > 79 || keyword.find('\0') != std::string::npos || text.find('\0') != std::string::npos) {
    throw InputError("a PNG text chunk needs a keyword of 1 to 79 characters and text without NUL: '" + keyword + "'");
  }
  std::string body = "tEXt" + keyword + '\0' + text;
  std::string chunk;
  appendBigEndian(chunk, static_cast<std::uint32_t>(body.size() - 4));
  chunk += body;
  appendBigEndian(chunk, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  return chunk;
}

}  // namespace

void writePng(const std::string& path, const std::vector<std::uint8_t>& rgba, int width, int height, const PngText& text) {
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
  // The text goes right after IHDR (the 8-byte signature, then IHDR's 4 + 4 + 13 + 4 bytes), where
  // readers look for it before the pixels.
  constexpr std::size_t kAfterHeader = 8 + 4 + 4 + 13 + 4;
  std::string chunks;
  for (const auto& [keyword, value] : text) chunks += textChunk(keyword, value);
  encoded.insert(kAfterHeader, chunks);
  AtomicFile out(path);
  out.stream().write(encoded.data(), static_cast<std::streamsize>(encoded.size()));
  out.commit();
}

}  // namespace tileskip::ui
