#include "gpu/process_info.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace llmon::gpu {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTrainerId = "054d13bf1d921b1f857ca03932dc11f581bb7ff778b34aba4eb83ca50f7a0eff";
constexpr std::string_view kVllmId = "0ef03c7fa4c4ffb7552e3a995f5531ee614b5b57eff1b1ad1b47ac6ec4735e7f";
constexpr std::string_view kTritonId = "622e3a448a4a218e6d7c7fb54c377e423841300565a907e37b641aaa1103546b";
constexpr std::string_view kPodmanId = "26670fdac50a081e8da20034102ed328b4e892bd01e0082dbed7e8bc9cc7b037";
constexpr std::string_view kEvalId = "ee3404d8a1f33d5266bb1c8402044eb3917a7d66babff1d446d5b4205fd91173";
constexpr double kGiB = 1024.0 * 1024 * 1024;

procfs::Fs fixture_fs(const std::string& root) {
  procfs::Fs f;
  f.proc_root = root + "/proc";
  f.root = root + "/rootfs";
  return f;
}

// A writable copy of tests/fixtures/gpu_host, removed with the object.
class TempHost {
 public:
  TempHost() {
    std::string tmpl = (fs::temp_directory_path() / "llmon-gpu-host-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
    fs::copy(testing::fixture("gpu_host"), root_, fs::copy_options::recursive);
  }
  ~TempHost() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  TempHost(const TempHost&) = delete;
  TempHost& operator=(const TempHost&) = delete;

  procfs::Fs fs() const { return fixture_fs(root_.string()); }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }
  std::string read(const std::string& rel) const {
    std::ifstream in(path(rel), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(path(rel)).parent_path());
    std::ofstream(path(rel), std::ios::binary | std::ios::trunc) << text;
  }
  void remove(const std::string& rel) const { fs::remove_all(path(rel)); }
  // Copies proc/<from> to proc/<to>: another process of the same container.
  void clone_pid(int from, int to) const {
    fs::copy(path("proc/" + std::to_string(from)), path("proc/" + std::to_string(to)), fs::copy_options::recursive);
  }
  // Replaces field `n` (1-based, counted after the comm like the kernel) of proc/<pid>/stat.
  void set_stat_field(int pid, int n, const std::string& value) const {
    std::string rel = "proc/" + std::to_string(pid) + "/stat";
    std::string s = read(rel);
    size_t close = s.rfind(')');
    std::string head = s.substr(0, close + 1), tail = s.substr(close + 1);
    std::vector<std::string> f;
    size_t i = 0;
    while (i < tail.size()) {
      while (i < tail.size() && (tail[i] == ' ' || tail[i] == '\n')) ++i;
      size_t start = i;
      while (i < tail.size() && tail[i] != ' ' && tail[i] != '\n') ++i;
      if (i > start) f.push_back(tail.substr(start, i - start));
    }
    f.at(static_cast<size_t>(n - 3)) = value;
    std::string out = head;
    for (const auto& x : f) out += " " + x;
    write(rel, out + "\n");
  }

 private:
  fs::path root_;
};

struct Want {
  uint32_t pid;
  const char* command;
  const char* user;
  const char* runtime;
  std::string_view container_id;
  const char* container;
  const char* pod;
  const char* pod_uid;
  const char* namespace_;
};

// tests/fixtures/gpu_host/README.md, row by row.
const std::vector<Want>& fixture_table() {
  static const std::vector<Want> kWant = [] {
    std::vector<Want> w;
    for (uint32_t pid = 4101; pid <= 4108; ++pid)
      w.push_back({pid, pid == 4101 ? "python3" : "pt_main_thread", "alice", "containerd", kTrainerId, "trainer",
                   "llama-train-0", "7f3c2a91-4b6e-4d2f-9a8c-1e5b7d3f9c20", "research"});
    w.push_back({5201, "python3", "root", "docker", kVllmId, "vllm-server", "", "", ""});
    w.push_back({5301, "jupyter-lab", "bob", "", "", "", "", "", ""});
    w.push_back({5401, "tritonserver", "2000", "cri-o", kTritonId, "triton", "triton-7d9f",
                 "c41d8e2b-93f7-4a15-b6e0-5d2a8f174c3e", "serving"});
    w.push_back({5501, "python3", "alice", "podman", kPodmanId, "26670fdac50a", "", "", ""});
    w.push_back({5601, "python", "root", "cri", kEvalId, "ee3404d8a1f3", "eval-job-x7k2p",
                 "e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12", "batch"});
    return w;
  }();
  return kWant;
}

