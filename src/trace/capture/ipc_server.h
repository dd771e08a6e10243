// The daemon end of Kineto's IPC fabric: an AF_UNIX SOCK_DGRAM socket bound
// to an abstract name ("dynolog" unless --trace.ipc-socket says otherwise),
// one thread that answers "ctxt" and "req" datagrams from ProcessTable.
// Kineto's endpoints put the name's trailing NUL inside the address
// ("\0dynolog\0", dynolog ipcfabric Endpoint.h), so this one does too.
// Security: abstract sockets have no file permissions; any process in the
// same network namespace can send. What a sender can do is register itself
// and receive configs meant for the pid it claims; it cannot make the agent
// write anywhere (trace files are only read, gzipped and analysed under the
// capture directory). SO_PASSCRED gives each datagram the sender's real pid,
// recorded beside the claimed one. Malformed datagrams are counted and
// dropped. start()/stop() from one thread; the counters from any.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "base/unique_fd.h"
#include "trace/capture/process_table.h"

namespace llmon::trace::capture {

struct IpcCounters {
  uint64_t received = 0;
  uint64_t malformed = 0;
  uint64_t replies_failed = 0;
  uint64_t configs_sent = 0;
};

class IpcServer {
 public:
  // Binds `name` (1 to 106 bytes) and starts the thread. Error: the name is
  // taken ("address already in use": another dynolog or llmon) or invalid.
  static Expected<std::unique_ptr<IpcServer>> start(const std::string& name, ProcessTable& table,
                                                    const base::Clock& clock, base::Logger& log);
  ~IpcServer();  // stop()
  void stop();
  IpcCounters counters() const;
  const std::string& name() const { return name_; }

 private:
  IpcServer(std::string name, ProcessTable& table, const base::Clock& clock, base::Logger& log)
      : name_(std::move(name)), table_(table), clock_(clock), log_(log) {}
  void run();
  void handle(std::string_view datagram, const void* peer, unsigned peer_len, int32_t peer_pid);

  std::string name_;
  ProcessTable& table_;
  const base::Clock& clock_;
  base::Logger& log_;
  base::UniqueFd sock_;
  base::UniqueFd wake_;  // eventfd: stop() writes, the loop returns
  std::thread thread_;
  std::atomic<uint64_t> received_{0}, malformed_{0}, replies_failed_{0}, configs_sent_{0};
};

}  // namespace llmon::trace::capture
