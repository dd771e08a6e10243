// Decoding ListPodResourcesResponse (the message gRPC's Python server sent,
// taken from the recorded stream, and messages built here), choosing the
// NVIDIA devices, and PodResourcesSource's states over real sockets:
// missing, broken (reported once), answering (tests/integration/
// gpu_pod_resources_test.sh runs it against gRPC's server).
#include "kube/pod_resources.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/proto_wire.h"
#include "kube/grpc_call.h"
#include "support/test_paths.h"

namespace llmon::kube {
namespace {

std::string recorded_message() {
  std::ifstream f(testing::fixture("kube/list_ok.h2"), std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  GrpcRequest req;
  req.path = std::string(kPodResourcesListPath);
  GrpcUnaryCall call(req, 1 << 20);
  EXPECT_TRUE(call.feed(ss.str()));
  auto r = call.result();
  EXPECT_TRUE(r) << r.error();
  return r ? *r : std::string();
}

TEST(PodResources, DecodesTheRecordedAnswer) {
  auto pods = parse_list_pod_resources(recorded_message());
  ASSERT_TRUE(pods) << pods.error();
  ASSERT_EQ(pods->size(), 3u);
  const PodResources& train = (*pods)[0];
  EXPECT_EQ(train.name, "llama-train-0");
  EXPECT_EQ(train.namespace_, "research");
  ASSERT_EQ(train.containers.size(), 2u);
  EXPECT_EQ(train.containers[0].name, "trainer");  // its packed cpu_ids (field 3) skipped
  ASSERT_EQ(train.containers[0].devices.size(), 1u);
  EXPECT_EQ(train.containers[0].devices[0].resource_name, "nvidia.com/gpu");
  EXPECT_EQ(train.containers[0].devices[0].device_ids,
            (std::vector<std::string>{"GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7",
                                      "GPU-b81d05c3-2e7a-4f69-d3a0-5c9e17b4826f"}));
  EXPECT_EQ(train.containers[1].devices[0].resource_name, "example.com/nic");
  EXPECT_TRUE((*pods)[2].containers[0].devices.empty());

  auto holders = gpu_holders(*pods);
  ASSERT_EQ(holders.size(), 3u);  // the NIC is not a GPU
  EXPECT_EQ(holders.at("GPU-7a25c8e1-d439-0b6f-e812-39c4a7d05f1b"), (PodRef{"idle-notebook", "team-a", "jupyter"}));
  EXPECT_EQ(holders.at("GPU-b81d05c3-2e7a-4f69-d3a0-5c9e17b4826f"), (PodRef{"llama-train-0", "research", "trainer"}));
  EXPECT_EQ(gpu_holders(*pods, {"example.com/nic"}).count("nic0"), 1u);
}

std::string devices(std::string_view resource, std::initializer_list<std::string_view> ids) {
  std::string d;
  base::put_bytes(d, 1, resource);
  for (auto id : ids) base::put_bytes(d, 2, id);
  return d;
}

std::string pod(std::string_view name, std::string_view ns, std::string_view container, const std::string& devs) {
  std::string c, p, top;
  base::put_bytes(c, 1, container);
  base::put_bytes(c, 2, devs);
  base::put_bytes(p, 1, name);
  base::put_bytes(p, 2, ns);
  base::put_bytes(p, 3, c);
  base::put_bytes(top, 1, p);
  return top;
}

TEST(PodResources, MigTimeSlicingAndSharedDevices) {
  std::string msg = pod("b-pod", "ns", "c", devices("nvidia.com/gpu", {"GPU-aaaa::0", "GPU-aaaa::1"})) +
                    pod("a-pod", "ns", "c", devices("nvidia.com/gpu", {"GPU-aaaa::2"})) +
                    pod("mig-pod", "ns", "m", devices("nvidia.com/mig-1g.10gb", {"MIG-1234"})) +
                    pod("other", "ns", "o", devices("amd.com/gpu", {"card0"}));
  auto pods = parse_list_pod_resources(msg);
  ASSERT_TRUE(pods) << pods.error();
  auto holders = gpu_holders(*pods);
  ASSERT_EQ(holders.size(), 2u);
  EXPECT_EQ(holders.at("GPU-aaaa").pod, "a-pod");  // shared: the smallest, whatever the order
  EXPECT_EQ(holders.at("MIG-1234").container, "m");
}

TEST(PodResources, MalformedMessagesNameTheByte) {
  EXPECT_EQ(parse_list_pod_resources("\x0a\x05\x0a\x01").error(),
            "ListPodResourcesResponse: length-delimited field runs past its message at byte 2");
  EXPECT_EQ(parse_list_pod_resources(std::string("\x0a\x02\x08\x01", 4)).error(),
            "ListPodResourcesResponse: pod name has wire type 0 at byte 3");
  EXPECT_EQ(parse_list_pod_resources("\x0a").error(), "ListPodResourcesResponse: truncated varint at byte 1");
  EXPECT_EQ(parse_list_pod_resources("\x08").error(),
            "ListPodResourcesResponse: pod_resources has wire type 0 at byte 1");
  EXPECT_EQ(parse_list_pod_resources("\x0d\x01").error(),
            "ListPodResourcesResponse: pod_resources has wire type 5 at byte 1");
  auto empty = parse_list_pod_resources("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/llmon-kube-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::string log_of(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

TEST(PodResourcesSource, MissingSocketIsQuiet) {
  TempDir dir;
  std::FILE* f = std::tmpfile();
  base::Logger log(base::LogLevel::kDebug, f);
  PodResourcesSource src((dir.path / "kubelet.sock").string(), &log);
  EXPECT_EQ(src.refresh(), PodResourcesSource::State::kMissing);
  EXPECT_TRUE(src.holders().empty());
  EXPECT_EQ(log_of(f), "");
  PodResourcesSource off("", &log);
  EXPECT_EQ(off.refresh(), PodResourcesSource::State::kMissing);
  std::fclose(f);
}

TEST(PodResourcesSource, BrokenSocketIsReportedOnceWithItsPath) {
  TempDir dir;
  const std::string path = (dir.path / "kubelet.sock").string();
  // A socket nobody accepts on any more: connect is refused.
  {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ::close(fd);
  }
  std::FILE* f = std::tmpfile();
  base::Logger log(base::LogLevel::kDebug, f);
  PodResourcesSource src(path, &log, 200);
  EXPECT_EQ(src.refresh(), PodResourcesSource::State::kBroken);
  EXPECT_EQ(src.refresh(), PodResourcesSource::State::kBroken);
  std::string text = log_of(f);
  EXPECT_NE(text.find("kubelet pod-resources socket is not usable"), std::string::npos) << text;
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_NE(text.find("Connection refused"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  std::fclose(f);
}

TEST(PodResourcesSource, ServerThatIsNotGrpcIsBroken) {
  TempDir dir;
  const std::string path = (dir.path / "kubelet.sock").string();
  int lfd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(lfd, 1), 0);
  std::thread server([lfd] {
    int c = ::accept(lfd, nullptr, nullptr);
    char buf[256];
    (void)::read(c, buf, sizeof buf);
    const char reply[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    (void)::write(c, reply, sizeof reply - 1);
    ::close(c);
  });
  std::FILE* f = std::tmpfile();
  base::Logger log(base::LogLevel::kDebug, f);
  PodResourcesSource src(path, &log, 2000);
  EXPECT_EQ(src.refresh(), PodResourcesSource::State::kBroken);
  server.join();
  ::close(lfd);
  EXPECT_NE(log_of(f).find("not an HTTP/2 server"), std::string::npos) << log_of(f);
  std::fclose(f);
}

}  // namespace
}  // namespace llmon::kube