void expect_want(const ProcessInfo& p, const Want& w) {
  SCOPED_TRACE("pid " + std::to_string(w.pid));
  EXPECT_TRUE(p.alive);
  EXPECT_EQ(p.pid, w.pid);
  EXPECT_EQ(p.pid_text, std::to_string(w.pid));
  EXPECT_EQ(p.command, w.command);
  EXPECT_EQ(p.user, w.user);
  EXPECT_EQ(p.runtime, w.runtime);
  EXPECT_EQ(p.container_id, w.container_id);
  EXPECT_EQ(p.container, w.container);
  EXPECT_EQ(p.pod, w.pod);
  EXPECT_EQ(p.pod_uid, w.pod_uid);
  EXPECT_EQ(p.namespace_, w.namespace_);
}

TEST(ProcessResolver, FixtureHost) {
  ProcessResolver r(fixture_fs(testing::fixture("gpu_host")));
  for (const Want& w : fixture_table()) expect_want(r.lookup(w.pid), w);
  // The same answers from the cache, in another order, over a few cycles.
  for (int cycle = 0; cycle < 3; ++cycle) {
    r.end_cycle();
    for (auto it = fixture_table().rbegin(); it != fixture_table().rend(); ++it) expect_want(r.lookup(it->pid), *it);
  }
}

TEST(ProcessResolver, CpuAndRss) {
  ProcessResolver r(fixture_fs(testing::fixture("gpu_host")));
  const ProcessInfo& rank0 = r.lookup(4101);
  EXPECT_DOUBLE_EQ(rank0.cpu_seconds, (8123400 + 412300) / 100.0);
  EXPECT_DOUBLE_EQ(rank0.rss_bytes, 21283968 * 1024.0);  // VmRSS: 21283968 kB
  const ProcessInfo& jupyter = r.lookup(5301);
  EXPECT_DOUBLE_EQ(jupyter.cpu_seconds, 533.32);
  EXPECT_DOUBLE_EQ(jupyter.rss_bytes, 3489660928.0);
  // The training ranks: 6 to 21 GiB each, CPU time all different.
  std::vector<double> cpu;
  for (uint32_t pid = 4101; pid <= 4108; ++pid) {
    const ProcessInfo& p = r.lookup(pid);
    EXPECT_GE(p.rss_bytes, 6 * kGiB) << pid;
    EXPECT_LE(p.rss_bytes, 21 * kGiB) << pid;
    for (double c : cpu) EXPECT_NE(c, p.cpu_seconds) << pid;
    cpu.push_back(p.cpu_seconds);
  }
}

TEST(ProcessResolver, ExitedProcess) {
  ProcessResolver r(fixture_fs(testing::fixture("gpu_host")));
  const ProcessInfo& p = r.lookup(6001);
  EXPECT_FALSE(p.alive);
  EXPECT_EQ(p.pid, 6001u);
  EXPECT_EQ(p.pid_text, "6001");
  for (const std::string* s :
       {&p.command, &p.user, &p.runtime, &p.container_id, &p.container, &p.pod, &p.pod_uid, &p.namespace_})
    EXPECT_EQ(*s, "");
  EXPECT_EQ(p.cpu_seconds, 0);
  EXPECT_EQ(p.rss_bytes, 0);
  // An exited lookup does not spoil the next live one.
  expect_want(r.lookup(5201), fixture_table()[8]);
}

