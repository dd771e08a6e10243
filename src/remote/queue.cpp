#include "remote/queue.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "base/strings.h"
#include "net/http_client.h"
#include "remote/send_policy.h"
#include "remote/write_request.h"
#include "remote/write_request_v2.h"
#include "scrape/http_client_config.h"

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
      reader_(opts_.storage_path),
      tuner_({opts_.config.queue.min_shards, opts_.config.queue.max_shards, opts_.reshard_interval_s}),
      protocol_(opts_.config.protocol) {
  stats_.shards = stats_.shards_desired = tuner_.shards();
  stats_.shards_min = opts_.config.queue.min_shards;
  stats_.shards_max = opts_.config.queue.max_shards;
  stats_.protocol_v2 = opts_.config.protocol == Protocol::kV2;
}

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

bool Queue::stopping() const {
  std::lock_guard lock(mu_);
  return stop_;
}

void Queue::run() {
  log_.info("remote_write queue started", {{"queue", name_},
                                           {"url", opts_.config.url},
                                           {"protocol", protocol_ == Protocol::kV2 ? "2.0" : "1.0"},
                                           {"segment", std::to_string(pos_.segment)},
                                           {"offset", std::to_string(pos_.offset)}});
  for (;;) {
    if (stopping()) return;
    if (!step() && !sleep_ms(opts_.poll_interval_ms)) return;
  }
}

Queue::SentSeries* Queue::sent_series(storage::SeriesRef ref) {
  auto it = relabelled_.find(ref);
  if (it == relabelled_.end()) {
    const model::Labels* l = reader_.labels(ref);
    if (!l) return nullptr;
    std::vector<model::Label> labels = l->pairs();
    for (const auto& ext : opts_.external_labels)
      if (l->get(ext.name).empty()) labels.push_back(ext);
    SentSeries out;
    if (relabel_.process(labels)) {
      std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
      out.labels = std::move(labels);
    }
    it = relabelled_.emplace(ref, std::move(out)).first;
  }
  return &it->second;
}

namespace {

bool is_2xx(int status) {
  return status >= 200 && status < 300;
}

const WriteMetadata* metadata_for(const MetadataIndex* md, const std::vector<model::Label>& labels) {
  if (!md) return nullptr;
  for (const auto& l : labels)
    if (l.name == "__name__") return md->find(l.value);
  return nullptr;
}

}  // namespace

