// The agent's on-demand trace capture (trace_capture.h).
#include "app/trace_capture.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/storage_setup.h"
#include "config/flag_names.h"
#include "http/query.h"
#include "trace/capture/capture_report.h"

namespace llmon::app {

namespace {

constexpr size_t kRecent = 100;

void answer(http::Response& res, int status, const nlohmann::json& j) {
  res.status = status;
  res.content_type = "application/json";
  res.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string base_name(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}
std::string report_link(const std::string& path) {
  std::string out = "/api/v1/trace/report?file=";
  for (unsigned char c : base_name(path)) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  return out;
}

// Sets key=value in sorted pairs.
void put(notify::LabelPairs& pairs, const std::string& key, std::string value) {
  auto it = std::lower_bound(pairs.begin(), pairs.end(), key,
                             [](const auto& p, const std::string& k) { return p.first < k; });
  if (it != pairs.end() && it->first == key)
    it->second = std::move(value);
  else
    pairs.insert(it, {key, std::move(value)});
}

// Every pair of `part` is in `whole` (both sorted).
bool subset(const notify::LabelPairs& part, const notify::LabelPairs& whole) {
  return std::includes(whole.begin(), whole.end(), part.begin(), part.end());
}

}  // namespace

Expected<std::unique_ptr<TraceCapture>> TraceCapture::create(const config::Settings& s, const base::Clock& clock,
                                                             base::Logger& log) {
  std::string dir = s.get(config::flag::kTraceCaptureDir);
  if (dir.empty()) return std::unique_ptr<TraceCapture>();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error("--trace.capture-dir " + dir + ": " + ec.message());
  auto abs = std::filesystem::canonical(dir, ec);
  if (ec) return Status::error("--trace.capture-dir " + dir + ": " + ec.message());
  std::unique_ptr<TraceCapture> t(new TraceCapture(clock, log));
  trace::capture::CaptureServiceOptions o;
  o.dir = abs.string();
  o.host = system_hostname();
  o.socket_name = s.get(config::flag::kTraceIpcSocket);
  auto srv = trace::capture::IpcServer::start(o.socket_name, t->table_, clock, log);
  if (!srv) return srv.status();
  t->server_ = std::move(*srv);
  t->log_path_ = o.dir + "/captures.jsonl";
  t->service_ = std::make_unique<trace::capture::CaptureService>(std::move(o), t->table_, clock, log);
  log.info("trace capture: listening for Kineto",
           {{"socket", t->server_->name()}, {"dir", t->service_->options().dir}});
  return t;
}

TraceCapture::~TraceCapture() {
  stop();
}

void TraceCapture::stop() {
  if (server_) server_->stop();
}

trace::capture::CaptureOutcome TraceCapture::run(const trace::capture::CaptureRequest& req, const std::string& trigger,
                                                 const notify::TraceCaptureCall* alert) {
  trace::capture::CaptureOutcome o = service_->capture(req);
  nlohmann::json rec{
      {"time_ms", clock_.now_ms()}, {"trigger", trigger}, {"selector", o.selector}, {"ok", o.ok()}, {"error", o.error}};
  if (alert) {
    rec["receiver"] = alert->receiver;
    rec["alerts"] = alert->alert_names;
    nlohmann::json labels = nlohmann::json::object();
    for (const auto& [k, v] : alert->labels) labels[k] = v;
    rec["labels"] = labels;
  }
  nlohmann::json traces = nlohmann::json::array();
  for (const auto& t : o.traces) {
    nlohmann::json j{{"pid", t.pid}, {"path", t.path}, {"headline", t.headline}, {"error", t.error}};
    if (!t.path.empty()) {
      j["file"] = base_name(t.path);
      j["report"] = report_link(t.path);
    }
    if (!t.report.is_null()) {
      j["idle_pct"] = t.report["temporal"]["idle_pct"];
      j["compute_pct"] = t.report["temporal"]["compute_pct"];
      j["non_compute_pct"] = t.report["temporal"]["non_compute_pct"];
      j["kernel_time_us"] = t.report["temporal"]["kernel_time_us"];
      if (!t.report["top_kernels"].empty()) j["top_kernel"] = t.report["top_kernels"][0];
    }
    traces.push_back(std::move(j));
  }
  rec["traces"] = traces;
  std::string line = rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> g(mu_);
  std::ofstream(log_path_, std::ios::app) << line << "\n";
  recent_.push_front(std::move(rec));
  if (recent_.size() > kRecent) recent_.pop_back();
  return o;
}

nlohmann::json TraceCapture::captures() const {
  std::lock_guard<std::mutex> g(mu_);
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : recent_) a.push_back(r);
  return a;
}

notify::TraceCaptureHook TraceCapture::hook() {
  return [this](const notify::TraceCaptureCall& c) {
    trace::capture::CaptureRequest req;
    req.selector.pid = c.pid;
    req.selector.gpu = c.gpu;
    req.selector.job_id = c.job_id;
    req.spec.duration_ms = c.duration_ms;
    req.spec.iterations = c.iterations;
    req.timeout_ms = c.timeout_ms;
    std::string names;
    for (const auto& n : c.alert_names) names += (names.empty() ? "" : ",") + n;
    log_.info("trace capture: triggered by an alert", {{"receiver", c.receiver}, {"alerts", names}});
    auto o = run(req, "alert", &c);
    attach(c, o);
    notify::TraceCaptureResult r;
    r.ok = o.ok();
    r.error = o.error;
    for (const auto& t : o.traces)
      if (!t.path.empty()) r.summary += (r.summary.empty() ? "" : "; ") + t.path + ": " + t.headline;
    return r;
  };
}

void TraceCapture::attach(const notify::TraceCaptureCall& alert, const trace::capture::CaptureOutcome& o) {
  Attachment a;
  std::string summary, link;
  for (const auto& t : o.traces) {
    std::string one = t.path.empty() ? "pid " + std::to_string(t.pid) + ": " + t.error
                                     : base_name(t.path) + ": " + (t.error.empty() ? t.headline : t.error);
    summary += (summary.empty() ? "" : "; ") + one;
    if (link.empty() && t.error.empty() && !t.path.empty()) link = report_link(t.path);
  }
  if (!o.ok() && !o.error.empty()) summary = "failed: " + o.error + (summary.empty() ? "" : " (" + summary + ")");
  put(a.annotations, "llmon_trace_capture", summary);
  if (!link.empty()) put(a.annotations, "llmon_trace_report", link);
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& labels : alert.alert_labels) {
    std::erase_if(attachments_, [&](const Attachment& x) { return x.labels == labels; });
    a.labels = labels;
    attachments_.push_front(a);
  }
  while (attachments_.size() > kRecent) attachments_.pop_back();
}

