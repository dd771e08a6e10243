// Process detail parsers, kill(2)'s permission rule, the tree order, the
// signal menu's keys, header clicks, and the detail / tree / signal / agent
// screens against golden files at 80x24, 120x40 and 200x60
// (tests/golden/top_detail_*.txt; LLMON_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "support/test_paths.h"
#include "top/layout.h"
#include "top/proc_detail.h"
#include "top/sample_summary.h"
#include "top_test_util.h"

namespace llmon::top {
namespace {

using namespace std::string_literals;

TEST(ProcDetail, PicksTheEnvironmentThatMatters) {
  std::string env =
      "HOME=/root\0CUDA_VISIBLE_DEVICES=0,1\0PATH=/bin\0NCCL_DEBUG=INFO\0LOCAL_RANK=1\0"
      "RANK=9\0WORLD_SIZE=16\0MASTER_ADDR=10.0.0.1\0RANKX=1\0=bad\0noequals\0"s;
  auto e = pick_env(env);
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0], std::make_pair("CUDA_VISIBLE_DEVICES"s, "0,1"s));
  EXPECT_EQ(e[1].first, "NCCL_DEBUG");
  EXPECT_EQ(e[5], std::make_pair("MASTER_ADDR"s, "10.0.0.1"s));
}

TEST(ProcDetail, ParsesStatStatusCmdlineCgroup) {
  ProcessDetail d;
  // A comm with spaces and parentheses.
  ASSERT_TRUE(parse_stat("4101 (py (x) 3) S 4100 4100 4100 0 -1 4194560 1 0 1 0 8 4 0 0 20 0 86 0 1843211 1 2", d));
  EXPECT_EQ(d.comm, "py (x) 3");
  EXPECT_EQ(d.state, "S");
  EXPECT_EQ(d.ppid, "4100");
  EXPECT_EQ(d.threads, 86);
  EXPECT_EQ(d.start_ticks, 1843211u);
  EXPECT_FALSE(parse_stat("garbage", d = ProcessDetail{}));
  parse_status_uids("Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t0\n", d);
  EXPECT_EQ(d.ruid, 1000u);
  EXPECT_EQ(d.suid, 1002u);
  EXPECT_EQ(join_cmdline("python\0train.py\0--lr\0"s), "python train.py --lr");
  EXPECT_EQ(pick_cgroup("12:cpu:/a\n0::/kubepods/pod1/cri-x\n"), "/kubepods/pod1/cri-x");
  EXPECT_EQ(pick_cgroup("12:cpu,cpuacct:/docker/abc\n"), "/docker/abc");
  EXPECT_EQ(*elapsed_seconds(1000, 100.0, 100), 90.0);
  EXPECT_EQ(elapsed_text(45), "45s");
  EXPECT_EQ(elapsed_text(723), "12m03s");
  EXPECT_EQ(elapsed_text(7500), "2h05m");
  EXPECT_EQ(elapsed_text(3 * 86400 + 4 * 3600), "3d04h");
}

TEST(ProcDetail, MaySignalFollowsKill2) {
  ProcessDetail t;
  t.pid = "42";
  t.found = true;
  t.ruid = 1000;
  t.suid = 1000;
  EXPECT_EQ(may_signal(0, 0, t), "");        // root
  EXPECT_EQ(may_signal(1000, 1000, t), "");  // owner
  EXPECT_EQ(may_signal(5, 1000, t), "");     // effective uid matches
  std::string why = may_signal(1001, 1001, t);
  EXPECT_NE(why.find("belongs to uid 1000"), std::string::npos) << why;
  t.suid = 1001;  // a setuid-style saved uid
  EXPECT_EQ(may_signal(1001, 1001, t), "");
  t.found = false;
  EXPECT_NE(may_signal(1001, 1001, t).find("gone"), std::string::npos);
}

TEST(ViewTree, ChildrenFollowTheirParents) {
  std::vector<summary::GpuProcess> ps(5);
  const char* pids[] = {"10", "11", "12", "20", "13"};
  for (int i = 0; i < 5; ++i) ps[static_cast<size_t>(i)].pid = pids[i];
  std::vector<const summary::GpuProcess*> shown;
  for (const auto& p : ps) shown.push_back(&p);
  std::map<std::string, std::string> ppid = {{"10", "1"}, {"11", "10"}, {"12", "11"}, {"20", "1"}, {"13", "10"}};
  auto depth = arrange_tree(shown, ppid);
  std::vector<std::string> order;
  for (const auto* p : shown) order.push_back(p->pid);
  EXPECT_EQ(order, (std::vector<std::string>{"10", "11", "12", "13", "20"}));
  EXPECT_EQ(depth, (std::vector<int>{0, 1, 2, 1, 0}));
  // A cycle does not lose rows.
  ppid = {{"10", "11"}, {"11", "10"}};
  shown.resize(2);
  shown[0] = &ps[0];
  shown[1] = &ps[1];
  EXPECT_EQ(arrange_tree(shown, ppid).size(), 2u);
}

