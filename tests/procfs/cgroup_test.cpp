#include "procfs/cgroup.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

constexpr std::string_view kId = "4f6c8a1e2b3d5f7091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7a8";
constexpr std::string_view kUid = "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901";
constexpr std::string_view kUidSystemd = "1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901";

std::string S(std::string_view a, std::string_view b = "", std::string_view c = "", std::string_view d = "",
              std::string_view e = "") {
  return std::string(a) + std::string(b) + std::string(c) + std::string(d) + std::string(e);
}

void expect(const CgroupInfo& got, std::string_view runtime, std::string_view id, std::string_view pod_uid,
            std::string_view qos) {
  EXPECT_EQ(got.runtime, runtime);
  EXPECT_EQ(got.container_id, id);
  EXPECT_EQ(got.pod_uid, pod_uid);
  EXPECT_EQ(got.qos_class, qos);
}

TEST(Cgroup, KubernetesSystemdContainerd) {
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod", kUidSystemd,
                        ".slice/cri-containerd-", kId, ".scope\n")),
         "containerd", kId, kUid, "burstable");
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod", kUidSystemd,
                        ".slice/cri-containerd-", kId, ".scope\n")),
         "containerd", kId, kUid, "besteffort");
  // Guaranteed pods sit directly under kubepods.slice.
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-pod", kUidSystemd, ".slice/cri-containerd-", kId, ".scope\n")),
         "containerd", kId, kUid, "guaranteed");
}

TEST(Cgroup, KubernetesSystemdKindNestedRoot) {
  // kind / nested kubelets use the cgroup root /kubelet.slice.
  expect(parse_cgroup_path(S("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
                             "kubelet-kubepods-besteffort-pod",
                             kUidSystemd, ".slice/cri-containerd-", kId, ".scope")),
         "containerd", kId, kUid, "besteffort");
}

TEST(Cgroup, KubernetesCgroupfsDriver) {
  expect(parse_cgroup(S("0::/kubepods/burstable/pod", kUid, "/", kId, "\n")), "cri", kId, kUid, "burstable");
  expect(parse_cgroup(S("0::/kubepods/besteffort/pod", kUid, "/", kId, "\n")), "cri", kId, kUid, "besteffort");
  expect(parse_cgroup(S("0::/kubepods/pod", kUid, "/", kId, "\n")), "cri", kId, kUid, "guaranteed");
  // CRI-O with the cgroupfs driver names its container cgroup crio-<id>.
  expect(parse_cgroup(S("0::/kubepods/burstable/pod", kUid, "/crio-", kId, "\n")), "cri-o", kId, kUid, "burstable");
  // Static pods have a 32-digit hash as their UID.
  expect(parse_cgroup_path(S("/kubepods/burstable/pod8a6b1a0f8e0f2b5e0b4b7f9d1c2e3f4a/", kId)), "cri", kId,
         "8a6b1a0f8e0f2b5e0b4b7f9d1c2e3f4a", "burstable");
}

TEST(Cgroup, CriO) {
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod", kUidSystemd,
                        ".slice/crio-", kId, ".scope\n")),
         "cri-o", kId, kUid, "besteffort");
  // conmon, the monitor, lives next to the container: the pod, no container.
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod", kUidSystemd,
                        ".slice/crio-conmon-", kId, ".scope\n")),
         "", "", kUid, "besteffort");
}

TEST(Cgroup, Docker) {
  expect(parse_cgroup(S("12:memory:/docker/", kId, "\n")), "docker", kId, "", "");
  expect(parse_cgroup(S("0::/system.slice/docker-", kId, ".scope\n")), "docker", kId, "", "");
  // Docker (cri-dockerd) inside Kubernetes.
  expect(parse_cgroup(S("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod", kUidSystemd,
                        ".slice/docker-", kId, ".scope\n")),
         "docker", kId, kUid, "burstable");
  expect(parse_cgroup(S("11:pids:/kubepods/besteffort/pod", kUid, "/", kId, "\n")), "cri", kId, kUid, "besteffort");
}

TEST(Cgroup, Podman) {
  expect(parse_cgroup(S("0::/machine.slice/libpod-", kId, ".scope\n")), "podman", kId, "", "");
  // Rootless, with crun's "container" sub-cgroup below the scope.
  expect(
      parse_cgroup(S("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-", kId, ".scope/container\n")),
      "podman", kId, "", "");
  expect(parse_cgroup(S("0::/libpod_parent/libpod-", kId, "\n")), "podman", kId, "", "");
  expect(parse_cgroup(S("0::/machine.slice/libpod-conmon-", kId, ".scope\n")), "", "", "", "");
}

