#include "scrape/manager.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "base/log.h"
#include "scrape/fetcher.h"
#include "scrape/file_sd.h"
#include "scrape/target_appender.h"

namespace llmon::scrape {
namespace {

// Prometheus's --scrape.timestamp-tolerance default.
constexpr int64_t kTimestampToleranceMs = 2;

struct JobRuntime {
  JobRuntime(const ScrapeConfig& c, Relabeler r, Relabeler m, const std::string& ua)
      : cfg(c), relabel(std::move(r)), metric_relabel(std::move(m)), fetcher(c, ua) {}
  ScrapeConfig cfg;
  Relabeler relabel;
  Relabeler metric_relabel;
  Fetcher fetcher;
};

AppendOptions append_options(const ScrapeConfig& c) {
  AppendOptions o;
  o.honor_labels = c.honor_labels;
  o.honor_timestamps = c.honor_timestamps;
  o.sample_limit = c.sample_limit;
  o.label_limit = c.label_limit;
  o.label_name_length_limit = c.label_name_length_limit;
  o.label_value_length_limit = c.label_value_length_limit;
  return o;
}

}  // namespace

struct Manager::Loop {
  std::shared_ptr<const JobRuntime> rt;
  Target target;
  std::unique_ptr<TargetAppender> appender;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  mutable std::mutex status_mu;
  TargetStatus status;
  uint64_t metadata_generation = 0;  // of the appender's metadata in status (loop thread only)
};

struct Manager::Job {
  std::shared_ptr<const JobRuntime> rt;
  std::unique_ptr<FileSd> file_sd;
  std::vector<std::shared_ptr<Discoverer>> discoverers;
  std::map<uint64_t, std::unique_ptr<Loop>> loops;
  std::vector<TargetStatus> dropped;
  std::vector<TargetStatus> errored;  // targets that failed to build, or all over target_limit
  bool in_file = false;               // configured by apply(), not only by add_discoverer()
};

Manager::Manager(storage::Storage& storage, const base::Clock& clock, ManagerOptions opts)
    : storage_(storage), clock_(clock), opts_(std::move(opts)) {}

Manager::~Manager() {
  stop();
}

Status Manager::apply(const ScrapeFile& file) {
  // Loops to stop, and whether their target is gone (staleness markers).
  std::vector<std::pair<std::unique_ptr<Loop>, bool>> retired;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, job] : jobs_) job->in_file = false;
    for (const ScrapeConfig& c : file.scrape_configs) {
      auto relabel = Relabeler::compile(c.relabel_configs);
      if (!relabel) return Status::error(c.origin + ": relabel_configs: " + relabel.error());
      auto metric = Relabeler::compile(c.metric_relabel_configs);
      if (!metric) return Status::error(c.origin + ": metric_relabel_configs: " + metric.error());
      auto& job = jobs_[c.job_name];
      if (!job) job = std::make_unique<Job>();
      job->rt = std::make_shared<const JobRuntime>(c, std::move(*relabel), std::move(*metric), opts_.user_agent);
      job->file_sd = c.file_sd_configs.empty() ? nullptr : std::make_unique<FileSd>(c.file_sd_configs);
      job->in_file = true;
      // A reload restarts the job's loops with the new settings; their
      // series continue, so no staleness markers.
      for (auto& [hash, loop] : job->loops) retired.emplace_back(std::move(loop), false);
      job->loops.clear();
    }
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      if (!it->second->in_file && it->second->discoverers.empty()) {
        for (auto& [hash, loop] : it->second->loops) retired.emplace_back(std::move(loop), true);
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
    dirty_ = true;
    if (!discovery_.joinable() && !stopping_) discovery_ = std::thread([this] { discovery_thread(); });
  }
  cv_.notify_all();
  for (auto& [loop, gone] : retired) {
    {
      std::lock_guard<std::mutex> l(loop->mu);
      loop->stop = true;
    }
    loop->cv.notify_all();
    if (loop->thread.joinable()) loop->thread.join();
    if (gone) loop->appender->stop(clock_.now_ms());
  }
  return Status::ok();
}

