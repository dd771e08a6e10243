#include "remote/queue.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "base/strings.h"
#include "net/http_client.h"
#include "remote/send_policy.h"
#include "remote/write_request.h"

namespace llmon::remote {

Expected<std::unique_ptr<Queue>> Queue::create(QueueOptions o, PostFn post, const base::Clock& clock,
                                               base::Logger& log) {
  auto relabel = scrape::Relabeler::compile(o.config.write_relabel_configs);
  if (!relabel) return Status::error(o.config.origin + ": write_relabel_configs: " + relabel.error());
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(o.position_path).parent_path(), ec);
  if (ec) return Status::error("remote_write: create " + o.position_path + ": " + ec.message());
  auto loaded = load_position(o.position_path);
  if (!loaded) return loaded.status();
  std::unique_ptr<Queue> q(new Queue(std::move(o), std::move(post), clock, log, std::move(*relabel)));
  if (*loaded) q->pos_ = **loaded;
  q->pos_copy_ = q->pos_;
  q->stats_.highest_sent_ms = q->pos_.max_sent_ms;
  return q;
}

Queue::Queue(QueueOptions o, PostFn post, const base::Clock& clock, base::Logger& log, scrape::Relabeler relabel)
    : opts_(std::move(o)),
      post_(std::move(post)),
      clock_(clock),
      log_(log),
      relabel_(std::move(relabel)),
      name_(opts_.config.name.empty() ? queue_hash(opts_.config) : opts_.config.name),
      reader_(opts_.storage_path) {}

Queue::~Queue() {
  stop();
}

void Queue::start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] { run(); });
}

void Queue::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

QueueStats Queue::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

ReadPosition Queue::position() const {
  std::lock_guard lock(mu_);
  return pos_copy_;
}

bool Queue::sleep_ms(int64_t ms) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
  return !stop_;
}

void Queue::run() {
  log_.info("remote_write queue started", {{"queue", name_},
                                           {"url", opts_.config.url},
                                           {"segment", std::to_string(pos_.segment)},
                                           {"offset", std::to_string(pos_.offset)}});
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return;
    }
    if (!step() && !sleep_ms(opts_.poll_interval_ms)) return;
  }
}

const std::vector<model::Label>* Queue::series_labels(storage::SeriesRef ref) {
  auto it = relabelled_.find(ref);
  if (it == relabelled_.end()) {
    const model::Labels* l = reader_.labels(ref);
    if (!l) return nullptr;
    std::vector<model::Label> labels = l->pairs();
    for (const auto& ext : opts_.external_labels)
      if (l->get(ext.name).empty()) labels.push_back(ext);
    std::optional<std::vector<model::Label>> out;
    if (relabel_.process(labels)) {
      std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
      if (!labels.empty()) out = std::move(labels);
    }
    it = relabelled_.emplace(ref, std::move(out)).first;
  }
  static const std::vector<model::Label> kDropped;
  return it->second ? &*it->second : &kDropped;
}

bool Queue::deliver(const std::string& body, size_t samples, bool& dropped) {
  dropped = false;
  {
    std::lock_guard lock(mu_);
    stats_.samples_pending = samples;
  }
  for (int attempt = 1;; ++attempt) {
    auto r = post_(body);
    std::optional<int64_t> retry_after;
    std::string why;
    if (r) {
      const SendVerdict v = verdict_for_status(r->status, opts_.config.queue.retry_on_http_429);
      if (v == SendVerdict::kAcked) {
        std::lock_guard lock(mu_);
        stats_.samples_sent += samples;
        stats_.bytes_sent += body.size();
        ++stats_.requests_sent;
        stats_.samples_pending = 0;
        return true;
      }
      why = "status " + std::to_string(r->status) + ": " + r->body.substr(0, 200);
      if (v == SendVerdict::kDrop) {
        log_.error("remote_write: receiver refused a batch; dropped",
                   {{"queue", name_}, {"samples", std::to_string(samples)}, {"err", why}});
        std::lock_guard lock(mu_);
        stats_.samples_dropped += samples;
        stats_.samples_pending = 0;
        dropped = true;
        return true;
      }
      retry_after = parse_retry_after_ms(r->header("retry-after"), clock_.now_ms() / 1000);
    } else {
      why = r.error();
    }
    {
      std::lock_guard lock(mu_);
      stats_.samples_failed += samples;
      stats_.samples_retried += samples;
    }
    const int64_t delay =
        retry_delay_ms(attempt, opts_.config.queue.min_backoff_ms, opts_.config.queue.max_backoff_ms, retry_after);
    if (attempt == 1 || attempt % 20 == 0)
      log_.warn("remote_write: send failed; retrying",
                {{"queue", name_}, {"attempt", std::to_string(attempt)}, {"err", why}});
    if (!sleep_ms(delay)) return false;
  }
}

