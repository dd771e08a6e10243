#include "top/view_state.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "top/proc_detail.h"
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

bool default_descending(SortKey k) {
  // Text columns read best A-Z, numbers largest first.
  return !(k == SortKey::kUser || k == SortKey::kContainer || k == SortKey::kCommand || k == SortKey::kGpu ||
           k == SortKey::kPid);
}

// The signal menu and its confirmation prompt own the keys while open.
bool signal_key(ViewState& v, const KeyEvent& e) {
  const int n = static_cast<int>(signal_choices().size());
  auto close = [&] {
    v.signal_menu = -1;
    v.confirm = false;
    return true;
  };
  if (v.confirm) {
    if (e.is_char('y') || e.is_char('Y')) {
      v.signal_request = signal_choices()[static_cast<size_t>(v.signal_menu)].number;
      v.signal_pid = v.selected_pid;
    }
    return close();  // any other key: no
  }
  switch (e.key) {
    case Key::kUp:
      v.signal_menu = (v.signal_menu + n - 1) % n;
      return true;
    case Key::kDown:
      v.signal_menu = (v.signal_menu + 1) % n;
      return true;
    case Key::kEnter:
      v.confirm = true;
      return true;
    case Key::kEscape:
      return close();
    case Key::kChar:
      if (e.ch >= U'1' && e.ch < static_cast<char32_t>(U'1' + n)) {
        v.signal_menu = static_cast<int>(e.ch - U'1');
        v.confirm = true;
        return true;
      }
      if (e.is_char('q') || e.is_ctrl('c')) return close();
      return false;
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

std::vector<int> arrange_tree(std::vector<const GpuProcess*>& shown, const std::map<std::string, std::string>& ppid,
                              const std::vector<GpuProcess>& launchers) {
  const size_t gpu_rows = shown.size();
  if (!launchers.empty()) {
    // Launchers whose subtree has a shown row, outermost last: each pass
    // adds the launchers that are parents of rows already in.
    std::set<std::string> in;
    for (const GpuProcess* p : shown) in.insert(p->pid);
    for (bool grew = true; grew;) {
      grew = false;
      std::set<std::string> parents;
      for (const auto& pid : in)
        if (auto it = ppid.find(pid); it != ppid.end()) parents.insert(it->second);
      for (const GpuProcess& l : launchers)
        if (parents.count(l.pid) && in.insert(l.pid).second) {
          shown.push_back(&l);
          grew = true;
        }
    }
  }
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < shown.size(); ++i) at.emplace(shown[i]->pid, i);
  auto parent_of = [&](size_t i) -> long {
    auto it = ppid.find(shown[i]->pid);
    if (it == ppid.end() || it->second == shown[i]->pid) return -1;
    auto p = at.find(it->second);
    return p == at.end() ? -1 : static_cast<long>(p->second);
  };
  std::vector<std::vector<size_t>> kids(shown.size());
  std::vector<size_t> roots;
  for (size_t i = 0; i < shown.size(); ++i) {
    long p = parent_of(i);
    if (p < 0)
      roots.push_back(i);
    else
      kids[static_cast<size_t>(p)].push_back(i);
  }
  // Siblings in the sorted order; a launcher (appended after the GPU rows)
  // takes the place of its first-sorted descendant.
  std::vector<size_t> key(shown.size());
  for (size_t i = 0; i < shown.size(); ++i) key[i] = i;
  std::vector<bool> keyed(shown.size(), false);
  auto key_of = [&](auto&& self, size_t i) -> size_t {
    if (i < gpu_rows || keyed[i]) return key[i];
    keyed[i] = true;  // set first: a cycle ends here
    for (size_t k : kids[i]) key[i] = std::min(key[i], self(self, k));
    return key[i];
  };
  for (size_t i = gpu_rows; i < shown.size(); ++i) key_of(key_of, i);
  auto by_key = [&](size_t a, size_t b) { return key[a] < key[b]; };
  std::stable_sort(roots.begin(), roots.end(), by_key);
  for (auto& k : kids) std::stable_sort(k.begin(), k.end(), by_key);
  std::vector<const GpuProcess*> out;
  std::vector<int> depth;
  std::vector<bool> seen(shown.size(), false);
  auto walk = [&](auto&& self, size_t i, int d) -> void {
    if (seen[i]) return;
    seen[i] = true;
    out.push_back(shown[i]);
    depth.push_back(d);
    for (size_t k : kids[i]) self(self, k, d + 1);
  };
  for (size_t r : roots) walk(walk, r, 0);
  for (size_t i = 0; i < shown.size(); ++i) walk(walk, i, 0);  // cycles (a pid's parent its child)
  shown = std::move(out);
  return depth;
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
  if (v.signal_menu >= 0) return signal_key(v, e);
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
    v.descending = default_descending(v.sort);
    return true;
  };
  auto history = [&](int d) {
    if (!v.can_scroll_history) return false;
    int o = std::clamp(v.history_offset_s + d, 0, kHistoryMaxS);
    if (o == v.history_offset_s) return false;
    v.history_offset_s = o;
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
    case Key::kLeft:
      return history(kHistoryStepS);
    case Key::kRight:
      return history(-kHistoryStepS);
    case Key::kEnter:
      if (v.detail) {
        v.detail = false;
        return true;
      }
      if (v.selected_pid.empty()) select(v, shown, 0);
      v.detail = !v.selected_pid.empty();
      return true;
    case Key::kF9:
      if (v.selected_pid.empty()) return false;
      v.signal_menu = 0;
      return true;
    case Key::kEscape:
      if (v.detail) {
        v.detail = false;
        return true;
      }
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
      if (e.button == MouseButton::kLeft && e.pressed && !e.motion && e.y == area.header_y) {
        for (size_t c = 0; c < area.header_cols.size(); ++c) {
          if (e.x < area.header_cols[c].first || e.x >= area.header_cols[c].second) continue;
          auto k = static_cast<SortKey>(c);
          v.descending = k == v.sort ? !v.descending : default_descending(k);
          v.sort = k;
          return true;
        }
        return false;
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
      if (v.selected_pid.empty()) return false;
      v.signal_menu = 0;
      return true;
    case U't':
      v.tree = !v.tree;
      return true;
    case U'[':
      return history(kHistoryStepS);
    case U']':
      return history(-kHistoryStepS);
    case U'j':
      select(v, shown, sel < 0 ? 0 : sel + 1);
      return true;
    default:
      return false;
  }
}

}  // namespace llmon::top