TEST(Cgroup, Nerdctl) {
  expect(parse_cgroup(S("0::/system.slice/nerdctl-", kId, ".scope\n")), "containerd", kId, "", "");
}

TEST(Cgroup, V1ManyLinesPrefersTheOneNamingAContainer) {
  std::string path = S("/kubepods/burstable/pod", kUid, "/", kId);
  std::string text = "13:rdma:/\n12:misc:/\n" + S("11:memory:", path, "\n") + S("10:pids:", path, "\n") +
                     S("1:name=systemd:", path, "\n") + "0::/\n";
  expect(parse_cgroup(text), "cri", kId, kUid, "burstable");
  // Only some controllers show the container (e.g. docker with a shared hierarchy).
  expect(parse_cgroup(S("3:cpu,cpuacct:/\n2:memory:/docker/", kId, "\n1:name=systemd:/\n")), "docker", kId, "", "");
}

TEST(Cgroup, HostProcessesHaveNoContainer) {
  for (std::string_view text : {"0::/user.slice/user-1000.slice/session-3.scope\n", "0::/system.slice/ssh.service\n",
                                "0::/init.scope\n", "0::/\n", "12:memory:/user.slice\n1:name=systemd:/init.scope\n"}) {
    CgroupInfo c = parse_cgroup(text);
    EXPECT_FALSE(c.in_container()) << text;
    expect(c, "", "", "", "");
  }
  // A 64-hex name outside docker/kubepods is not guessed at.
  expect(parse_cgroup(S("0::/system.slice/", kId, "\n")), "", "", "", "");
}

TEST(Cgroup, DeepestContainerWinsAndSubCgroups) {
  // A container running systemd: the process sits in a sub-cgroup.
  expect(parse_cgroup(S("0::/system.slice/docker-", kId, ".scope/init.scope\n")), "docker", kId, "", "");
  std::string inner(64, 'b');
  expect(parse_cgroup(S("0::/docker/", kId, "/docker/", inner, "\n")), "docker", inner, "", "");
}

TEST(Cgroup, DeletedSuffixAndNamespaceRelativePaths) {
  expect(parse_cgroup(S("0::/system.slice/docker-", kId, ".scope (deleted)\n")), "docker", kId, "", "");
  // Read from inside a cgroup namespace: the path climbs out with "..".
  expect(parse_cgroup(S("0::/../../kubepods-burstable-pod", kUidSystemd, ".slice/cri-containerd-", kId, ".scope\n")),
         "containerd", kId, kUid, "burstable");
}

TEST(Cgroup, NearMissesAreNotContainers) {
  expect(parse_cgroup(S("0::/system.slice/docker-", kId.substr(0, 63), ".scope\n")), "", "", "", "");  // 63 digits
  std::string upper(kId);
  upper[0] = 'F';
  expect(parse_cgroup(S("0::/system.slice/docker-", upper, ".scope\n")), "", "", "", "");
  expect(parse_cgroup(S("0::/system.slice/docker-", kId, "0.scope\n")), "", "", "", "");  // 65 digits
  expect(parse_cgroup("0::/system.slice/docker.service\n"), "", "", "", "");
  // A pod slice with a malformed UID gives no pod.
  expect(parse_cgroup("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podxyz.slice\n"), "", "", "", "");
}

TEST(Cgroup, GarbageEmptyAndBinary) {
  expect(parse_cgroup(""), "", "", "", "");
  expect(parse_cgroup("\n\n\n"), "", "", "", "");
  expect(parse_cgroup("not a cgroup file"), "", "", "", "");
  expect(parse_cgroup(S("docker/", kId)), "", "", "", "");                  // no "id:controllers:"
  expect(parse_cgroup(S("x:memory:/docker/", kId, "\n")), "", "", "", "");  // hierarchy id not a number
  expect(parse_cgroup(S("1:memory:docker/", kId, "\n")), "", "", "", "");   // not an absolute path
  std::string binary("\x00\xff\x01:\x00:/\xfe\x80kubepods\x00/pod\n\x7f", 24);
  expect(parse_cgroup(binary), "", "", "", "");
  // Truncated: a container only where the cut leaves a whole "docker-<id>" or
  // "docker-<id>.scope" component.
  std::string full = S("0::/system.slice/docker-", kId, ".scope\n");
  for (size_t n = 0; n < full.size(); ++n) {
    CgroupInfo c = parse_cgroup(std::string_view(full).substr(0, n));
    EXPECT_EQ(c.in_container(), n == full.size() - 7 || n == full.size() - 1) << n;
  }
}

}  // namespace
}  // namespace llmon::procfs