Queue::Sent Queue::deliver(std::span<const SeriesView> series, const std::vector<WriteMetadata>& metadata,
                           size_t samples) {
  {
    std::lock_guard lock(mu_);
    stats_.samples_pending += samples;
  }
  auto done = [&](Sent how, size_t bytes, double seconds) {
    std::lock_guard lock(mu_);
    stats_.samples_pending -= samples;
    if (how == Sent::kAcked) {
      stats_.samples_sent += samples;
      stats_.metadata_sent += metadata.size();
      stats_.bytes_sent += bytes;
      ++stats_.requests_sent;
    } else if (how == Sent::kDropped) {
      stats_.samples_dropped += samples;
    }
    if (how != Sent::kStopping && samples > 0) tuner_.observe_sent(samples, seconds);  // not metadata requests
    return how;
  };
  std::string raw, body;
  std::optional<Protocol> encoded;
  for (int attempt = 1;;) {
    // Metadata-only requests exist in 1.0 alone.
    const Protocol p = metadata.empty() ? protocol_.load() : Protocol::kV1;
    if (encoded != p) {
      if (p == Protocol::kV2)
        encode_write_request_v2(series, raw);
      else
        encode_write_request(series, metadata, raw);
      body = snappy_compress(raw);
      encoded = p;
    }
    const double t0 = base::monotonic_seconds();
    auto r = post_(body, p);
    const double took = base::monotonic_seconds() - t0;
    std::optional<int64_t> retry_after;
    std::string why;
    if (r) {
      if (p == Protocol::kV2) {
        // A 1.x receiver: 415 (spec), 400 before any 2.0 request succeeded
        // (it could not parse the message), or 2xx without the *-Written
        // headers (it decoded an empty 1.0 message): fall back to 1.0.
        const bool written = !r->header(kSamplesWrittenHeader).empty() ||
                             !r->header(kHistogramsWrittenHeader).empty() ||
                             !r->header(kExemplarsWrittenHeader).empty();
        const bool v1_receiver =
            r->status == 415 || (r->status == 400 && !v2_confirmed_.load()) || (is_2xx(r->status) && !written);
        if (v1_receiver) {
          Protocol want = Protocol::kV2;
          if (protocol_.compare_exchange_strong(want, Protocol::kV1)) {
            log_.warn("remote_write: the receiver does not take protocol 2.0; falling back to 1.0",
                      {{"queue", name_},
                       {"status", std::to_string(r->status)},
                       {"written_headers", written ? "yes" : "no"},
                       {"answer", r->body.substr(0, 200)}});
            std::lock_guard lock(mu_);
            ++stats_.protocol_fallbacks;
            stats_.protocol_v2 = false;
          }
          continue;  // re-encoded as 1.0, sent at once
        }
        if (is_2xx(r->status)) {
          v2_confirmed_.store(true);
          const auto n = base::parse_i64(r->header(kSamplesWrittenHeader));
          if (n && *n < static_cast<int64_t>(samples))
            log_.warn("remote_write: the receiver acknowledged fewer samples than sent",
                      {{"queue", name_}, {"sent", std::to_string(samples)}, {"written", std::to_string(*n)}});
        }
      }
      const SendVerdict v = verdict_for_status(r->status, opts_.config.queue.retry_on_http_429);
      if (v == SendVerdict::kAcked) return done(Sent::kAcked, body.size(), took);
      why = "status " + std::to_string(r->status) + ": " + r->body.substr(0, 200);
      if (v == SendVerdict::kDrop) {
        log_.error("remote_write: receiver refused a batch; dropped", {{"queue", name_},
                                                                       {"samples", std::to_string(samples)},
                                                                       {"metadata", std::to_string(metadata.size())},
                                                                       {"err", why}});
        return done(Sent::kDropped, 0, took);
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
    ++attempt;
    if (!sleep_ms(delay)) return done(Sent::kStopping, 0, 0);
  }
}

Queue::Sent Queue::send_sharded(const std::vector<SeriesView>& series, size_t total, uint64_t shards) {
  const size_t per = static_cast<size_t>(opts_.config.queue.max_samples_per_send);
  shards = std::max<uint64_t>(1, std::min<uint64_t>({shards, (total + per - 1) / per, series.size()}));
  // Shard k sends series k, k+shards, ... in requests of at most `per`
  // samples; a series larger than that goes in consecutive requests of the
  // same shard, so its samples stay in order.
  auto run_shard = [&](size_t k) -> Sent {
    std::vector<SeriesView> req;
    size_t n = 0;
    auto flush = [&]() -> Sent {
      if (req.empty()) return Sent::kAcked;
      const Sent s = deliver(req, {}, n);
      req.clear();
      n = 0;
      return s;
    };
    for (size_t i = k; i < series.size(); i += shards) {
      const SeriesView& s = series[i];
      for (size_t off = 0; off < s.samples.size();) {
        if (n == per && flush() == Sent::kStopping) return Sent::kStopping;
        const size_t take = std::min(per - n, s.samples.size() - off);
        req.push_back({s.labels, s.samples.subspan(off, take), s.metadata});
        n += take;
        off += take;
      }
    }
    return flush();
  };
  if (shards == 1) return run_shard(0);
  std::vector<Sent> results(shards, Sent::kAcked);
  std::vector<std::thread> threads;
  for (size_t k = 1; k < shards; ++k) threads.emplace_back([&, k] { results[k] = run_shard(k); });
  results[0] = run_shard(0);
  for (auto& t : threads) t.join();
  Sent out = Sent::kDropped;
  for (Sent s : results) {
    if (s == Sent::kStopping) return Sent::kStopping;
    if (s == Sent::kAcked) out = Sent::kAcked;
  }
  return out;
}

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
  auto flush = [&]() -> bool {
    if (batch.empty()) return true;
    const Sent s = deliver(views_of(batch), {}, n);
    if (s == Sent::kStopping) return false;
    std::lock_guard lock(mu_);
    if (s == Sent::kAcked) stats_.samples_refilled += n;
    batch.clear();
    n = 0;
    return true;
  };
  const MetadataIndex* md = protocol_ == Protocol::kV2 ? metadata_.get() : nullptr;
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
    WriteSeries ws{std::move(labels), {}, nullptr};
    ws.metadata = metadata_for(md, ws.labels);
    for (const auto& p : pts) ws.samples.push_back({p.t_ms, p.v});
    n += ws.samples.size();
    batch.push_back(std::move(ws));
    if (n >= opts_.config.queue.max_samples_per_send && !flush()) return;
  }
  flush();
}

void Queue::refresh_metadata() {
  if (!opts_.metadata || !opts_.config.metadata.send) return;
  const int64_t now = clock_.now_ms();
  // Until the agent knows some (before its first cycle) every step asks again.
  if (metadata_ && !metadata_->all().empty() && now - metadata_refreshed_ms_ < opts_.config.metadata.send_interval_ms)
    return;
  metadata_ = std::make_shared<const MetadataIndex>(opts_.metadata());
  metadata_refreshed_ms_ = now;
  ++metadata_gen_;
}

