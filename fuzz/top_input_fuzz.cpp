// Fuzz target: `llmon top`'s input and drawing (top/keys.h, top/screen.h,
// top/renderer.h). Any bytes must parse to the same keys whether fed whole
// or split at the point the first byte names (a read boundary), never leave
// more than a bounded tail pending, and, written as text into a Screen, give
// a frame the renderer can diff against a blank one without a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "top/keys.h"
#include "top/renderer.h"
#include "top/screen.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::top;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t cut = size ? data[0] % (size + 1) : 0;
  KeyParser whole, split;
  std::vector<KeyEvent> a = whole.feed(in);
  for (auto& e : whole.flush()) a.push_back(e);
  std::vector<KeyEvent> b = split.feed(in.substr(0, cut));
  for (auto& e : split.feed(in.substr(cut))) b.push_back(e);
  for (auto& e : split.flush()) b.push_back(e);
  if (a.size() != b.size()) std::abort();
  for (size_t i = 0; i < a.size(); ++i)
    if (key_name(a[i]) != key_name(b[i])) std::abort();
  if (whole.pending() || split.pending()) std::abort();
  Screen s(40, 5);
  s.text(0, 0, in, Style{static_cast<int16_t>(size % 256), -1, static_cast<uint8_t>(size % 16)});
  Renderer r(RenderOptions{ColorMode::k16, size % 2 == 0});
  r.render(Screen(40, 5));
  r.render(s);
  if (!r.render(s).empty()) std::abort();  // nothing changed: nothing written
  return 0;
}
