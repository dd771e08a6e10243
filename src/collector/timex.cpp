#include "collector/timex.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "collector/builtin.h"

namespace llmon::collector {
namespace {

class TimexCollector final : public Collector {
 public:
  explicit TimexCollector(TimexSource source) : source_(std::move(source)) {}

  Status collect(model::SnapshotBuilder& out) override {
    struct timex tx {};
    auto state = source_(tx);
    if (!state) return state.status().with_context("failed to retrieve adjtimex stats");
    // node_exporter's constants: 1 s in ns and µs, and the 16-bit fraction of
    // ppm in which adjtimex(2) gives frequencies (see NOTES there).
    constexpr double kNano = 1e9, kMicro = 1e6, kPpm16Frac = 1000000.0 * 65536.0;
    const double divisor = (tx.status & STA_NANO) != 0 ? kNano : kMicro;
    using model::MetricType;
    auto gauge = [&](std::string_view name, std::string_view help, double v) {
      out.family(name, help, MetricType::kGauge).add(v);
    };
    auto counter = [&](std::string_view name, std::string_view help, double v) {
      out.family(name, help, MetricType::kCounter).add(v);
    };
    gauge("node_timex_sync_status", "Is clock synchronized to a reliable server (1 = yes, 0 = no).",
          *state == TIME_ERROR ? 0 : 1);
    gauge("node_timex_offset_seconds", "Time offset in between local system and reference clock.",
          static_cast<double>(tx.offset) / divisor);
    gauge("node_timex_frequency_adjustment_ratio", "Local clock frequency adjustment.",
          1 + static_cast<double>(tx.freq) / kPpm16Frac);
    gauge("node_timex_maxerror_seconds", "Maximum error in seconds.", static_cast<double>(tx.maxerror) / kMicro);
    gauge("node_timex_estimated_error_seconds", "Estimated error in seconds.",
          static_cast<double>(tx.esterror) / kMicro);
    gauge("node_timex_status", "Value of the status array bits.", static_cast<double>(tx.status));
    gauge("node_timex_loop_time_constant", "Phase-locked loop time constant.", static_cast<double>(tx.constant));
    gauge("node_timex_tick_seconds", "Seconds between clock ticks.", static_cast<double>(tx.tick) / kMicro);
    gauge("node_timex_pps_frequency_hertz", "Pulse per second frequency.",
          static_cast<double>(tx.ppsfreq) / kPpm16Frac);
    gauge("node_timex_pps_jitter_seconds", "Pulse per second jitter.", static_cast<double>(tx.jitter) / divisor);
    gauge("node_timex_pps_shift_seconds", "Pulse per second interval duration.", static_cast<double>(tx.shift));
    gauge("node_timex_pps_stability_hertz", "Pulse per second stability, average of recent frequency changes.",
          static_cast<double>(tx.stabil) / kPpm16Frac);
    counter("node_timex_pps_jitter_total", "Pulse per second count of jitter limit exceeded events.",
            static_cast<double>(tx.jitcnt));
    counter("node_timex_pps_calibration_total", "Pulse per second count of calibration intervals.",
            static_cast<double>(tx.calcnt));
    counter("node_timex_pps_error_total", "Pulse per second count of calibration errors.",
            static_cast<double>(tx.errcnt));
    counter("node_timex_pps_stability_exceeded_total", "Pulse per second count of stability limit exceeded events.",
            static_cast<double>(tx.stbcnt));
    gauge("node_timex_tai_offset_seconds", "International Atomic Time (TAI) offset.", static_cast<double>(tx.tai));
    return Status::ok();
  }

 private:
  TimexSource source_;
};

}  // namespace

Expected<int> system_adjtimex(struct timex& out) {
  out = {};
  out.modes = 0;
  int state = ::adjtimex(&out);
  if (state < 0) {
    int err = errno;
    if (err == EPERM || err == EACCES) return Status::error(std::string("permission denied: ") + std::strerror(err));
    return Status::error(std::string("adjtimex: ") + std::strerror(err));
  }
  return state;
}

std::unique_ptr<Collector> make_timex_with(TimexSource source) {
  return std::make_unique<TimexCollector>(std::move(source));
}

std::unique_ptr<Collector> make_timex(const CollectorContext&) {
  return make_timex_with(system_adjtimex);
}

}  // namespace llmon::collector
