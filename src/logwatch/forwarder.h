// Forwarder: where the agent sends log events besides its own journal
// (docs/logwatch-forward.md): a syslog collector (syslog_forwarder.h) or
// Grafana Loki (loki_forwarder.h). The interface the agent and the metrics
// see; each implementation owns one thread and a bounded queue.
//
// Delivery is at most once: enqueue() never blocks (the watcher calls it on
// its own thread after a commit); events that find the queue full are
// dropped and counted, and so are those still queued or unsent at stop().
// All members are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "logwatch/event.h"

namespace llmon::logwatch {

struct ForwarderStats {
  uint64_t sent = 0;            // events handed to the receiver (written / accepted)
  uint64_t dropped = 0;         // events given up: queue full, rejected by the receiver, left at stop()
  uint64_t errors = 0;          // failed connects, writes and requests (each retry counts)
  uint64_t queue = 0;           // events waiting now (the batch in flight included)
  std::string last_error;       // "" until the first failure
  int64_t last_success_ms = 0;  // the last batch delivered (0: none yet)
};

class Forwarder {
 public:
  virtual ~Forwarder() = default;
  // Copies the events into the queue; never blocks on the network.
  virtual void enqueue(const std::vector<Event>& events) = 0;
  // Tries once more to deliver what is queued (bounded by a short deadline),
  // then ends the thread; what is left is counted as dropped. Idempotent.
  virtual void stop() = 0;
  virtual ForwarderStats stats() const = 0;
  // "syslog" or "loki": the metrics' forwarder label.
  virtual std::string_view name() const = 0;
};

}  // namespace llmon::logwatch
