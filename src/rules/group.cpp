// Rule group evaluation (Prometheus 2.42 rules/manager.go: Group.Eval,
// RestoreForState, CopyState, Equals, EvalTimestamp).
#include "rules/group.h"

#include <cstring>
#include <deque>

#include "rules/alerting_rule.h"
#include "rules/recording_rule.h"

namespace llmon::rules {

// ---- xxhash64 (the XXH64 algorithm, as github.com/cespare/xxhash computes it) ----

namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ull;

uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}
uint64_t read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // little-endian hosts only (x86-64, aarch64)
  return v;
}
uint32_t read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t round64(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = rotl(acc, 31);
  return acc * kP1;
}
uint64_t merge_round(uint64_t acc, uint64_t val) {
  acc ^= round64(0, val);
  return acc * kP1 + kP4;
}

}  // namespace

uint64_t xxhash64(std::string_view data, uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  const unsigned char* end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    const unsigned char* limit = end - 32;
    do {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge_round(h, v1);
    h = merge_round(h, v2);
    h = merge_round(h, v3);
    h = merge_round(h, v4);
  } else {
    h = seed + kP5;
  }
  h += n;
  for (; p + 8 <= end; p += 8) {
    h ^= round64(0, read64(p));
    h = rotl(h, 27) * kP1 + kP4;
  }
  if (p + 4 <= end) {
    h ^= uint64_t{read32(p)} * kP1;
    h = rotl(h, 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= uint64_t{*p} * kP5;
    h = rotl(h, 11) * kP1;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

uint64_t prometheus_labels_hash(const std::vector<std::pair<std::string, std::string>>& sorted_pairs) {
  std::string b;
  for (const auto& [k, v] : sorted_pairs) {
    b += k;
    b += '\xff';
    b += v;
    b += '\xff';
  }
  return xxhash64(b);
}

// ---- Group ----

namespace {

// Prometheus reports the storage's sentinel errors by their short text.
std::string append_error_text(const std::string& msg) {
  for (const char* prefix : {"out of order sample", "duplicate sample for timestamp", "out of bounds"})
    if (msg.rfind(prefix, 0) == 0) return prefix;
  return msg;
}

bool expected_stale_error(const std::string& msg) {
  for (const char* prefix : {"out of order sample", "duplicate sample for timestamp", "out of bounds"})
    if (msg.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

Group::Group(GroupSpec spec, GroupOptions options) : spec_(std::move(spec)), options_(std::move(options)) {
  interval_ms_ = spec_.interval_ms > 0 ? spec_.interval_ms : options_.default_interval_ms;
  query_offset_ms_ = spec_.query_offset_ms ? *spec_.query_offset_ms : options_.default_query_offset_ms;
}

Group::~Group() = default;

Expected<std::unique_ptr<Group>> Group::create(GroupSpec spec, GroupOptions options) {
  const std::string where = spec.file + ": group \"" + spec.name + "\"";
  if (!options.storage || !options.engine || !options.clock)
    return Status::error(where + ": storage, engine and clock are required");
  if (spec.interval_ms <= 0 && options.default_interval_ms <= 0)
    return Status::error(where + ": evaluation interval must be positive");
  for (const auto& r : spec.rules)
    if (!r.parsed) return Status::error(where + ": rule \"" + r.name + "\" has no parsed expression");
  std::unique_ptr<Group> g(new Group(std::move(spec), std::move(options)));
  for (const auto& r : g->spec_.rules) {
    if (r.kind == RuleSpec::Kind::kAlerting) {
      g->rules_.push_back(std::make_unique<AlertingRule>(r, g->spec_.labels, g->options_.restored));
    } else {
      g->rules_.push_back(std::make_unique<RecordingRule>(r, g->spec_.labels));
    }
  }
  g->previous_series_.resize(g->rules_.size());
  g->counters_.rules = g->rules_.size();
  return g;
}

void Group::eval(int64_t ts_ms, const std::function<bool()>& stop) {
  const int64_t started_ms = options_.clock->now_ms();
  const double t0 = base::monotonic_seconds();
  EvalContext ctx;
  ctx.ts_ms = ts_ms;
  ctx.query_offset_ms = query_offset_ms_;
  ctx.engine = options_.engine;
  ctx.limit = spec_.limit;
  ctx.external_labels = &options_.external_labels;
  ctx.external_url = options_.external_url;
  ctx.template_external_url = &options_.template_external_url;
  ctx.logger = options_.logger;

  uint64_t samples = 0;
  bool stopped = false;
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (stop && stop()) {
      stopped = true;
      break;
    }
    eval_rule(i, ctx, samples);
  }
  if (!stopped && !stale_series_.empty()) {
    auto app = options_.storage->appender();
    for (const auto& l : stale_series_) {
      auto r = app->append(0, l, ts_ms - query_offset_ms_, model::stale_nan());
      if (!r && options_.logger && !expected_stale_error(r.error()))
        options_.logger->warn("Adding stale sample for previous configuration failed",
                              {{"sample", l.to_string()}, {"err", r.error()}});
    }
    auto st = app->commit();
    if (!st && options_.logger)
      options_.logger->warn("Stale sample appending for previous configuration failed", {{"err", st.message()}});
    stale_series_.clear();
  }
  const double took = base::monotonic_seconds() - t0;
  std::lock_guard lock(mu_);
  if (!stopped) counters_.last_samples = samples;
  counters_.last_duration_s = took;
  counters_.duration_s_sum += took;
  counters_.last_evaluation_ms = started_ms;
  counters_.last_eval_timestamp_ms = ts_ms;
}

void Group::eval_rule(size_t i, const EvalContext& ctx, uint64_t& samples) {
  Rule& rule = *rules_[i];
  const int64_t started_ms = options_.clock->now_ms();
  const double t0 = base::monotonic_seconds();
  auto finish = [&] { rule.set_evaluation(started_ms, base::monotonic_seconds() - t0); };
  auto fail = [&](const std::string& err) {
    rule.set_health(RuleHealth::kErr, err);
    std::lock_guard lock(mu_);
    ++counters_.evaluation_failures_total;
  };
  {
    std::lock_guard lock(mu_);
    ++counters_.evaluations_total;
  }

  auto vec = rule.eval(ctx);
  if (!vec) {
    fail(vec.error());
    if (options_.logger)
      options_.logger->warn("Evaluating rule failed",
                            {{"group", spec_.name}, {"name", rule.name()}, {"err", vec.error()}});
    finish();
    return;
  }
  rule.set_health(RuleHealth::kOk, "");
  samples += vec->size();

  if (rule.kind() == RuleSpec::Kind::kAlerting) {
    auto& ar = static_cast<AlertingRule&>(rule);
    auto alerts =
        ar.send(ctx.ts_ms, options_.resend_delay_ms, interval_ms_, options_.external_labels, options_.external_url);
    if (!alerts.empty() && options_.notify) options_.notify(std::move(alerts));
  }

  auto app = options_.storage->appender();
  std::set<model::Labels> returned;
  for (const auto& s : *vec) {
    auto r = app->append(0, s.labels, s.t_ms, s.v);
    if (!r) {
      rule.set_health(RuleHealth::kErr, append_error_text(r.error()));
      if (options_.logger)
        options_.logger->warn("Rule evaluation result discarded",
                              {{"name", rule.name()}, {"sample", s.labels.to_string()}, {"err", r.error()}});
      continue;
    }
    returned.insert(s.labels);
  }
  const int64_t stale_ts = ctx.ts_ms - ctx.query_offset_ms;
  for (const auto& l : previous_series_[i]) {
    if (returned.count(l)) continue;
    auto r = app->append(0, l, stale_ts, model::stale_nan());
    // Rejections are expected when another rule writes the series.
    if (!r && options_.logger && !expected_stale_error(r.error()))
      options_.logger->warn("Adding stale sample failed", {{"sample", l.to_string()}, {"err", r.error()}});
  }
  auto st = app->commit();
  if (!st) {
    fail(st.message());
    if (options_.logger)
      options_.logger->warn("Rule sample appending failed", {{"name", rule.name()}, {"err", st.message()}});
  } else {
    previous_series_[i] = std::move(returned);
  }
  finish();
}

void Group::restore_for_state(int64_t now_ms) {
  const int64_t mint = now_ms - options_.outage_tolerance_ms;
  auto q = options_.storage->querier(mint, now_ms);
  if (!q) {
    if (options_.logger) options_.logger->error("Failed to get Querier", {{"err", q.error()}});
    return;
  }
  for (auto& r : rules_) {
    if (r->kind() != RuleSpec::Kind::kAlerting) continue;
    static_cast<AlertingRule&>(*r).restore_for_state(**q, mint, now_ms, options_.for_grace_period_ms, options_.logger);
  }
}

void Group::set_restored(bool restored) {
  for (auto& r : rules_)
    if (r->kind() == RuleSpec::Kind::kAlerting) static_cast<AlertingRule&>(*r).set_restored(restored);
}

bool Group::equals(const Group& o) const {
  if (spec_.name != o.spec_.name || spec_.file != o.spec_.file || interval_ms_ != o.interval_ms_ ||
      spec_.limit != o.spec_.limit || query_offset_ms_ != o.query_offset_ms_ || rules_.size() != o.rules_.size())
    return false;
  auto sorted = [](StringPairs p) {
    std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return p;
  };
  if (sorted(spec_.labels) != sorted(o.spec_.labels)) return false;
  for (size_t i = 0; i < rules_.size(); ++i)
    if (rules_[i]->canonical() != o.rules_[i]->canonical()) return false;
  return true;
}

void Group::copy_state_from(Group& old) {
  {
    GroupCounters c = old.counters();
    std::lock_guard lock(mu_);
    size_t n = counters_.rules;
    counters_ = c;
    counters_.rules = n;
  }
  std::map<std::string, std::deque<size_t>> by_identity;
  for (size_t fi = 0; fi < old.rules_.size(); ++fi) by_identity[old.rules_[fi]->identity()].push_back(fi);
  for (size_t i = 0; i < rules_.size(); ++i) {
    auto it = by_identity.find(rules_[i]->identity());
    if (it == by_identity.end() || it->second.empty()) continue;
    size_t fi = it->second.front();
    it->second.pop_front();
    previous_series_[i] = old.previous_series_[fi];
    if (rules_[i]->kind() == RuleSpec::Kind::kAlerting && old.rules_[fi]->kind() == RuleSpec::Kind::kAlerting)
      static_cast<AlertingRule&>(*rules_[i]).take_alerts_from(static_cast<AlertingRule&>(*old.rules_[fi]));
  }
  // Old rules left unmatched: their series go stale. As in Prometheus, every
  // old rule whose name+labels still has an unmatched instance counts.
  stale_series_ = old.stale_series_;
  for (size_t fi = 0; fi < old.rules_.size(); ++fi) {
    if (by_identity[old.rules_[fi]->identity()].empty()) continue;
    for (const auto& l : old.previous_series_[fi]) stale_series_.push_back(l);
  }
}

void Group::mark_stale(int64_t ts_ms) {
  std::vector<model::Labels> all = std::move(stale_series_);
  stale_series_.clear();
  for (auto& s : previous_series_) {
    for (const auto& l : s) all.push_back(l);
    s.clear();
  }
  if (all.empty()) return;
  auto app = options_.storage->appender();
  for (const auto& l : all) {
    auto r = app->append(0, l, ts_ms, model::stale_nan());
    if (!r && options_.logger && !expected_stale_error(r.error()))
      options_.logger->warn("Adding stale sample for removed group failed",
                            {{"sample", l.to_string()}, {"err", r.error()}});
  }
  auto st = app->commit();
  if (!st && options_.logger) options_.logger->warn("Stale sample appending failed", {{"err", st.message()}});
}

int64_t Group::eval_timestamp(int64_t now_ms) const {
  // In nanoseconds, as Prometheus computes it, then truncated to ms.
  const int64_t interval_ns = interval_ms_ * 1'000'000;
  const uint64_t h = prometheus_labels_hash({{"file", spec_.file}, {"name", spec_.name}});
  const int64_t offset_ns = static_cast<int64_t>(h % static_cast<uint64_t>(interval_ns));
  const int64_t adj = now_ms * 1'000'000 - offset_ns;
  const int64_t base = adj - adj % interval_ns;  // Go's % truncates like C++'s
  const int64_t ts_ns = base + offset_ns;
  return ts_ns >= 0 ? ts_ns / 1'000'000 : -((-ts_ns + 999'999) / 1'000'000);
}

std::vector<AlertSnapshot> Group::alerts_of(size_t index, bool include_resolved) const {
  std::vector<AlertSnapshot> out;
  if (index >= rules_.size() || rules_[index]->kind() != RuleSpec::Kind::kAlerting) return out;
  for (const auto& a : static_cast<const AlertingRule&>(*rules_[index]).alerts(include_resolved)) {
    AlertSnapshot s;
    for (const auto& p : a.labels.pairs()) s.labels.emplace_back(p.name, p.value);
    s.annotations.assign(a.annotations.begin(), a.annotations.end());
    s.state = a.state;
    s.active_at_ms = a.active_at_ms;
    s.value = a.value;
    s.fired_at_ms = a.fired_at_ms;
    s.keep_firing_since_ms = a.keep_firing_since_ms;
    out.push_back(std::move(s));
  }
  return out;
}

GroupSnapshot Group::snapshot() const {
  GroupSnapshot g;
  g.name = spec_.name;
  g.file = spec_.file;
  g.interval_ms = interval_ms_;
  g.limit = spec_.limit;
  g.counters = counters();
  g.last_evaluation_ms = g.counters.last_evaluation_ms;
  g.evaluation_time_s = g.counters.last_duration_s;
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Rule& r = *rules_[i];
    RuleSnapshot s;
    s.kind = r.kind();
    s.name = r.name();
    s.query = r.query();
    s.for_ms = r.spec().for_ms;
    s.keep_firing_for_ms = r.spec().keep_firing_for_ms;
    s.labels = r.labels();
    RuleStatus st = r.status();
    s.health = st.health;
    s.last_error = st.last_error;
    s.last_evaluation_ms = st.last_evaluation_ms;
    s.evaluation_time_s = st.evaluation_time_s;
    if (r.kind() == RuleSpec::Kind::kAlerting) {
      const auto& ar = static_cast<const AlertingRule&>(r);
      s.annotations = r.spec().annotations;
      std::stable_sort(s.annotations.begin(), s.annotations.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      s.alerts = alerts_of(i, false);
      s.state = ar.state();
    }
    g.rules.push_back(std::move(s));
  }
  return g;
}

GroupCounters Group::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

void Group::count_iteration(uint64_t missed) {
  std::lock_guard lock(mu_);
  counters_.iterations_total += 1 + missed;
  counters_.iterations_missed_total += missed;
}

}  // namespace llmon::rules
