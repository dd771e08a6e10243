// SIOCETHTOOL on one AF_INET datagram socket, kept open: the calls
// node_exporter 1.5's ethtool collector makes per interface, with the kernel's
// structs from <linux/ethtool.h>.
#include "collector/ethtool_ioctl.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace llmon::collector {
namespace {

template <size_t N>
std::string c_string(const char (&a)[N]) {
  return std::string(a, strnlen(a, N));
}

// Anonymous memory whose usable part ends at a PROT_NONE page: tail(bytes)
// is the last `bytes` of it, so a write past them faults.
class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { release(); }

  // Null when the memory cannot be had. The start is aligned as bytes is
  // (the mapping is page aligned and its usable size a multiple of pages).
  void* tail(size_t bytes) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t need = (bytes + page - 1) / page * page;
    if (need > usable_) {
      release();
      void* p = ::mmap(nullptr, need + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return nullptr;
      if (::mprotect(static_cast<char*>(p) + need, page, PROT_NONE) != 0) {
        ::munmap(p, need + page);
        return nullptr;
      }
      base_ = static_cast<char*>(p);
      usable_ = need;
      mapped_ = need + page;
    }
    return base_ + (usable_ - bytes);
  }

 private:
  void release() {
    if (base_) ::munmap(base_, mapped_);
    base_ = nullptr;
    usable_ = mapped_ = 0;
  }
  char* base_ = nullptr;
  size_t usable_ = 0, mapped_ = 0;
};

class IoctlEthtool final : public EthtoolSource {
 public:
  ~IoctlEthtool() override {
    if (fd_ >= 0) ::close(fd_);
  }

  int open() override {
    if (fd_ >= 0) return 0;
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    return fd_ < 0 ? errno : 0;
  }

  int driver_info(const std::string& device, EthtoolDriverInfo& out) override {
    ethtool_drvinfo d{};
    d.cmd = ETHTOOL_GDRVINFO;
    if (int e = call(device, &d)) return e;
    out.driver = c_string(d.driver);
    out.version = c_string(d.version);
    out.fw_version = c_string(d.fw_version);
    out.bus_info = c_string(d.bus_info);
    out.erom_version = c_string(d.erom_version);
    out.n_stats = d.n_stats;
    return 0;
  }

  int link_settings(const std::string& device, EthtoolLinkSettings& out) override {
    ethtool_cmd c{};
    c.cmd = ETHTOOL_GSET;
    if (int e = call(device, &c)) return e;
    out.supported = c.supported;
    out.advertising = c.advertising;
    out.autoneg = c.autoneg;
    return 0;
  }

  int stats(const std::string& device, uint32_t n, std::string_view& names,
            std::span<const uint64_t>& values) override {
    names = {};
    values = {};
    auto* gs = static_cast<ethtool_gstrings*>(strings_.tail(sizeof(ethtool_gstrings) + size_t{n} * ETH_GSTRING_LEN));
    auto* st = static_cast<ethtool_stats*>(values_.tail(sizeof(ethtool_stats) + size_t{n} * sizeof(uint64_t)));
    if (!gs || !st) return ENOMEM;
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = n;
    if (int e = call(device, gs)) return e;
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = n;
    if (int e = call(device, st)) return e;
    // Answers longer than n faulted above; shorter ones are taken as given.
    names = std::string_view(reinterpret_cast<const char*>(gs->data), size_t{std::min(gs->len, n)} * ETH_GSTRING_LEN);
    values = std::span<const uint64_t>(reinterpret_cast<const uint64_t*>(st->data), std::min(st->n_stats, n));
    return 0;
  }

 private:
  int call(const std::string& device, void* data) {
    if (fd_ < 0) return EBADF;
    if (device.empty() || device.size() >= IFNAMSIZ) return ENODEV;  // no such interface name
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, device.data(), device.size());
    ifr.ifr_data = static_cast<char*>(data);
    return ::ioctl(fd_, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
  }

  int fd_ = -1;
  GuardedBuffer strings_, values_;
};

}  // namespace

std::unique_ptr<EthtoolSource> make_ioctl_ethtool_source() {
  return std::make_unique<IoctlEthtool>();
}

}  // namespace llmon::collector