TEST(ProcessResolver, LabelValues) {
  ASSERT_EQ(kProcessLabelNames.size(), 6u);
  EXPECT_EQ(kProcessLabelNames[0], "pid");
  ProcessResolver r(fixture_fs(testing::fixture("gpu_host")));
  std::vector<std::string_view> v = {"stale"};
  process_label_values(r.lookup(4102), v);
  EXPECT_EQ(v,
            (std::vector<std::string_view>{"4102", "pt_main_thread", "alice", "trainer", "llama-train-0", "research"}));
  process_label_values(r.lookup(5401), v);
  EXPECT_EQ(v, (std::vector<std::string_view>{"5401", "tritonserver", "2000", "triton", "triton-7d9f", "serving"}));
  process_label_values(r.lookup(5301), v);
  EXPECT_EQ(v, (std::vector<std::string_view>{"5301", "jupyter-lab", "bob", "", "", ""}));
  process_label_values(r.lookup(6001), v);
  EXPECT_EQ(v, (std::vector<std::string_view>{"6001", "", "", "", "", ""}));
  EXPECT_EQ(v.size(), kProcessLabelNames.size());
}

TEST(ProcessResolver, CpuAndRssAreReadEveryLookupStaticPartsAreCached) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_EQ(r.lookup(5301).user, "bob");
  // Same process (same starttime): new CPU and RSS (both from the kept-open
  // stat file: field 24 is RSS in pages), but user, command and cgroup are cached.
  h.set_stat_field(5301, 14, "100000");
  h.set_stat_field(5301, 24, "256");
  h.write("proc/5301/status", "Name:\tjupyter-lab\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1024 kB\n");
  h.write("proc/5301/cgroup", "0::/system.slice/docker-" + std::string(kVllmId) + ".scope\n");
  const ProcessInfo& p = r.lookup(5301);
  EXPECT_DOUBLE_EQ(p.cpu_seconds, (100000 + 8122) / 100.0);
  EXPECT_DOUBLE_EQ(p.rss_bytes, 256 * static_cast<double>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(p.user, "bob");
  EXPECT_EQ(p.container, "");
}

TEST(ProcessResolver, RecycledPidIsResolvedAgain) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_EQ(r.lookup(5301).command, "jupyter-lab");
  // pid 5301 now belongs to a new process in the vLLM container.
  h.remove("proc/5301");
  h.clone_pid(5201, 5301);
  h.set_stat_field(5301, 22, "3000000");
  const ProcessInfo& p = r.lookup(5301);
  EXPECT_TRUE(p.alive);
  EXPECT_EQ(p.pid_text, "5301");
  EXPECT_EQ(p.command, "python3");
  EXPECT_EQ(p.user, "root");
  EXPECT_EQ(p.container, "vllm-server");
}

TEST(ProcessResolver, ProcessExitsAndPidComesBack) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_TRUE(r.lookup(5401).alive);
  h.remove("proc/5401");
  const ProcessInfo& gone = r.lookup(5401);
  EXPECT_FALSE(gone.alive);
  EXPECT_EQ(gone.container, "");
  EXPECT_EQ(gone.pid_text, "5401");
  h.clone_pid(5301, 5401);  // pid reused by a host process
  const ProcessInfo& back = r.lookup(5401);
  EXPECT_TRUE(back.alive);
  EXPECT_EQ(back.command, "jupyter-lab");
  EXPECT_EQ(back.container, "");
}

TEST(ProcessResolver, EndCycleForgetsProcessesNotLookedUp) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_EQ(r.lookup(5301).container, "");
  EXPECT_EQ(r.lookup(5201).container, "vllm-server");
  r.end_cycle();
  // Cycle 2 looks up 5201 only.
  EXPECT_EQ(r.lookup(5201).container, "vllm-server");
  // Both change their cgroup (same starttime: only a cache miss re-reads it).
  std::string podman_cg = h.read("proc/5501/cgroup");
  h.write("proc/5301/cgroup", podman_cg);
  h.write("proc/5201/cgroup", podman_cg);
  r.end_cycle();
  EXPECT_EQ(r.lookup(5201).container, "vllm-server");   // kept: looked up in cycle 2
  EXPECT_EQ(r.lookup(5301).container, "26670fdac50a");  // forgotten after cycle 2, read again
  r.end_cycle();
  r.end_cycle();
  EXPECT_EQ(r.lookup(5201).container, "26670fdac50a");  // not looked up in cycle 4: forgotten
}

