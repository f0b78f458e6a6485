// Integer helpers shared by the pattern, walk and dispatch code.
#pragma once

#include <concepts>

namespace tileskip {

// How many pieces of size `b` cover `a` (a >= 0, b > 0): tiles over an extent, groups over a
// count. The result has a's type; b is converted to it.
template <std::integral T, std::integral U>
constexpr T ceilDiv(T a, U b) {
  const T size = static_cast<T>(b);
  return (a + size - 1) / size;
}

}  // namespace tileskip
