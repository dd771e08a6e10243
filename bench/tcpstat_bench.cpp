// tcpstat: the netlink INET_DIAG dump the collector uses (without
// INET_DIAG_INFO), the same dump with INET_DIAG_INFO (node_exporter 1.5's
// request), and reading /proc/net/tcp + tcp6 (the text files older
// node_exporters parsed), each counting states and summing queues, with the
// host's sockets plus N loopback connections (2N established sockets) made
// by the benchmark. Reads the live kernel; numbers compare within one run.
//
// Run: tcpstat_bench --benchmark_repetitions=5
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/tcp_diag.h"
#include "procfs/inet_diag.h"
#include "procfs/text_fields.h"

namespace {

using llmon::procfs::TcpStates;

// n loopback connections: a listener and n connected, accepted pairs.
class Connections {
 public:
  explicit Connections(int n) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener_, 4096) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    for (int i = 0; i < n; ++i) {
      int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (c < 0 || ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) break;
      fds_.push_back(c);
      int s = ::accept(listener_, nullptr, nullptr);
      if (s >= 0) fds_.push_back(s);
    }
  }
  ~Connections() {
    linger off{1, 0};  // reset, not TIME_WAIT: the next benchmark sees the same host
    for (int fd : fds_) {
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof off);
      ::close(fd);
    }
    if (listener_ >= 0) ::close(listener_);
  }
  size_t sockets() const { return fds_.size(); }

 private:
  int listener_ = -1;
  std::vector<int> fds_;
};

void netlink(benchmark::State& state, bool with_info) {
  Connections conns(static_cast<int>(state.range(0)));
  auto diag = llmon::collector::make_netlink_tcp_diag(with_info);
  double records = 0;
  for (auto _ : state) {
    TcpStates total;
    for (uint8_t family : {uint8_t{AF_INET}, uint8_t{AF_INET6}}) {
      llmon::Status s = diag->dump(family, [&](std::string_view d, bool& done) {
        return llmon::procfs::parse_inet_diag_datagram(d, total, done);
      });
      if (!s) state.SkipWithError(s.message().c_str());
    }
    records = static_cast<double>(total.records);
    benchmark::DoNotOptimize(total);
  }
  state.counters["sockets"] = records;
}

void BM_TcpstatNetlink(benchmark::State& state) {
  netlink(state, false);
}
void BM_TcpstatNetlinkWithTcpInfo(benchmark::State& state) {
  netlink(state, true);
}

// /proc/net/tcp{,6}: "sl local rem st tx_queue:rx_queue ...", st and the queues in hex.
void BM_TcpstatProcFiles(benchmark::State& state) {
  Connections conns(static_cast<int>(state.range(0)));
  llmon::base::CachedFile files[] = {llmon::base::CachedFile("/proc/net/tcp"),
                                     llmon::base::CachedFile("/proc/net/tcp6")};
  double records = 0;
  for (auto _ : state) {
    TcpStates total;
    for (auto& f : files) {
      auto text = f.read();
      if (!text) continue;
      llmon::base::LineIterator lines(*text);
      std::string_view line, sl, local, remote, st, queues;
      lines.next(line);  // header
      while (lines.next(line)) {
        llmon::procfs::FieldIter it(line);
        if (!it.next(sl) || !it.next(local) || !it.next(remote) || !it.next(st) || !it.next(queues)) continue;
        auto s = llmon::procfs::parse_hex(st, 8);
        size_t colon = queues.find(':');
        auto tx = llmon::procfs::parse_hex(queues.substr(0, colon));
        auto rx = colon == std::string_view::npos ? std::nullopt : llmon::procfs::parse_hex(queues.substr(colon + 1));
        if (!s || !tx || !rx) continue;
        if (*s < total.by_state.size()) total.by_state[*s] += 1;
        total.tx_queued_bytes += static_cast<double>(*tx);
        total.rx_queued_bytes += static_cast<double>(*rx);
        ++total.records;
      }
    }
    records = static_cast<double>(total.records);
    benchmark::DoNotOptimize(total);
  }
  state.counters["sockets"] = records;
}

BENCHMARK(BM_TcpstatNetlink)->Arg(0)->Arg(1000)->Arg(5000);
BENCHMARK(BM_TcpstatNetlinkWithTcpInfo)->Arg(0)->Arg(1000)->Arg(5000);
BENCHMARK(BM_TcpstatProcFiles)->Arg(0)->Arg(1000)->Arg(5000);

}  // namespace

BENCHMARK_MAIN();
