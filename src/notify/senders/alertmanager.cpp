// Alertmanager notifier; see alertmanager.h.
#include "notify/senders/alertmanager.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "go/json.h"
#include "notify/senders/webhook.h"

namespace llmon::notify {
namespace {

void append_time(std::string& out, int64_t ms) {
  out += '"';
  out += ms == 0 ? std::string(go::json::kStrfmtZeroTime) : go::json::strfmt_millis(ms);
  out += '"';
}

uint64_t count_alerts(std::string_view payload) {
  auto j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  return j.is_array() ? j.size() : 0;
}

}  // namespace

std::string encode_postable_alerts(std::span<const Alert> alerts) {
  std::string out = "[";
  for (size_t i = 0; i < alerts.size(); ++i) {
    const Alert& a = alerts[i];
    if (i) out += ',';
    out += '{';
    if (!a.annotations.empty()) {
      out += "\"annotations\":";
      go::json::append_string_map(out, a.annotations);
      out += ',';
    }
    out += "\"endsAt\":";
    append_time(out, a.ends_at_ms);
    out += ",\"startsAt\":";
    append_time(out, a.starts_at_ms);
    if (!a.generator_url.empty()) {
      out += ",\"generatorURL\":";
      go::json::append_quoted(out, a.generator_url);
    }
    out += ",\"labels\":";
    go::json::append_string_map(out, a.labels);
    out += '}';
  }
  out += ']';
  return out;
}

LabelPairs with_external_labels(const LabelPairs& labels, const LabelPairs& external) {
  LabelPairs out = labels;
  for (const auto& [name, value] : external) {
    auto it = std::find_if(out.begin(), out.end(), [&, &n = name](const auto& p) { return p.first == n; });
    if (it == out.end())
      out.emplace_back(name, value);
    else if (it->second.empty())
      it->second = value;
  }
  std::sort(out.begin(), out.end());
  return out;
}

class AlertmanagerNotifier::Endpoint final : public DeliveryTarget {
 public:
  Endpoint(net::http::Url url, net::http::ClientOptions opts) : url_(std::move(url)), client_(std::move(opts)) {}

  std::string target_name() const { return "alertmanager " + url_.redacted(); }
  std::string url_text() const { return url_.redacted(); }

  DeliveryResult deliver(const QueuedJob& job) override {
    const uint64_t n = count_alerts(job.payload);
    auto resp = client_.post(url_, "application/json", job.payload);
    if (!resp) {
      errors_ += n;
      return {DeliveryOutcome::kRetry, "alertmanager: " + resp.error()};
    }
    const DeliveryOutcome outcome = outcome_for_http_status(resp->status);
    if (outcome == DeliveryOutcome::kDelivered) {
      sent_ += n;
      return {outcome, {}};
    }
    errors_ += n;
    if (outcome == DeliveryOutcome::kFailed) dropped_ += n;
    std::string snippet = resp->body.substr(0, 256);
    for (char& c : snippet)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return {outcome, "alertmanager: POST " + url_.redacted() + ": bad response status " + std::to_string(resp->status) +
                         (resp->reason.empty() ? "" : " " + resp->reason) + (snippet.empty() ? "" : ": " + snippet)};
  }

  void dropped(const QueuedJob& job, std::string_view) override { dropped_ += count_alerts(job.payload); }
  void count_dropped(uint64_t n) { dropped_ += n; }

  AlertmanagerMetrics::Endpoint metrics() const { return {url_text(), sent_.load(), errors_.load(), dropped_.load()}; }