bool Queue::send_metadata_v1() {
  if (!metadata_ || metadata_->all().empty() || protocol_ != Protocol::kV1) return true;
  const int64_t now = clock_.now_ms();
  if (metadata_sent_ms_ >= 0 && now - metadata_sent_ms_ < opts_.config.metadata.send_interval_ms) return true;
  metadata_sent_ms_ = now;
  const auto& all = metadata_->all();
  const size_t per = static_cast<size_t>(opts_.config.metadata.max_samples_per_send);
  for (size_t i = 0; i < all.size(); i += per) {
    std::vector<WriteMetadata> chunk(all.begin() + static_cast<ptrdiff_t>(i),
                                     all.begin() + static_cast<ptrdiff_t>(std::min(all.size(), i + per)));
    if (deliver({}, chunk, 0) == Sent::kStopping) return false;
  }
  return true;
}

void Queue::throttle(uint64_t samples, double started_s) {
  const double cap = tuner_.catch_up_rate(static_cast<double>(opts_.config.queue.catch_up_factor));
  if (cap <= 0 || samples == 0) return;
  const double wait = static_cast<double>(samples) / cap - (base::monotonic_seconds() - started_s);
  if (wait > 0.001) sleep_ms(static_cast<int64_t>(wait * 1000));
}

bool Queue::flush_pending() {
  // Group by series, keeping each series' samples in WAL order: a counting
  // sort of the samples into one flat buffer, each series a view of its
  // stretch and of its cached labels (no copies).
  uint64_t unknown = 0, relabel_dropped = 0, n = 0;
  int64_t max_t = 0;
  const MetadataIndex* md = protocol_ == Protocol::kV2 ? metadata_.get() : nullptr;
  constexpr uint32_t kSkip = UINT32_MAX;
  const uint64_t step = ++flush_step_;
  views_.clear();
  fill_.clear();
  slot_of_.resize(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) {
    const auto& s = pending_[i];
    max_t = std::max(max_t, s.t_ms);
    SentSeries* e = sent_series(s.ref);
    uint32_t slot = kSkip;
    if (!e) {
      ++unknown;
    } else if (e->labels.empty()) {
      ++relabel_dropped;
    } else {
      if (e->step != step) {
        if (const uint64_t gen = md ? metadata_gen_ : 0; e->metadata_gen != gen) {
          e->metadata = metadata_for(md, e->labels);
          e->metadata_gen = gen;
        }
        e->step = step;
        e->slot = static_cast<uint32_t>(views_.size());
        views_.push_back({&e->labels, {}, e->metadata});
        fill_.push_back(0);
      }
      slot = e->slot;
      ++fill_[slot];
      ++n;
    }
    slot_of_[i] = slot;
  }
  // Offsets, then the samples in order.
  flat_.resize(n);
  uint32_t off = 0;
  for (uint32_t& f : fill_) off += std::exchange(f, off);
  for (size_t i = 0; i < pending_.size(); ++i)
    if (slot_of_[i] != kSkip) flat_[fill_[slot_of_[i]]++] = {pending_[i].t_ms, pending_[i].v};
  off = 0;
  for (size_t k = 0; k < views_.size(); ++k) {
    views_[k].samples = std::span<const WriteSample>(flat_.data() + off, fill_[k] - off);
    off = fill_[k];
  }
  if (unknown && reader_.take_reload_failure()) {
    // The series log could not be read just now: send nothing, retry the
    // same samples at the next poll.
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
  const double started = base::monotonic_seconds();
  if (n > 0 && send_sharded(views_, n, tuner_.shards()) == Sent::kStopping) return false;  // resent after restart
  pos_ = pending_next_;
  pos_.max_sent_ms = std::max(pos_.max_sent_ms, max_t);
  pending_.clear();
  if (Status st = save_position(opts_.position_path, pos_); !st)
    log_.error("remote_write: saving the read position", {{"queue", name_}, {"err", st.message()}});
  {
    std::lock_guard lock(mu_);
    pos_copy_ = pos_;
    stats_.highest_sent_ms = std::max(stats_.highest_sent_ms, max_t);
  }
  if (!caught_up_) throttle(n, started);
  return true;
}

bool Queue::step() {
  refresh_metadata();
  if (opts_.config.metadata.send && !send_metadata_v1()) return false;
  const int64_t now = clock_.now_ms();
  const QueueConfig& qc = opts_.config.queue;
  uint64_t shards = 0;
  {
    std::lock_guard lock(mu_);
    const double delay_s = pos_.max_sent_ms > 0 ? static_cast<double>(now - pos_.max_sent_ms) / 1000.0 : 0;
    shards = tuner_.update(base::monotonic_seconds(), delay_s);
    stats_.shards = shards;
    stats_.shards_desired = tuner_.desired();
  }
  const size_t per = static_cast<size_t>(qc.max_samples_per_send);
  // A step reads what its shards send at once, and at least `capacity`
  // (sent by each shard in consecutive requests): fewer steps, so fewer
  // position saves, when behind.
  const size_t want = std::max<size_t>(per * shards, static_cast<size_t>(qc.capacity));
  if (pending_.empty()) pending_next_ = pos_;
  if (pending_.size() < want) {
    const size_t before = pending_.size();
    auto r = reader_.read(pending_next_, want - before, pending_);
    if (!r) {
      log_.warn("remote_write: reading the WAL", {{"queue", name_}, {"err", r.error()}});
      pending_.erase(pending_.begin() + static_cast<ptrdiff_t>(before), pending_.end());
      return false;
    }
    if (r->rewound)
      log_.warn("remote_write: the WAL segment is shorter than the saved position (power cut?); resending it",
                {{"queue", name_}, {"segment", std::to_string(pending_next_.segment)}});
    if (r->corruptions) {
      log_.error("remote_write: damaged WAL records skipped (counted as dropped)",
                 {{"queue", name_}, {"detail", r->corruption_detail}});
      std::lock_guard lock(mu_);
      stats_.wal_corruptions += r->corruptions;
    }
    if (r->lost_end > r->lost_first) {
      // The store moved these segments into chunks before we sent them:
      // read the same time range back from the store (docs/remote_write.md).
      // Samples read before the gap and not sent yet are in that range too.
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(before));
      int64_t until = now;
      for (const auto& s : pending_) until = std::min(until, s.t_ms);
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
    if (pending_.size() > before) {
      int64_t lo = pending_[before].t_ms, hi = lo;
      uint64_t at_lo = 0;
      for (size_t i = before; i < pending_.size(); ++i) {
        const int64_t t = pending_[i].t_ms;
        if (t < lo) {
          lo = t;
          at_lo = 0;
        }
        at_lo += t == lo;
        hi = std::max(hi, t);
      }
      std::lock_guard lock(mu_);
      tuner_.observe_read(pending_.size() - before, lo, hi, at_lo);
    }
    if (before == 0 && !pending_.empty()) pending_since_ms_ = now;
    pending_next_ = r->next;
    caught_up_ = r->caught_up;
  }
  if (pending_.empty()) {
    // Nothing to send; the position may still move (past damaged records).
    const bool moved = !(pending_next_ == pos_);
    pos_ = pending_next_;
    if (moved) (void)save_position(opts_.position_path, pos_);
    std::lock_guard lock(mu_);
    pos_copy_ = pos_;
    return false;
  }
  // A partial request waits for more samples, up to batch_send_deadline.
  if (pending_.size() < per && caught_up_ && now - pending_since_ms_ < qc.batch_send_deadline_ms) return false;
  return flush_pending();
}

Expected<PostFn> http_post_fn(const RemoteWriteConfig& c) {
  auto url = net::http::parse_url(c.url);
  if (!url) return Status::error(c.origin + ": url \"" + c.url + "\": " + url.error());
  net::http::ClientOptions co;
  co.timeout_ms = static_cast<int>(std::min<int64_t>(c.remote_timeout_ms, 1 << 30));
  co.connect_timeout_ms = std::min(co.timeout_ms, 5000);
  co.max_response_body_bytes = size_t{64} * 1024;
  co.user_agent = "llmon-remote-write";
  // basic_auth / authorization / tls_config as every client block (scrape/http_client_config.h).
  if (Status st = scrape::apply_http_client_config({c.basic_auth, c.authorization, c.tls}, co); !st)
    return Status::error(c.origin + ": " + st.message());
  co.headers.emplace_back("Content-Encoding", std::string(kContentEncoding));
  for (const auto& h : c.headers) co.headers.push_back(h);
  net::http::ClientOptions co2 = co;
  co.headers.emplace_back("X-Prometheus-Remote-Write-Version", std::string(kProtocolVersion));
  co2.headers.emplace_back("X-Prometheus-Remote-Write-Version", std::string(kProtocolVersionV2));
  auto v1 = std::make_shared<net::http::Client>(co);
  auto v2 = std::make_shared<net::http::Client>(co2);
  return PostFn([v1, v2, u = *url](std::string_view body, Protocol p) {
    return p == Protocol::kV2 ? v2->post(u, kContentTypeV2, body) : v1->post(u, kContentType, body);
  });
}

}  // namespace llmon::remote