namespace {

struct Grouped {
  std::vector<WriteSeries> series;
  size_t samples = 0;
  int64_t max_t = 0;
};

}  // namespace

void Queue::refill(int64_t from_ms, int64_t to_ms) {
  if (!opts_.store || from_ms > to_ms) return;
  auto q = opts_.store->querier(from_ms, to_ms);
  if (!q) {
    log_.error("remote_write: cannot read the store to refill lost WAL segments", {{"err", q.error()}});
    return;
  }
  auto set = (*q)->select(from_ms, to_ms, {{model::Matcher::Type::kRe, "__name__", ".+"}});
  std::vector<WriteSeries> batch;
  size_t n = 0;
  std::string raw;
  auto flush = [&]() -> bool {
    if (batch.empty()) return true;
    encode_write_request(batch, {}, raw);
    bool dropped = false;
    if (!deliver(snappy_compress(raw), n, dropped)) return false;
    std::lock_guard lock(mu_);
    if (!dropped) stats_.samples_refilled += n;
    batch.clear();
    n = 0;
    return true;
  };
  std::vector<model::Sample> pts;
  while (set->next()) {
    const auto& s = set->at();
    std::vector<model::Label> labels = s.labels().pairs();
    for (const auto& ext : opts_.external_labels)
      if (s.labels().get(ext.name).empty()) labels.push_back(ext);
    if (!relabel_.process(labels) || labels.empty()) continue;
    std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    auto it = s.iterator();
    pts.clear();
    if (it->seek(from_ms)) it->append_until(to_ms, pts);
    if (pts.empty()) continue;
    WriteSeries ws{std::move(labels), {}};
    for (const auto& p : pts) ws.samples.push_back({p.t_ms, p.v});
    n += ws.samples.size();
    batch.push_back(std::move(ws));
    if (n >= opts_.config.queue.max_samples_per_send && !flush()) return;
  }
  flush();
}