TEST(ProcessResolver, ContainerListingRefreshedAtMostOncePerCycle) {
  TempHost h;
  ProcessResolver r(h.fs());
  // A new container in llama-train-0 whose kubelet link does not exist yet.
  std::string id(64, 'a');
  std::string cg = h.read("proc/4101/cgroup");
  cg.replace(cg.find(kTrainerId), 64, id);
  h.clone_pid(4101, 7001);
  h.write("proc/7001/cgroup", cg);
  h.clone_pid(4101, 7002);
  h.write("proc/7002/cgroup", cg);
  h.clone_pid(4101, 7003);
  h.write("proc/7003/cgroup", cg);

  EXPECT_EQ(r.lookup(4101).container, "trainer");
  // A miss, but the listing was read this cycle already (for 4101): the pod
  // comes from /var/log/pods, the container is the short id.
  const ProcessInfo& a = r.lookup(7001);
  EXPECT_EQ(a.container, "aaaaaaaaaaaa");
  EXPECT_EQ(a.pod, "llama-train-0");
  EXPECT_EQ(a.namespace_, "research");
  h.write("rootfs/var/log/containers/llama-train-0_research_sidecar-" + id + ".log", "");
  EXPECT_EQ(r.lookup(7002).container, "aaaaaaaaaaaa");  // same cycle: no second listing
  r.end_cycle();
  EXPECT_EQ(r.lookup(7003).container, "sidecar");       // next cycle: listed again on the miss
  EXPECT_EQ(r.lookup(7001).container, "aaaaaaaaaaaa");  // cached per process until forgotten
}

TEST(ProcessResolver, PodDirectoryListingRefreshedOnMiss) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_EQ(r.lookup(5601).pod, "eval-job-x7k2p");  // loads the /var/log/pods listing
  std::string uid = "0f0e0d0c-0b0a-4909-8807-060504030201";
  std::string cg = h.read("proc/5601/cgroup");
  for (size_t at; (at = cg.find("e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12")) != std::string::npos;) cg.replace(at, 36, uid);
  h.clone_pid(5601, 7101);
  h.write("proc/7101/cgroup", cg);
  h.write("rootfs/var/log/pods/batch_eval-job-b9q4z_" + uid + "/.keep", "");
  r.end_cycle();
  const ProcessInfo& p = r.lookup(7101);
  EXPECT_EQ(p.pod, "eval-job-b9q4z");
  EXPECT_EQ(p.namespace_, "batch");
  EXPECT_EQ(p.container, "ee3404d8a1f3");
}

TEST(ProcessResolver, PasswdReReadWhenChanged) {
  TempHost h;
  ProcessResolver r(h.fs());
  EXPECT_EQ(r.lookup(5401).user, "2000");
  std::string passwd = h.read("rootfs/etc/passwd");
  h.write("rootfs/etc/passwd", passwd + "triton:x:2000:2000::/users/triton:/bin/sh\n");
  fs::last_write_time(h.path("rootfs/etc/passwd"), fs::file_time_type::clock::now() + std::chrono::seconds(5));
  h.clone_pid(5401, 7201);
  EXPECT_EQ(r.lookup(7201).user, "2000");  // same cycle: passwd not looked at again
  r.end_cycle();
  h.clone_pid(5401, 7202);
  EXPECT_EQ(r.lookup(7202).user, "triton");
  EXPECT_EQ(r.lookup(5401).user, "2000");  // cached for the process it was resolved for
  // Without passwd, numbers.
  h.remove("rootfs/etc/passwd");
  r.end_cycle();
  h.clone_pid(5301, 7203);
  EXPECT_EQ(r.lookup(7203).user, "1001");
}