TEST(ViewTree, LaunchersGoAboveTheirShownChildrenInTheirPlace) {
  // Sorted GPU rows: 30 (a lone process), 21 and 22 (torchrun 20's workers,
  // torchrun under shell 10), 40 (child of init).
  std::vector<summary::GpuProcess> ps(4);
  const char* pids[] = {"30", "22", "21", "40"};
  for (int i = 0; i < 4; ++i) {
    ps[static_cast<size_t>(i)].pid = pids[i];
    ps[static_cast<size_t>(i)].gpu = "0";
  }
  std::vector<summary::GpuProcess> launchers(3);
  launchers[0].pid = "10";  // the shell
  launchers[1].pid = "20";  // torchrun
  launchers[2].pid = "50";  // a launcher with no shown child
  std::map<std::string, std::string> ppid = {{"30", "1"},  {"22", "20"}, {"21", "20"}, {"40", "1"},
                                             {"20", "10"}, {"10", "1"},  {"60", "50"}};
  std::vector<const summary::GpuProcess*> shown;
  for (const auto& p : ps) shown.push_back(&p);
  auto depth = arrange_tree(shown, ppid, launchers);
  std::vector<std::string> order;
  for (const auto* p : shown) order.push_back(p->pid);
  EXPECT_EQ(order, (std::vector<std::string>{"30", "10", "20", "22", "21", "40"}));
  EXPECT_EQ(depth, (std::vector<int>{0, 0, 1, 2, 2, 0}));
  // Sorted the other way round, the shell's tree comes first (its workers do).
  shown.clear();
  for (auto it = ps.rbegin(); it != ps.rend(); ++it) shown.push_back(&*it);
  depth = arrange_tree(shown, ppid, launchers);
  order.clear();
  for (const auto* p : shown) order.push_back(p->pid);
  EXPECT_EQ(order, (std::vector<std::string>{"40", "10", "20", "21", "22", "30"}));
  // A filter that hides the workers hides their launchers too.
  shown = {&ps[0], &ps[3]};
  depth = arrange_tree(shown, ppid, launchers);
  EXPECT_EQ(shown.size(), 2u);
}

TEST(ViewKeys, SignalMenuConfirmsBeforeRequesting) {
  summary::HostSummary h = testing::sample_host();
  ViewState v;
  auto shown = visible_processes(h.gpus, v);
  ProcessArea a;
  EXPECT_FALSE(apply_key(v, ch('k'), shown, a));  // nothing selected
  apply_key(v, key(Key::kDown), shown, a);
  const std::string pid = v.selected_pid;
  ASSERT_FALSE(pid.empty());
  EXPECT_TRUE(apply_key(v, ch('k'), shown, a));
  EXPECT_EQ(v.signal_menu, 0);
  apply_key(v, key(Key::kDown), shown, a);  // SIGINT
  apply_key(v, key(Key::kEnter), shown, a);
  EXPECT_TRUE(v.confirm);
  apply_key(v, ch('n'), shown, a);  // no
  EXPECT_EQ(v.signal_request, 0);
  EXPECT_EQ(v.signal_menu, -1);
  apply_key(v, ch('k'), shown, a);
  apply_key(v, ch('4'), shown, a);  // SIGKILL, straight to the prompt
  EXPECT_TRUE(v.confirm);
  apply_key(v, ch('y'), shown, a);
  EXPECT_EQ(v.signal_request, SIGKILL);
  EXPECT_EQ(v.signal_pid, pid);
}

