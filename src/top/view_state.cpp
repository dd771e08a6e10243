#include "top/view_state.h"

#include <algorithm>
#include <cstdlib>

#include "top/screen.h"

namespace llmon::top {
namespace {

using summary::GpuProcess;

bool icontains(const std::string& hay, const std::string& needle) {
  if (needle.empty()) return true;
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

bool matches(const GpuProcess& p, const std::string& f) {
  return icontains(p.user, f) || icontains(p.container, f) || icontains(p.pod, f) || icontains(p.namespace_, f) ||
         icontains(p.command, f);
}

double num(const std::optional<double>& v) {
  return v ? *v : -1;
}
long pid_num(const std::string& s) {
  return std::strtol(s.c_str(), nullptr, 10);
}

// <0, 0, >0 in ascending order of the key.
int compare(const GpuProcess& a, const GpuProcess& b, SortKey k) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : y < x ? 1 : 0; };
  switch (k) {
    case SortKey::kGpu:
      return cmp(pid_num(a.gpu), pid_num(b.gpu));
    case SortKey::kPid:
      return cmp(pid_num(a.pid), pid_num(b.pid));
    case SortKey::kUser:
      return a.user.compare(b.user);
    case SortKey::kGpuMem:
      return cmp(num(a.gpu_mem_bytes), num(b.gpu_mem_bytes));
    case SortKey::kSm:
      return cmp(num(a.sm_pct), num(b.sm_pct));
    case SortKey::kCpu:
      return cmp(num(a.cpu_pct), num(b.cpu_pct));
    case SortKey::kRss:
      return cmp(num(a.rss_bytes), num(b.rss_bytes));
    case SortKey::kContainer:
      return (a.container + a.pod).compare(b.container + b.pod);
    case SortKey::kCommand:
      return a.command.compare(b.command);
  }
  return 0;
}

int index_of(const std::vector<const GpuProcess*>& shown, const std::string& pid) {
  for (size_t i = 0; i < shown.size(); ++i)
    if (shown[i]->pid == pid) return static_cast<int>(i);
  return -1;
}

void select(ViewState& v, const std::vector<const GpuProcess*>& shown, int i) {
  if (shown.empty()) {
    v.selected_pid.clear();
    return;
  }
  i = std::clamp(i, 0, static_cast<int>(shown.size()) - 1);
  v.selected_pid = shown[static_cast<size_t>(i)]->pid;
}

bool edit_filter(ViewState& v, const KeyEvent& e) {
  switch (e.key) {
    case Key::kEnter:
      v.editing_filter = false;
      return true;
    case Key::kEscape:
      v.editing_filter = false;
      v.filter.clear();
      return true;
    case Key::kBackspace:
      if (!v.filter.empty()) {
        // Drop one UTF-8 character.
        size_t n = v.filter.size() - 1;
        while (n > 0 && (static_cast<unsigned char>(v.filter[n]) & 0xc0) == 0x80) --n;
        v.filter.erase(n);
      }
      return true;
    case Key::kChar:
      if (e.ctrl) {
        if (e.ch == 'u') v.filter.clear();
        if (e.ch == 'c') v.quit = true;
        return true;
      }
      if (e.ch >= 0x20 && e.ch != 0x7f) {
        append_utf8(v.filter, e.ch);
      }
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* sort_key_name(SortKey k) {
  static constexpr const char* kNames[kSortKeys] = {"GPU",  "PID", "USER",      "GPU-MEM", "SM%",
                                                    "CPU%", "RSS", "CONTAINER", "COMMAND"};
  return kNames[static_cast<int>(k)];
}

std::vector<const GpuProcess*> visible_processes(const summary::GpuSummary& g, const ViewState& v) {
  std::vector<const GpuProcess*> out;
  for (const GpuProcess& p : g.processes)
    if (matches(p, v.filter)) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [&](const GpuProcess* a, const GpuProcess* b) {
    int c = compare(*a, *b, v.sort);
    return v.descending ? c > 0 : c < 0;
  });
  return out;
}

void clamp_scroll(ViewState& v, const std::vector<const GpuProcess*>& shown, int rows) {
  int sel = index_of(shown, v.selected_pid);
  int n = static_cast<int>(shown.size());
  if (rows <= 0) {
    v.scroll = 0;
    return;
  }
  if (sel >= 0) {
    if (sel < v.scroll) v.scroll = sel;
    if (sel >= v.scroll + rows) v.scroll = sel - rows + 1;
  }
  v.scroll = std::clamp(v.scroll, 0, std::max(0, n - rows));
}

bool apply_key(ViewState& v, const KeyEvent& e, const std::vector<const GpuProcess*>& shown, const ProcessArea& area) {
  if (v.editing_filter) return edit_filter(v, e);
  if (e.is_ctrl('c')) {
    v.quit = true;
    return true;
  }
  if (v.help) {  // any key closes the help; q still quits
    if (e.key == Key::kMouse && e.motion) return false;
    v.help = false;
    if (e.is_char('q')) v.quit = true;
    return true;
  }
  const int sel = index_of(shown, v.selected_pid);
  const int page = std::max(1, area.rows);
  auto sort_step = [&](int d) {
    v.sort = static_cast<SortKey>((static_cast<int>(v.sort) + d + kSortKeys) % kSortKeys);
    // Text columns read best A-Z, numbers largest first.
    v.descending = !(v.sort == SortKey::kUser || v.sort == SortKey::kContainer || v.sort == SortKey::kCommand ||
                     v.sort == SortKey::kGpu || v.sort == SortKey::kPid);
    return true;
  };
  switch (e.key) {
    case Key::kUp:
      select(v, shown, sel < 0 ? 0 : sel - 1);
      return true;
    case Key::kDown:
      select(v, shown, sel < 0 ? 0 : sel + 1);
      return true;
    case Key::kPageUp:
      select(v, shown, (sel < 0 ? 0 : sel) - page);
      return true;
    case Key::kPageDown:
      select(v, shown, (sel < 0 ? 0 : sel) + page);
      return true;
    case Key::kHome:
      select(v, shown, 0);
      return true;
    case Key::kEnd:
      select(v, shown, static_cast<int>(shown.size()) - 1);
      return true;
    case Key::kEscape:
      if (v.selected_pid.empty() && v.filter.empty()) return false;
      v.selected_pid.clear();
      v.filter.clear();
      return true;
    case Key::kF1:
      v.help = true;
      return true;
    case Key::kMouse:
      if (e.button == MouseButton::kWheelUp) {
        select(v, shown, sel - 1);
        return true;
      }
      if (e.button == MouseButton::kWheelDown) {
        select(v, shown, sel + 1);
        return true;
      }
      if (e.button == MouseButton::kLeft && e.pressed && !e.motion && area.first_y >= 0 && e.y >= area.first_y &&
          e.y < area.first_y + area.rows) {
        int i = v.scroll + e.y - area.first_y;
        if (i < static_cast<int>(shown.size())) {
          select(v, shown, i);
          return true;
        }
      }
      return false;
    case Key::kChar:
      break;
    default:
      return false;
  }
  if (e.is_ctrl('l')) {
    v.redraw = true;
    return true;
  }
  if (e.ctrl || e.alt) return false;
  switch (e.ch) {
    case U'q':
      v.quit = true;
      return true;
    case U'?':
    case U'h':
      v.help = true;
      return true;
    case U's':
    case U'>':
    case U'.':
      return sort_step(1);
    case U'<':
    case U',':
      return sort_step(-1);
    case U'r':
    case U'I':
      v.descending = !v.descending;
      return true;
    case U'/':
      v.editing_filter = true;
      return true;
    case U'k':
      select(v, shown, sel < 0 ? 0 : sel - 1);
      return true;
    case U'j':
      select(v, shown, sel < 0 ? 0 : sel + 1);
      return true;
    default:
      return false;
  }
}

}  // namespace llmon::top