TEST(ProcessResolver, BrokenFiles) {
  TempHost h;
  // Garbled stat: not alive.
  h.clone_pid(5301, 7301);
  h.write("proc/7301/stat", "7301 jupyter garbage\n");
  // Status without Uid (or missing): not alive.
  h.clone_pid(5301, 7302);
  h.write("proc/7302/status", "Name:\tx\n");
  h.clone_pid(5301, 7303);
  h.remove("proc/7303/status");
  // No cgroup file: alive, no container.
  h.clone_pid(4101, 7304);
  h.remove("proc/7304/cgroup");
  // Binary cgroup file.
  h.clone_pid(4101, 7305);
  constexpr char kBinary[] = "\x00\xff\x7f:\x01::/kubepods\x00\n";
  h.write("proc/7305/cgroup", std::string(kBinary, sizeof(kBinary) - 1));
  // Empty comm: argv[0]'s basename.
  h.clone_pid(5301, 7306);
  {
    std::string s = h.read("proc/7306/stat");
    s.replace(s.find("(jupyter-lab)"), 13, "()");
    h.write("proc/7306/stat", s);
  }
  // Docker containers whose config.v2.json is garbled or missing: short id.
  std::string garbled_id(64, 'c'), missing_id(64, 'd'), bad_name_id(64, 'e');
  h.clone_pid(5201, 7307);
  h.write("proc/7307/cgroup", "0::/system.slice/docker-" + garbled_id + ".scope\n");
  h.write("rootfs/var/lib/docker/containers/" + garbled_id + "/config.v2.json", "{\"Name\": \"/half");
  h.clone_pid(5201, 7308);
  h.write("proc/7308/cgroup", "0::/system.slice/docker-" + missing_id + ".scope\n");
  h.clone_pid(5201, 7309);
  h.write("proc/7309/cgroup", "0::/system.slice/docker-" + bad_name_id + ".scope\n");
  h.write("rootfs/var/lib/docker/containers/" + bad_name_id + "/config.v2.json", "{\"Name\": 42}");

  ProcessResolver r(h.fs());
  EXPECT_FALSE(r.lookup(7301).alive);
  EXPECT_EQ(r.lookup(7301).command, "");
  EXPECT_FALSE(r.lookup(7302).alive);
  EXPECT_FALSE(r.lookup(7303).alive);
  const ProcessInfo& no_cg = r.lookup(7304);
  EXPECT_TRUE(no_cg.alive);
  EXPECT_EQ(no_cg.user, "alice");
  EXPECT_EQ(no_cg.container, "");
  EXPECT_EQ(no_cg.runtime, "");
  const ProcessInfo& bin_cg = r.lookup(7305);
  EXPECT_TRUE(bin_cg.alive);
  EXPECT_EQ(bin_cg.container, "");
  EXPECT_EQ(bin_cg.pod, "");
  EXPECT_EQ(r.lookup(7306).command, "python3");  // /users/bob/.venv/bin/python3
  EXPECT_EQ(r.lookup(7307).container, "cccccccccccc");
  EXPECT_EQ(r.lookup(7308).container, "dddddddddddd");
  EXPECT_EQ(r.lookup(7309).container, "eeeeeeeeeeee");  // "Name" not a string
  // Missing kubelet and docker trees altogether.
  h.remove("rootfs/var");
  ProcessResolver bare(h.fs());
  const ProcessInfo& t = bare.lookup(4101);
  EXPECT_EQ(t.container, "054d13bf1d92");
  EXPECT_EQ(t.pod, "");
  EXPECT_EQ(t.pod_uid, "7f3c2a91-4b6e-4d2f-9a8c-1e5b7d3f9c20");
  EXPECT_EQ(bare.lookup(5201).container, "0ef03c7fa4c4");
}

}  // namespace
}  // namespace llmon::gpu