void Manager::add_discoverer(const ScrapeConfig& cfg, std::shared_ptr<Discoverer> d) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& job = jobs_[cfg.job_name];
    if (!job) {
      job = std::make_unique<Job>();
      auto relabel = Relabeler::compile(cfg.relabel_configs);
      auto metric = Relabeler::compile(cfg.metric_relabel_configs);
      job->rt = std::make_shared<const JobRuntime>(cfg, relabel ? std::move(*relabel) : Relabeler(),
                                                   metric ? std::move(*metric) : Relabeler(), opts_.user_agent);
    }
    job->discoverers.push_back(std::move(d));
    dirty_ = true;
    if (!discovery_.joinable() && !stopping_) discovery_ = std::thread([this] { discovery_thread(); });
  }
  cv_.notify_all();
}

void Manager::sync_job(Job& job, int64_t now_ms) {
  const ScrapeConfig& cfg = job.rt->cfg;
  std::vector<TargetGroup> groups = cfg.static_configs;
  if (job.file_sd) {
    auto g = job.file_sd->groups();
    groups.insert(groups.end(), g.begin(), g.end());
  }
  for (const auto& d : job.discoverers) {
    auto g = d->groups();
    groups.insert(groups.end(), g.begin(), g.end());
  }
  std::map<uint64_t, Target> wanted;
  job.dropped.clear();
  job.errored.clear();
  for (const TargetGroup& g : groups) {
    for (const std::string& addr : g.targets) {
      TargetOutcome o = build_target(cfg, job.rt->relabel, g, addr);
      TargetStatus st;
      st.job = cfg.job_name;
      st.discovered_labels = o.target.discovered_labels;
      if (o.kind == TargetOutcome::Kind::kDropped) {
        job.dropped.push_back(std::move(st));
      } else if (o.kind == TargetOutcome::Kind::kError) {
        st.health = "down";
        st.last_error = o.error;
        job.errored.push_back(std::move(st));
      } else {
        wanted.emplace(o.target.hash, std::move(o.target));
      }
    }
  }
  std::vector<std::unique_ptr<Loop>> gone;
  if (cfg.target_limit > 0 && wanted.size() > cfg.target_limit) {
    const std::string err = "target_limit exceeded (number of targets: " + std::to_string(wanted.size()) +
                            ", limit: " + std::to_string(cfg.target_limit) + ")";
    for (auto& [hash, t] : wanted) {
      TargetStatus st;
      st.job = cfg.job_name;
      st.scrape_url = t.scrape_url;
      st.labels = t.labels;
      st.discovered_labels = t.discovered_labels;
      st.health = "down";
      st.last_error = err;
      job.errored.push_back(std::move(st));
    }
    wanted.clear();
  }
  for (auto it = job.loops.begin(); it != job.loops.end();) {
    if (wanted.count(it->first) == 0) {
      gone.push_back(std::move(it->second));
      it = job.loops.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [hash, t] : wanted) {
    if (job.loops.count(hash) != 0) continue;
    auto loop = std::make_unique<Loop>();
    loop->rt = job.rt;
    loop->target = std::move(t);
    loop->appender =
        std::make_unique<TargetAppender>(storage_, loop->target.labels, append_options(cfg), &job.rt->metric_relabel);
    loop->status.job = cfg.job_name;
    loop->status.scrape_url = loop->target.scrape_url;
    loop->status.labels = loop->target.labels;
    loop->status.discovered_labels = loop->target.discovered_labels;
    loop->status.interval_ms = loop->target.interval_ms;
    loop->status.timeout_ms = loop->target.timeout_ms;
    Loop* raw = loop.get();
    loop->thread = std::thread([this, raw] { run_loop(raw); });
    job.loops.emplace(hash, std::move(loop));
  }
  // Stopped outside the scrape path: a loop mid-scrape finishes it first.
  for (auto& loop : gone) {
    {
      std::lock_guard<std::mutex> l(loop->mu);
      loop->stop = true;
    }
    loop->cv.notify_all();
    if (loop->thread.joinable()) loop->thread.join();
    loop->appender->stop(now_ms);
  }
}

void Manager::discovery_thread() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const int64_t now = clock_.now_ms();
    // Discoverers refresh outside the lock (a probe may take its timeout).
    std::vector<std::pair<std::string, std::shared_ptr<Discoverer>>> ds;
    for (auto& [name, job] : jobs_)
      for (const auto& d : job->discoverers) ds.emplace_back(name, d);
    lock.unlock();
    std::set<std::string> changed_jobs;
    for (auto& [name, d] : ds)
      if (d->refresh(now)) changed_jobs.insert(name);
    lock.lock();
    for (auto& [name, job] : jobs_) {
      bool changed = dirty_ || changed_jobs.count(name) != 0;
      if (job->file_sd) changed = job->file_sd->refresh(now) || changed;
      if (changed) sync_job(*job, now);
    }
    dirty_ = false;
    cv_.wait_for(lock, std::chrono::milliseconds(opts_.discovery_poll_ms), [this] { return stopping_ || dirty_; });
  }
}