void TraceCapture::annotate(std::vector<rules::GroupSnapshot>& groups) const {
  std::lock_guard<std::mutex> g(mu_);
  if (attachments_.empty()) return;
  for (auto& group : groups)
    for (auto& rule : group.rules)
      for (auto& alert : rule.alerts)
        for (const auto& a : attachments_)
          if (subset(alert.labels, a.labels)) {
            for (const auto& [k, v] : a.annotations) put(alert.annotations, k, v);
            break;
          }
}

Status TraceCapture::register_routes(http::Server& server) {
  if (Status s = server.add_route(
          "/api/v1/trace/capture", {"POST"},
          [this](const http::Request& req, http::Response& res) {
            nlohmann::json b =
                req.body.empty() ? nlohmann::json::object() : nlohmann::json::parse(req.body, nullptr, false);
            if (b.is_discarded() || !b.is_object())
              return answer(res, 400, {{"status", "error"}, {"error", "the body must be a JSON object"}});
            trace::capture::CaptureRequest cr;
            try {
              if (b.contains("pid") && !b["pid"].is_null()) cr.selector.pid = b["pid"].get<int32_t>();
              if (b.contains("gpu") && !b["gpu"].is_null()) cr.selector.gpu = b["gpu"].get<int32_t>();
              if (b.contains("job_id") && !b["job_id"].is_null()) cr.selector.job_id = b["job_id"].get<int64_t>();
              cr.spec.duration_ms = b.value("duration_ms", int64_t{500});
              cr.spec.iterations = b.value("iterations", int64_t{0});
              cr.timeout_ms = b.value("timeout_ms", int64_t{60'000});
            } catch (const std::exception& e) {
              return answer(res, 400, {{"status", "error"}, {"error", std::string("bad field: ") + e.what()}});
            }
            if (cr.spec.duration_ms <= 0 || cr.spec.duration_ms > 600'000 || cr.spec.iterations < 0 ||
                cr.spec.iterations > 100000 || cr.timeout_ms <= 0 || cr.timeout_ms > 3'600'000)
              return answer(res, 400,
                            {{"status", "error"},
                             {"error", "duration_ms 1..600000, iterations 0..100000, timeout_ms 1..3600000"}});
            auto o = run(cr, "api");
            if (o.ok()) return answer(res, 200, {{"status", "success"}, {"data", o.to_json()}});
            answer(res, 422, {{"status", "error"}, {"error", o.error}, {"data", o.to_json()}});
          },
          64 * 1024);
      !s)
    return s;
  if (Status s = server.add_route("/api/v1/trace/processes", {"GET"},
                                  [this](const http::Request&, http::Response& res) {
                                    trace::capture::CaptureOutcome o;
                                    o.registered = table_.list(clock_.now_ms());
                                    answer(res, 200, {{"status", "success"}, {"data", o.to_json()["registered"]}});
                                  });
      !s)
    return s;
  if (Status s = server.add_route("/api/v1/trace/captures", {"GET"},
                                  [this](const http::Request&, http::Response& res) {
                                    answer(res, 200, {{"status", "success"}, {"data", captures()}});
                                  });
      !s)
    return s;
  return server.add_route("/api/v1/trace/report", {"GET"}, [this](const http::Request& req, http::Response& res) {
    auto files = http::query_values(req.query, "file");
    if (files.size() != 1) {
      res.status = 400;
      res.body = "give one file=NAME, the name of a capture in the capture directory\n";
      return;
    }
    auto page = trace::capture::capture_report_page(service_->options().dir, files[0]);
    res.status = page.status;
    res.content_type = page.content_type;
    res.body = std::move(page.body);
  });
}

}  // namespace llmon::app