TEST(ViewKeys, EnterDetailTreeHistoryAndHeaderClicks) {
  summary::HostSummary h = testing::sample_host();
  ViewState v;
  auto shown = visible_processes(h.gpus, v);
  ProcessArea a;
  apply_key(v, key(Key::kEnter), shown, a);
  EXPECT_TRUE(v.detail);
  EXPECT_FALSE(v.selected_pid.empty());
  apply_key(v, key(Key::kEscape), shown, a);
  EXPECT_FALSE(v.detail);
  apply_key(v, ch('t'), shown, a);
  EXPECT_TRUE(v.tree);
  EXPECT_FALSE(apply_key(v, ch('['), shown, a));  // standalone: no history to scroll
  v.can_scroll_history = true;
  apply_key(v, ch('['), shown, a);
  apply_key(v, key(Key::kLeft), shown, a);
  EXPECT_EQ(v.history_offset_s, 2 * kHistoryStepS);
  apply_key(v, ch(']'), shown, a);
  EXPECT_EQ(v.history_offset_s, kHistoryStepS);
  // A click on a column header sorts by it; again reverses.
  Screen s(80, 24);
  GpuHistory hist;
  a = draw(s, h, hist, v, DrawOptions{});
  ASSERT_GE(a.header_y, 0);
  KeyEvent click;
  click.key = Key::kMouse;
  click.button = MouseButton::kLeft;
  click.pressed = true;
  click.y = a.header_y;
  click.x = a.header_cols[static_cast<size_t>(SortKey::kPid)].first + 1;
  apply_key(v, click, shown, a);
  EXPECT_EQ(v.sort, SortKey::kPid);
  EXPECT_FALSE(v.descending);
  apply_key(v, click, shown, a);
  EXPECT_TRUE(v.descending);
}

// The sample host with a detail of its first training process, parents
// for the tree, and an agent's alert and finding.
TopData sample_data() {
  TopData d;
  d.sum = testing::sample_host();
  d.hist = testing::sample_history(d.sum);
  const auto& p = d.sum.gpus.processes[0];
  d.detail.pid = p.pid;
  d.detail.found = true;
  d.detail.comm = "python";
  d.detail.cmdline = p.command + " --config configs/llama-70b.yaml --nnodes 2 --nproc-per-node 8";
  d.detail.ppid = "40999";
  d.detail.threads = 86;
  d.detail.elapsed_s = 7500;
  d.detail.state = "S";
  d.detail.cgroup = "/system.slice/docker-3f2a9c1b7d4e.scope";
  d.detail.env = {{"CUDA_VISIBLE_DEVICES", "0"}, {"LOCAL_RANK", "0"},         {"RANK", "0"},
                  {"WORLD_SIZE", "16"},          {"MASTER_ADDR", "10.0.0.7"}, {"NCCL_DEBUG", "INFO"}};
  for (int i = 0; i < 300; ++i) d.detail_mem.push(40e9 + 18e9 * (i % 60) / 60.0);
  for (const auto& q : d.sum.gpus.processes) d.ppid[q.pid] = q.user == "alice" && q.pid != p.pid ? p.pid : "1";
  d.agent = true;
  d.source = "agent 127.0.0.1:8747";
  d.alerts = {{"GpuThermalSlowdown", "firing", "warning", "GPU 3 is throttling (hardware thermal)", ""}};
  d.sum.findings = {{"warning", "gpu_throttle", "GPU 3 thermal slowdown for 12m", {}}};
  return d;
}

std::string draw_data(int w, int h, ViewState& v, const TopData& d, bool ascii = false) {
  Screen s(w, h);
  DrawOptions o;
  o.ascii = ascii;
  o.clock = "12:00:00";
  draw(s, d, v, o);
  return s.to_text();
}

TEST(DetailGolden, Screens) {
  TopData d = sample_data();
  const std::string pid = d.detail.pid;
  for (auto [w, h] : {std::pair{80, 24}, {120, 40}, {200, 60}}) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    ViewState v;
    v.selected_pid = pid;
    v.detail = true;
    check_golden("top_detail_" + size + ".txt", draw_data(w, h, v, d));
    ViewState t;
    t.tree = true;
    t.can_scroll_history = true;
    check_golden("top_tree_agent_" + size + ".txt", draw_data(w, h, t, d));
  }
  ViewState k;
  k.selected_pid = pid;
  k.signal_menu = 0;
  check_golden("top_signal_menu_80x24.txt", draw_data(80, 24, k, d));
  k.signal_menu = 3;
  k.confirm = true;
  d.my_ruid = d.my_euid = 1000;
  d.detail.ruid = d.detail.suid = 2000;
  check_golden("top_signal_confirm_80x24.txt", draw_data(80, 24, k, d));
  ViewState a;
  a.selected_pid = pid;
  a.detail = true;
  d.detail.env.clear();
  d.detail.env_note = "not readable: Permission denied";
  check_golden("top_detail_80x24_ascii.txt", draw_data(80, 24, a, d, true));
}

}  // namespace
}  // namespace llmon::top