bool Queue::step() {
  std::vector<tsdb::wal::SampleEntry> samples;
  const size_t max = static_cast<size_t>(opts_.config.queue.max_samples_per_send);
  auto r = reader_.read(pos_, max, samples);
  if (!r) {
    log_.warn("remote_write: reading the WAL", {{"queue", name_}, {"err", r.error()}});
    return false;
  }
  if (r->rewound)
    log_.warn("remote_write: the WAL segment is shorter than the saved position (power cut?); resending it",
              {{"queue", name_}, {"segment", std::to_string(pos_.segment)}});
  if (r->corruptions) {
    log_.error("remote_write: damaged WAL records skipped (counted as dropped)",
               {{"queue", name_}, {"detail", r->corruption_detail}});
    std::lock_guard lock(mu_);
    stats_.wal_corruptions += r->corruptions;
  }
  if (r->lost_end > r->lost_first) {
    // The store moved these segments into chunks before we sent them: read
    // the same time range back from the store (docs/remote_write.md).
    int64_t until = clock_.now_ms();
    for (const auto& s : samples) until = std::min(until, s.t_ms);
    log_.warn("remote_write: WAL segments were removed before being sent; refilling from the store",
              {{"queue", name_},
               {"segments", std::to_string(r->lost_first) + "-" + std::to_string(r->lost_end - 1)},
               {"from_ms", std::to_string(pos_.max_sent_ms + 1)},
               {"to_ms", std::to_string(until - 1)}});
    {
      std::lock_guard lock(mu_);
      stats_.wal_segments_lost += r->lost_end - r->lost_first;
    }
    refill(pos_.max_sent_ms + 1, until - 1);
  }
  if (samples.empty()) {
    const bool moved = !(r->next == pos_);
    pos_ = r->next;
    if (moved) (void)save_position(opts_.position_path, pos_);
    std::lock_guard lock(mu_);
    pos_copy_ = pos_;
    return false;
  }
  // Group by series, keeping each series' samples in WAL order.
  Grouped g;
  std::unordered_map<storage::SeriesRef, size_t> index;
  uint64_t unknown = 0, relabel_dropped = 0;
  for (const auto& s : samples) {
    g.max_t = std::max(g.max_t, s.t_ms);
    auto it = index.find(s.ref);
    if (it == index.end()) {
      const auto* labels = series_labels(s.ref);
      if (!labels) {
        ++unknown;
        continue;
      }
      if (labels->empty()) {
        ++relabel_dropped;
        continue;
      }
      it = index.emplace(s.ref, g.series.size()).first;
      g.series.push_back({*labels, {}});
    }
    g.series[it->second].samples.push_back({s.t_ms, s.v});
    ++g.samples;
  }
  if (unknown && reader_.take_reload_failure()) {
    // The series log could not be read just now: send nothing, retry the
    // same position at the next poll.
    log_.warn("remote_write: cannot read the series log; retrying", {{"queue", name_}});
    return false;
  }
  if (unknown) {
    log_.error("remote_write: samples of series missing from the series log (dropped)",
               {{"queue", name_}, {"samples", std::to_string(unknown)}});
  }
  {
    std::lock_guard lock(mu_);
    stats_.samples_dropped += unknown;
    stats_.samples_relabel_dropped += relabel_dropped;
  }
  if (g.samples > 0) {
    std::string raw;
    encode_write_request(g.series, {}, raw);
    bool dropped = false;
    if (!deliver(snappy_compress(raw), g.samples, dropped)) return false;  // stopping: resent after restart
  }
  pos_ = r->next;
  pos_.max_sent_ms = std::max(pos_.max_sent_ms, g.max_t);
  if (Status st = save_position(opts_.position_path, pos_); !st)
    log_.error("remote_write: saving the read position", {{"queue", name_}, {"err", st.message()}});
  std::lock_guard lock(mu_);
  pos_copy_ = pos_;
  stats_.highest_sent_ms = std::max(stats_.highest_sent_ms, g.max_t);
  return true;
}

Expected<PostFn> http_post_fn(const RemoteWriteConfig& c) {
  auto url = net::http::parse_url(c.url);
  if (!url) return Status::error(c.origin + ": url \"" + c.url + "\": " + url.error());
  net::http::ClientOptions co;
  co.timeout_ms = static_cast<int>(std::min<int64_t>(c.remote_timeout_ms, 1 << 30));
  co.connect_timeout_ms = std::min(co.timeout_ms, 5000);
  co.max_response_body_bytes = size_t{64} * 1024;
  co.tls_ca_file = c.tls.ca_file;
  co.tls_cert_file = c.tls.cert_file;
  co.tls_key_file = c.tls.key_file;
  co.tls_server_name = c.tls.server_name;
  co.tls_insecure_skip_verify = c.tls.insecure_skip_verify;
  co.user_agent = "llmon-remote-write";
  if (c.basic_auth) {
    co.basic_auth_username = c.basic_auth->username;
    co.basic_auth_password = c.basic_auth->password;
    if (!c.basic_auth->password_file.empty()) {
      std::ifstream in(c.basic_auth->password_file);
      if (!in)
        return Status::error(c.origin + ": basic_auth.password_file " + c.basic_auth->password_file + ": cannot read");
      std::getline(in, co.basic_auth_password);
    }
  }
  if (c.authorization) {
    std::string cred = c.authorization->credentials;
    if (!c.authorization->credentials_file.empty()) {
      std::ifstream in(c.authorization->credentials_file);
      if (!in)
        return Status::error(c.origin + ": authorization.credentials_file " + c.authorization->credentials_file +
                             ": cannot read");
      std::getline(in, cred);
    }
    if (base::iequals(c.authorization->type, "bearer"))
      co.bearer_token = cred;
    else
      co.headers.emplace_back("Authorization", c.authorization->type + " " + cred);
  }
  co.headers.emplace_back("Content-Encoding", std::string(kContentEncoding));
  co.headers.emplace_back("X-Prometheus-Remote-Write-Version", std::string(kProtocolVersion));
  for (const auto& h : c.headers) co.headers.push_back(h);
  auto client = std::make_shared<net::http::Client>(co);
  return PostFn([client, u = *url](std::string_view body) { return client->post(u, kContentType, body); });
}

}  // namespace llmon::remote