 private:
  net::http::Url url_;
  net::http::Client client_;
  std::atomic<uint64_t> sent_{0}, errors_{0}, dropped_{0};
};

Expected<std::unique_ptr<AlertmanagerNotifier>> AlertmanagerNotifier::create(AlertmanagerOptions opts,
                                                                             DeliveryQueue& queue, base::Logger* log) {
  if (opts.max_batch_size == 0) opts.max_batch_size = kAlertmanagerMaxBatchSize;
  if (opts.queue_capacity == 0) opts.queue_capacity = kAlertmanagerQueueCapacity;
  std::vector<std::shared_ptr<Endpoint>> endpoints;
  for (const auto& am : opts.alertmanagers) {
    auto base = net::http::parse_url(am.url);
    if (!base) return Status::error("alertmanager: " + base.error());
    auto ep = std::make_shared<Endpoint>(net::http::join_path(*base, "/api/v2/alerts"), am.http);
    for (const auto& other : endpoints)
      if (other->target_name() == ep->target_name())
        return Status::error("alertmanager: " + ep->url_text() + " is configured twice");
    endpoints.push_back(std::move(ep));
  }
  std::unique_ptr<AlertmanagerNotifier> n(new AlertmanagerNotifier(std::move(opts), queue, log));
  for (auto& ep : endpoints) {
    if (Status s = queue.add_target(ep->target_name(), ep, TargetOptions{n->opts_.max_age_ms}); !s)
      return Status::error("alertmanager: " + s.message());
    n->endpoints_.push_back(ep);
  }
  n->thread_ = std::thread(&AlertmanagerNotifier::run, n.get());
  return n;
}

AlertmanagerNotifier::AlertmanagerNotifier(AlertmanagerOptions opts, DeliveryQueue& queue, base::Logger* log)
    : opts_(std::move(opts)), queue_(queue), log_(log) {}

AlertmanagerNotifier::~AlertmanagerNotifier() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AlertmanagerNotifier::send(std::vector<Alert> alerts) {
  if (alerts.empty()) return;
  for (Alert& a : alerts) a.labels = with_external_labels(a.labels, opts_.external_labels);
  uint64_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    const size_t cap = opts_.queue_capacity;
    // As notifier.go Send: a batch larger than the queue keeps its newest
    // alerts; a full queue loses its oldest.
    size_t skip = 0;
    if (alerts.size() > cap) skip = alerts.size() - cap;
    const size_t incoming = alerts.size() - skip;
    if (pending_.size() + incoming > cap) {
      const size_t d = pending_.size() + incoming - cap;
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(d));
      dropped += d;
    }
    dropped += skip;
    for (size_t i = skip; i < alerts.size(); ++i) pending_.push_back(std::move(alerts[i]));
    dropped_ += dropped;
  }
  if (dropped > 0 && log_)
    log_->warn("Alert notification queue full, dropping alerts", {{"num_dropped", std::to_string(dropped)}});
  cv_.notify_all();
}

void AlertmanagerNotifier::flush() {
  std::unique_lock lk(mu_);
  cv_.notify_all();
  drained_cv_.wait(lk, [&] { return pending_.empty() && batches_in_progress_ == 0; });
}

void AlertmanagerNotifier::run() {
  std::unique_lock lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) break;  // stopping, nothing left
    drain_locked(lk);
  }
  drained_cv_.notify_all();
}

void AlertmanagerNotifier::drain_locked(std::unique_lock<std::mutex>& lk) {
  while (!pending_.empty()) {
    const size_t n = std::min(opts_.max_batch_size, pending_.size());
    std::vector<Alert> batch(std::make_move_iterator(pending_.begin()),
                             std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(n)));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    ++batches_in_progress_;
    lk.unlock();
    const std::string payload = encode_postable_alerts(batch);
    for (const auto& ep : endpoints_) {
      auto id = queue_.enqueue(ep->target_name(), "alertmanager", payload);
      if (!id) {
        ep->count_dropped(n);
        if (log_)
          log_->error("Error queueing alerts",
                      {{"alertmanager", ep->url_text()}, {"count", std::to_string(n)}, {"err", id.error()}});
      }
    }
    lk.lock();
    --batches_in_progress_;
  }
  drained_cv_.notify_all();
}

AlertmanagerMetrics AlertmanagerNotifier::metrics() const {
  AlertmanagerMetrics m;
  for (const auto& ep : endpoints_) {
    m.alertmanagers.push_back(ep->metrics());
    m.dropped_total += m.alertmanagers.back().dropped_total;
  }
  std::lock_guard lock(mu_);
  m.dropped_total += dropped_;
  m.queue_length = pending_.size();
  m.queue_capacity = opts_.queue_capacity;
  return m;
}

}  // namespace llmon::notify