void Manager::run_loop(Loop* loop) {
  const Target& t = loop->target;
  const int64_t interval = std::max<int64_t>(1, t.interval_ms);
  const int64_t offset = static_cast<int64_t>((t.hash ^ opts_.seed) % static_cast<uint64_t>(interval));
  int64_t now = clock_.now_ms();
  int64_t next = now - (now % interval) + offset;
  if (next < now) next += interval;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(loop->mu);
      for (;;) {
        if (loop->stop) return;
        const int64_t wait = next - clock_.now_ms();
        if (wait <= 0) break;
        loop->cv.wait_for(l, std::chrono::milliseconds(wait));
      }
    }
    const int64_t start = clock_.now_ms();
    const int64_t ts = std::abs(start - next) <= kTimestampToleranceMs ? next : start;
    const double m0 = base::monotonic_seconds();
    auto page = loop->rt->fetcher.fetch(t.scrape_url, t.timeout_ms);
    const double duration = base::monotonic_seconds() - m0;
    ScrapeResult r;
    if (page) {
      r = loop->appender->append(page->body, page->content_type, ts, duration, nullptr);
    } else {
      const std::string err = page.error();
      r = loop->appender->append({}, {}, ts, duration, &err);
    }
    {
      std::lock_guard<std::mutex> l(loop->status_mu);
      loop->status.health = r.up ? "up" : "down";
      loop->status.last_error = r.error;
      loop->status.last_scrape_ms = ts;
      loop->status.last_duration_s = duration;
      loop->status.last_samples = r.samples_scraped;
      if (r.up && loop->metadata_generation != loop->appender->metadata_generation()) {
        loop->status.metadata = loop->appender->metadata();
        loop->metadata_generation = loop->appender->metadata_generation();
      }
    }
    next += interval;
    now = clock_.now_ms();
    if (next <= now) next += ((now - next) / interval + 1) * interval;  // missed slots are skipped
  }
}

ManagerStatus Manager::status(bool with_metadata) const {
  ManagerStatus out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, job] : jobs_) {
    for (const auto& [hash, loop] : job->loops) {
      std::lock_guard<std::mutex> l(loop->status_mu);
      if (with_metadata) {
        out.active.push_back(loop->status);
        continue;
      }
      const TargetStatus& s = loop->status;
      TargetStatus& t = out.active.emplace_back();
      t.job = s.job;
      t.scrape_url = s.scrape_url;
      t.labels = s.labels;
      t.discovered_labels = s.discovered_labels;
      t.health = s.health;
      t.last_error = s.last_error;
      t.last_scrape_ms = s.last_scrape_ms;
      t.last_duration_s = s.last_duration_s;
      t.interval_ms = s.interval_ms;
      t.timeout_ms = s.timeout_ms;
      t.last_samples = s.last_samples;
    }
    out.active.insert(out.active.end(), job->errored.begin(), job->errored.end());
    out.dropped.insert(out.dropped.end(), job->dropped.begin(), job->dropped.end());
    if (job->file_sd)
      for (auto& e : job->file_sd->errors()) out.discovery_errors.push_back(name + ": " + e);
    for (const auto& d : job->discoverers) {
      for (auto& e : d->errors()) out.discovery_errors.push_back(name + ": " + e);
      for (auto& e : d->notes()) out.discovery_notes.push_back(name + ": " + e);
    }
  }
  return out;
}

void Manager::stop() {
  std::map<std::string, std::unique_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !discovery_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (discovery_.joinable()) discovery_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs.swap(jobs_);
  }
  for (auto& [name, job] : jobs)
    for (auto& [hash, loop] : job->loops) {
      std::lock_guard<std::mutex> l(loop->mu);
      loop->stop = true;
      loop->cv.notify_all();
    }
  for (auto& [name, job] : jobs)
    for (auto& [hash, loop] : job->loops)
      if (loop->thread.joinable()) loop->thread.join();
}

}  // namespace llmon::scrape
