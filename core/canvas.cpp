#include "core/canvas.hpp"

#include <stb/stb_easy_font.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>

#include "core/error.hpp"

namespace tileskip {

namespace {

std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

void putBigEndian(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

void chunk(std::vector<std::uint8_t>& png, const char type[4], const std::vector<std::uint8_t>& data) {
  putBigEndian(png, static_cast<std::uint32_t>(data.size()));
  std::size_t start = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  putBigEndian(png, crc32(png.data() + start, png.size() - start));
}

}  // namespace

Canvas::Canvas(int width, int height, Colour background)
    : width_(width), height_(height), rgb_(static_cast<std::size_t>(width) * height * 3) {
  fillRect(0, 0, width, height, background);
}

void Canvas::pixel(int x, int y, Colour c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  std::uint8_t* p = &rgb_[(static_cast<std::size_t>(y) * width_ + x) * 3];
  p[0] = c.r, p[1] = c.g, p[2] = c.b;
}

void Canvas::fillRect(int x0, int y0, int x1, int y1, Colour c) {
  for (int y = std::max(0, y0); y < std::min(height_, y1); ++y) {
    for (int x = std::max(0, x0); x < std::min(width_, x1); ++x) pixel(x, y, c);
  }
}

void Canvas::line(double x0, double y0, double x1, double y1, Colour c, int thickness, int dash) {
  double length = std::hypot(x1 - x0, y1 - y0);
  int steps = std::max(1, static_cast<int>(std::ceil(length * 2)));
  for (int i = 0; i <= steps; ++i) {
    double t = static_cast<double>(i) / steps;
    if (dash > 0 && static_cast<int>(t * length / dash) % 2 == 1) continue;
    int x = static_cast<int>(std::lround(x0 + t * (x1 - x0))), y = static_cast<int>(std::lround(y0 + t * (y1 - y0)));
    fillRect(x - thickness / 2, y - thickness / 2, x - thickness / 2 + thickness, y - thickness / 2 + thickness, c);
  }
}

void Canvas::text(int x, int y, const std::string& text, Colour c, int scale) {
  // stb_easy_font emits quads (4 vertices of x, y, z, colour) in font units; fill them scaled.
  static std::array<char, 64 * 1024> vertices;
  std::string copy = text;
  int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, vertices.data(), static_cast<int>(vertices.size()));
  const float* v = reinterpret_cast<const float*>(vertices.data());
  for (int q = 0; q < quads; ++q) {
    const float* quad = v + q * 16;  // 4 vertices x (x, y, z, rgba packed in a float)
    int qx0 = static_cast<int>(quad[0]), qy0 = static_cast<int>(quad[1]);
    int qx1 = static_cast<int>(quad[8]), qy1 = static_cast<int>(quad[9]);
    fillRect(x + qx0 * scale, y + qy0 * scale, x + qx1 * scale, y + qy1 * scale, c);
  }
}

int Canvas::textWidth(const std::string& text, int scale) {
  std::string copy = text;
  return stb_easy_font_width(copy.data()) * scale;
}

void Canvas::savePng(const std::string& path) const {
  std::vector<std::uint8_t> raw;  // each row: filter byte 0, then RGB
  raw.reserve(rgb_.size() + height_);
  for (int y = 0; y < height_; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb_.begin() + static_cast<std::ptrdiff_t>(y) * width_ * 3,
               rgb_.begin() + static_cast<std::ptrdiff_t>(y + 1) * width_ * 3);
  }
  // zlib stream of stored deflate blocks (at most 65535 bytes each) and an Adler-32 trailer.
  std::vector<std::uint8_t> zlib = {0x78, 0x01};
  for (std::size_t at = 0; at < raw.size() || at == 0;) {
    std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
    bool last = at + n == raw.size();
    zlib.push_back(last ? 1 : 0);
    zlib.push_back(static_cast<std::uint8_t>(n & 0xFF));
    zlib.push_back(static_cast<std::uint8_t>(n >> 8));
    zlib.push_back(static_cast<std::uint8_t>(~n & 0xFF));
    zlib.push_back(static_cast<std::uint8_t>((~n >> 8) & 0xFF));
    zlib.insert(zlib.end(), raw.begin() + static_cast<std::ptrdiff_t>(at), raw.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    if (last) break;
  }
  std::uint32_t a = 1, b = 0;
  for (std::uint8_t byte : raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  putBigEndian(zlib, (b << 16) | a);

  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  putBigEndian(header, static_cast<std::uint32_t>(width_));
  putBigEndian(header, static_cast<std::uint32_t>(height_));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, no filter, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", zlib);
  chunk(png, "IEND", {});
  std::ofstream out(path, std::ios::binary);
  if (!out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()))) {
    throw InputError(path + ": cannot write the plot here");
  }
}

}  // namespace tileskip
