#include "core/canvas.hpp"

#include <stb/stb_easy_font.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace tileskip {

namespace {

void putBigEndian(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

void chunk(std::vector<std::uint8_t>& png, const char type[4], const std::vector<std::uint8_t>& data) {
  putBigEndian(png, static_cast<std::uint32_t>(data.size()));
  std::size_t start = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  putBigEndian(png, static_cast<std::uint32_t>(crc32(0L, png.data() + start, static_cast<uInt>(png.size() - start))));
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
  // Plots are mostly background: deflated they are a few hundred KiB, not the raw 3.6 MiB.
  uLongf zlibSize = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> zlib(zlibSize);
  if (compress2(zlib.data(), &zlibSize, raw.data(), static_cast<uLong>(raw.size()), Z_BEST_COMPRESSION) != Z_OK) {
    throw UnavailableError(path + ": cannot compress the plot (out of host memory)");
  }
  zlib.resize(zlibSize);

  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  putBigEndian(header, static_cast<std::uint32_t>(width_));
  putBigEndian(header, static_cast<std::uint32_t>(height_));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit RGB, deflate, no filter, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", zlib);
  chunk(png, "IEND", {});
  // Complete or not at all: a full disk leaves no truncated PNG behind (AtomicFile).
  AtomicFile out(path);
  out.stream().write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  out.commit();
}

}  // namespace tileskip
