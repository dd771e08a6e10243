#include "top/view_state.h"

#include <gtest/gtest.h>

#include "top/sample_summary.h"
#include "top_test_util.h"

namespace llmon::top {
namespace {

std::vector<std::string> pids(const std::vector<const summary::GpuProcess*>& v) {
  std::vector<std::string> out;
  for (auto* p : v) out.push_back(p->pid);
  return out;
}

class ViewStateTest : public ::testing::Test {
 protected:
  summary::HostSummary h = testing::sample_host();
  ViewState v;
  ProcessArea area{10, 5, -1, {}};
  bool press(const KeyEvent& e) { return apply_key(v, e, visible_processes(h.gpus, v), area); }
  std::vector<std::string> shown() { return pids(visible_processes(h.gpus, v)); }
};

TEST_F(ViewStateTest, DefaultSortIsGpuMemoryLargestFirst) {
  auto p = shown();
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[0], "52311");  // 66 GiB
  EXPECT_EQ(p[1], "41005");
}

TEST_F(ViewStateTest, SortCyclesThroughColumnsBothWays) {
  EXPECT_TRUE(press(ch('s')));
  EXPECT_EQ(v.sort, SortKey::kSm);
  EXPECT_TRUE(v.descending);
  EXPECT_EQ(shown()[0], "41005");  // 93 %
  press(ch('>'));
  EXPECT_EQ(v.sort, SortKey::kCpu);
  press(ch('<'));
  press(ch('<'));
  EXPECT_EQ(v.sort, SortKey::kGpuMem);
  for (int i = 0; i < kSortKeys; ++i) press(ch('s'));
  EXPECT_EQ(v.sort, SortKey::kGpuMem);
  // Text columns sort A-Z; r reverses.
  while (v.sort != SortKey::kUser) press(ch('<'));
  EXPECT_FALSE(v.descending);
  EXPECT_EQ(shown()[0].substr(0, 2), "41");  // alice
  press(ch('r'));
  EXPECT_TRUE(v.descending);
  EXPECT_EQ(shown()[0].substr(0, 2), "52");  // vllm
}

TEST_F(ViewStateTest, FilterByUserContainerPodOrCommand) {
  press(ch('/'));
  EXPECT_TRUE(v.editing_filter);
  for (char32_t c : std::u32string(U"BOB")) press(ch(c));
  EXPECT_EQ(shown(), (std::vector<std::string>{"9001"}));  // the user, case-insensitive
  // q while typing is text, not quit.
  press(key(Key::kBackspace));
  press(key(Key::kBackspace));
  press(key(Key::kBackspace));
  press(ch('q'));
  EXPECT_FALSE(v.quit);
  EXPECT_TRUE(shown().empty());
  press(key(Key::kBackspace));
  for (char32_t c : std::u32string(U"inference")) press(ch(c));  // the pod's namespace
  EXPECT_EQ(shown().size(), 2u);
  press(key(Key::kEnter));
  EXPECT_FALSE(v.editing_filter);
  EXPECT_EQ(v.filter, "inference");
  press(ch('/'));
  press(key(Key::kEscape));
  EXPECT_EQ(v.filter, "");
  EXPECT_EQ(shown().size(), 9u);
  v.filter = "3f2a9c";  // a container id
  EXPECT_EQ(shown().size(), 6u);
  v.filter = "all_reduce";  // the command
  EXPECT_EQ(shown(), (std::vector<std::string>{"9001"}));
}

TEST_F(ViewStateTest, SelectionFollowsThePidAcrossResorts) {
  press(key(Key::kDown));
  EXPECT_EQ(v.selected_pid, "52311");
  press(key(Key::kDown));
  EXPECT_EQ(v.selected_pid, "41005");
  press(ch('s'));  // SM%: 41005 moves to the top, the selection stays on it
  EXPECT_EQ(v.selected_pid, "41005");
  press(key(Key::kUp));
  EXPECT_EQ(v.selected_pid, "41005") << "already first";
  press(key(Key::kEnd));
  EXPECT_EQ(v.selected_pid, shown().back());
  press(key(Key::kPageUp));
  EXPECT_EQ(v.selected_pid, shown()[3]);  // 8 - page of 5
  press(key(Key::kHome));
  EXPECT_EQ(v.selected_pid, shown()[0]);
  press(key(Key::kEscape));
  EXPECT_EQ(v.selected_pid, "");
}

TEST_F(ViewStateTest, MouseClickSelectsTheRowAndWheelMoves) {
  KeyEvent m = key(Key::kMouse);
  m.button = MouseButton::kLeft;
  m.pressed = true;
  m.y = 12;  // third row of the area
  EXPECT_TRUE(press(m));
  EXPECT_EQ(v.selected_pid, shown()[2]);
  m.y = 3;  // above the table
  EXPECT_FALSE(press(m));
  m.button = MouseButton::kWheelDown;
  press(m);
  EXPECT_EQ(v.selected_pid, shown()[3]);
}

TEST_F(ViewStateTest, HelpQuitAndRedraw) {
  press(ch('?'));
  EXPECT_TRUE(v.help);
  press(ch('x'));
  EXPECT_FALSE(v.help);
  EXPECT_FALSE(v.quit);
  KeyEvent l = ch('l');
  l.ctrl = true;
  press(l);
  EXPECT_TRUE(v.redraw);
  EXPECT_FALSE(press(ch('z')));
  press(ch('q'));
  EXPECT_TRUE(v.quit);
}

TEST_F(ViewStateTest, ScrollKeepsTheSelectionInView) {
  auto list = visible_processes(h.gpus, v);
  v.selected_pid = list.back()->pid;
  clamp_scroll(v, list, 3);
  EXPECT_EQ(v.scroll, 6);
  v.selected_pid = list[1]->pid;
  clamp_scroll(v, list, 3);
  EXPECT_EQ(v.scroll, 1);
  clamp_scroll(v, list, 20);
  EXPECT_EQ(v.scroll, 0);
}

}  // namespace
}  // namespace llmon::top
