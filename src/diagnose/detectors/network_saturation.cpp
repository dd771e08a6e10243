// network_saturation: a network interface (Ethernet: node_network_*, its
// speed node_network_speed_bytes; InfiniBand: node_infiniband_port_*, its
// rate node_infiniband_rate_bytes_per_second) that carries 80 % or more of its
// link speed on average over the window, or 90 % or more for most of it (by
// the minute), in either direction; or one that drops or errors packets at
// a sustained rate (at least one a second). Named by device (and port).
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

struct Link {
  const char* tx;
  const char* rx;
  const char* speed;
  std::initializer_list<const char*> errors;  // the families that count dropped or bad packets
  const char* by;                             // the labels that name one link
  const char* what;
};

constexpr Link kLinks[] = {
    {"node_network_transmit_bytes_total",
     "node_network_receive_bytes_total",
     "node_network_speed_bytes",
     {"node_network_receive_drop_total", "node_network_transmit_drop_total", "node_network_receive_errs_total",
      "node_network_transmit_errs_total"},
     "device, instance",
     "interface"},
    {"node_infiniband_port_data_transmitted_bytes_total",
     "node_infiniband_port_data_received_bytes_total",
     "node_infiniband_rate_bytes_per_second",
     {"node_infiniband_port_errors_received_total", "node_infiniband_port_discards_received_total",
      "node_infiniband_port_discards_transmitted_total"},
     "device, port, instance",
     "InfiniBand port"},
};

class NetworkSaturation final : public Detector {
 public:
  std::string_view name() const override { return "network_saturation"; }
  std::vector<std::string_view> kinds() const override { return {kind::kNetworkSaturation}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    for (const Link& l : kLinks) look(ctx, l, out);
  }

 private:
  static void look(Context& ctx, const Link& l, std::vector<Finding>& out) {
    const std::string w = ctx.window();
    const std::string speed = ctx.sel(l.speed);
    // Dropped and bad packets: one query per family (their rates share a label set).
    std::vector<std::pair<std::string, promql::Vector>> err_by_family;
    promql::Vector errs;  // the sum per link
    for (const char* family : l.errors) {
      std::string q = "sum by (" + std::string(l.by) + ") (rate(" + ctx.sel(family) + "[" + w + "]))";
      promql::Vector v = ctx.query(q);
      for (const auto& x : v) {
        auto it = std::find_if(errs.begin(), errs.end(), [&](const auto& e) { return e.labels == x.labels; });
        if (it == errs.end())
          errs.push_back(x);
        else
          it->v += x.v;
      }
      err_by_family.emplace_back(std::move(q), std::move(v));
    }
    struct Dir {
      std::string mean_q, share_q;
      promql::Vector mean, share;
      const char* name;
    };
    Dir dirs[2];
    int i = 0;
    for (const char* family : {l.tx, l.rx}) {
      Dir& d = dirs[i++];
      d.name = family == l.tx ? "transmit" : "receive";
      d.mean_q = "rate(" + ctx.sel(family) + "[" + w + "]) / " + speed;
      d.share_q = "avg_over_time((rate(" + ctx.sel(family) + "[1m]) / " + speed + " > bool 0.9)" + ctx.sub() + ")";
      d.mean = ctx.query(d.mean_q);
    }
    if (dirs[0].mean.empty() && dirs[1].mean.empty() && errs.empty()) return;
    for (Dir& d : dirs) d.share = ctx.query(d.share_q);
    // Every link that any of the queries names.
    std::vector<const promql::VectorSample*> links;
    auto key = [&](const promql::VectorSample& s) {
      return std::string(s.labels.get("device")) + "/" + std::string(s.labels.get("port")) + "/" +
             std::string(s.labels.get("instance"));
    };
    auto same = [&](const promql::Vector& v, const promql::VectorSample& s) -> const promql::VectorSample* {
      for (const auto& x : v)
        if (key(x) == key(s)) return &x;
      return nullptr;
    };
    for (const promql::Vector* v : {&dirs[0].mean, &dirs[1].mean, &errs})
      for (const auto& s : *v)
        if (std::none_of(links.begin(), links.end(), [&](const auto* x) { return key(*x) == key(s); }))
          links.push_back(&s);
    for (const auto* link : links) {
      const Dir* worst = nullptr;
      double mean = 0, share = 0;
      for (const Dir& d : dirs) {
        const auto* m = same(d.mean, *link);
        const auto* s = same(d.share, *link);
        double mv = m ? m->v : 0, sv = s ? s->v : 0;
        if (!worst || mv > mean) worst = &d, mean = mv, share = sv;
      }
      const auto* e = same(errs, *link);
      double err = e ? e->v : 0;
      const bool full = mean >= 0.8 || share >= 0.6;
      const bool dropping = err >= 1;
      if (!full && !dropping) continue;
      Finding f = ctx.finding(kind::kNetworkSaturation, Severity::kWarning);
      f.subject = subject_of(*link, {"device", "port", "instance"});
      f.confidence = std::clamp(0.5 + 0.4 * std::max(mean, share) + (dropping ? 0.1 : 0.0), 0.0, 0.98);
      f.summary = strf("%s %s", l.what, std::string(link->labels.get("device")).c_str());
      if (full)
        f.summary += strf(" %s at %.0f %% of its link speed over %s (90 %% or more for %.0f %% of it)", worst->name,
                          mean * 100, w.c_str(), share * 100);
      else
        f.summary += strf(" at %.0f %% of its link speed", mean * 100);
      if (dropping) f.summary += strf("; %.0f packets/s dropped or in error", err);
      f.evidence = {{worst->mean_q, mean, std::string("mean ") + worst->name + " rate / link speed"},
                    {worst->share_q, share, "share of the window at 90 % of the link or more"}};
      for (const auto& [q, v] : err_by_family)
        if (const auto* x = same(v, *link); x && x->v > 0) f.evidence.push_back({q, x->v, "packets per second"});
      f.advice =
          "The link is the limit: see what sends (`iftop`, `ss -tin`, `nstat`) and move bulk transfers (dataset "
          "sync, checkpoint upload, model pulls) off the job's interface or schedule them; check the "
          "negotiated speed (`ethtool DEV`) and measure the path (`iperf3`). Drops and errors: ring buffers "
          "(`ethtool -g`), MTU mismatches, a bad cable or transceiver (`ethtool -S`, `ibdiagnet`).";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_network_saturation() {
  return std::make_unique<NetworkSaturation>();
}

}  // namespace llmon::diagnose
