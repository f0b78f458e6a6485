// A small RGB canvas that draws lines, rectangles and text and saves itself as a PNG, so the
// benchmark suites can plot without a plotting library (and without the viewer's GPU stack).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tileskip {

struct Colour {
  std::uint8_t r, g, b;
};

class Canvas {
 public:
  Canvas(int width, int height, Colour background = {255, 255, 255});

  int width() const { return width_; }
  int height() const { return height_; }

  void pixel(int x, int y, Colour c);
  void fillRect(int x0, int y0, int x1, int y1, Colour c);
  // A line `thickness` pixels wide; `dash` > 0 draws dashes of that many pixels.
  void line(double x0, double y0, double x1, double y1, Colour c, int thickness = 1, int dash = 0);
  // Text with its top-left corner at (x, y); `scale` multiplies the 7-pixel-high glyphs.
  void text(int x, int y, const std::string& text, Colour c, int scale = 1);
  static int textWidth(const std::string& text, int scale = 1);

  // Writes an 8-bit RGB PNG (stored, uncompressed deflate blocks). Throws InputError when the
  // file cannot be written.
  void savePng(const std::string& path) const;

 private:
  int width_, height_;
  std::vector<std::uint8_t> rgb_;
};

}  // namespace tileskip
