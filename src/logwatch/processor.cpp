#include "logwatch/processor.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "go/strconv.h"

namespace llmon::logwatch {

struct Processor::Burst {
  Event event;
  int64_t window_end_ms = 0;
  bool dirty = false;
};

struct Processor::Group {
  Event event;
  int64_t started_ms = 0;
};

Processor::Processor(std::vector<LogRule> rules) : rules_(std::move(rules)) {}
Processor::~Processor() = default;

Expected<std::unique_ptr<Processor>> Processor::build(std::vector<LogRule> rules) {
  std::unique_ptr<Processor> p(new Processor(std::move(rules)));
  std::vector<Pattern> patterns;
  for (const LogRule& r : p->rules_) {
    patterns.push_back({r.pattern, r.literal, r.case_insensitive});
    std::unique_ptr<RE2> cont;
    if (r.multiline.enabled) {
      RE2::Options o;
      o.set_log_errors(false);
      o.set_encoding(RE2::Options::EncodingLatin1);
      cont = std::make_unique<RE2>(r.multiline.continue_regex, o);
      if (!cont->ok()) return Status::error(r.origin + ": rule " + r.name + ": multiline.continue: " + cont->error());
    }
    p->continue_.push_back(std::move(cont));
  }
  for (const LogRule& r : p->rules_) {
    for (const LogMetric& m : r.metrics) {
      if (!m.value.empty()) p->parse_errors_.try_emplace(r.name, 0);
      if (p->metric_info_.count(m.name)) continue;
      MetricInfo info{m.kind, m.help, m.labels, m.buckets};
      for (const auto& [k, v] : r.labels) info.labels.push_back(k);
      std::sort(info.labels.begin(), info.labels.end());
      p->metric_info_.emplace(m.name, std::move(info));
    }
  }
  auto m = Matcher::build(std::move(patterns));
  if (!m) return m.status();
  p->matcher_ = std::move(*m);
  return p;
}

void Processor::declare_source(const std::string& source, bool is_kmsg) {
  for (const LogRule& r : rules_) {
    if (!source_selected(r, source, is_kmsg)) continue;
    if (r.counter_labels.empty()) counters_.try_emplace(CounterKey{r.name, source, r.severity, {}}, 0);
  }
}

MetricSeriesKey Processor::series_key(const LogRule& r, const LogMetric& m, const std::string& source,
                                      const std::vector<std::pair<std::string, std::string>>& groups) const {
  MetricSeriesKey key{m.name, source, {}};
  for (const auto& [k, v] : r.labels) key.labels.emplace_back(k, v);
  for (const std::string& name : m.labels) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& kv) { return kv.first == name; });
    key.labels.emplace_back(name, g == groups.end() ? "" : g->second);
  }
  std::sort(key.labels.begin(), key.labels.end());
  return key;
}

void Processor::update_metrics(const LogRule& r, const std::string& source,
                               const std::vector<std::pair<std::string, std::string>>& groups) {
  // First every value of the line; a line with a bad one updates nothing.
  values_.assign(r.metrics.size(), std::nullopt);
  uint64_t bad = 0;
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const LogMetric& m = r.metrics[i];
    if (m.value.empty()) {
      values_[i] = 1;
      continue;
    }
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& kv) { return kv.first == m.value; });
    if (g == groups.end()) continue;  // an optional field the line does not have
    auto parsed = go::parse_float(g->second);
    bool ok = static_cast<bool>(parsed);
    const double v = ok ? *parsed * m.scale : 0;
    if (ok && m.kind == MetricKind::kCounter) ok = std::isfinite(v) && v >= 0;
    if (ok && m.kind == MetricKind::kHistogram) ok = std::isfinite(v);
    if (ok)
      values_[i] = v;
    else
      ++bad;
  }
  ++metric_version_;
  if (bad > 0) {
    parse_errors_[r.name] += bad;
    return;
  }
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    if (!values_[i]) continue;
    const LogMetric& m = r.metrics[i];
    const double v = *values_[i];
    MetricSeries& s = series_[series_key(r, m, source, groups)];
    switch (m.kind) {
      case MetricKind::kGauge:
        s.value = v;
        break;
      case MetricKind::kCounter:
        s.value = m.cumulative ? v : s.value + v;
        break;
      case MetricKind::kHistogram:
        s.bucket.resize(m.buckets.size());
        for (size_t b = 0; b < m.buckets.size(); ++b)
          if (v <= m.buckets[b]) ++s.bucket[b];
        ++s.count;
        s.sum += v;
        break;
    }
  }
}

Event Processor::make_event(size_t rule, const std::string& source,
                            const std::vector<std::pair<std::string, std::string>>& groups, std::string_view text,
                            int64_t now_ms) {
  const LogRule& r = rules_[rule];
  Event ev;
  ev.time_ms = now_ms;
  ev.first_ms = now_ms;
  ev.source = source;
  ev.rule = r.name;
  ev.severity = r.severity;
  ev.labels = r.labels;
  for (const auto& [k, v] : groups) ev.labels[k] = v;
  ev.lines.emplace_back(text);
  return ev;
}

void Processor::emit(size_t rule, Event ev, int64_t now_ms, std::vector<Event>& out) {
  const LogRule& r = rules_[rule];
  if (r.dedup_ms <= 0) {
    ev.id = next_id_++;
    out.push_back(std::move(ev));
    return;
  }
  std::string key = r.name + '\x1f' + ev.source;
  for (const auto& [k, v] : ev.labels) {
    const bool keyed = r.dedup_by.empty() ? r.labels.count(k) == 0 || r.labels.at(k) != v
                                          : std::find(r.dedup_by.begin(), r.dedup_by.end(), k) != r.dedup_by.end();
    if (keyed) key += '\x1f' + k + '=' + v;
  }
  auto it = bursts_.find(key);
  if (it != bursts_.end() && now_ms < it->second->window_end_ms) {
    Burst& b = *it->second;
    ++b.event.repeat;
    b.event.time_ms = now_ms;
    b.dirty = true;
    return;
  }
  auto b = std::make_unique<Burst>();
  ev.id = next_id_++;
  b->event = ev;
  b->window_end_ms = now_ms + r.dedup_ms;
  bursts_[key] = std::move(b);
  out.push_back(std::move(ev));
}

void Processor::close_group(const std::string& source, size_t rule, int64_t now_ms, std::vector<Event>& out) {
  auto it = groups_.find({source, rule});
  if (it == groups_.end()) return;
  Event ev = std::move(it->second->event);
  groups_.erase(it);
  emit(rule, std::move(ev), now_ms, out);
}

void Processor::line(const std::string& source, bool is_kmsg, std::string_view text, int64_t now_ms,
                     std::vector<Event>& out) {
  ++lines_;
  // Open multi-line groups of this source take the line or close before it.
  if (!groups_.empty()) {
    for (auto it = groups_.lower_bound({source, 0}); it != groups_.end() && it->first.first == source;) {
      const size_t rule = it->first.second;
      Group& g = *it->second;
      const Multiline& ml = rules_[rule].multiline;
      const bool more = RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *continue_[rule]);
      ++it;
      if (more && g.event.lines.size() < ml.max_lines) {
        g.event.lines.emplace_back(text);
        continue;
      }
      if (!more && ml.include_end && g.event.lines.size() < ml.max_lines) g.event.lines.emplace_back(text);
      close_group(source, rule, now_ms, out);
    }
  }
  if (matcher_->matches_none(text)) return;
  matcher_->match(text, matches_);
  for (const Match& m : matches_) {
    const LogRule& r = rules_[m.pattern];
    if (!source_selected(r, source, is_kmsg)) continue;
    CounterKey key{r.name, source, r.severity, {}};
    for (const std::string& name : r.counter_labels) {
      auto g = std::find_if(m.groups.begin(), m.groups.end(), [&](const auto& kv) { return kv.first == name; });
      key.labels.emplace_back(name, g == m.groups.end() ? "" : g->second);
    }
    ++counters_[key];
    if (!r.metrics.empty()) update_metrics(r, source, m.groups);
    if (!r.event) continue;
    Event ev = make_event(m.pattern, source, m.groups, text, now_ms);
    if (r.multiline.enabled) {
      close_group(source, m.pattern, now_ms, out);
      auto g = std::make_unique<Group>();
      g->event = std::move(ev);
      g->started_ms = now_ms;
      groups_[{source, m.pattern}] = std::move(g);
    } else {
      emit(m.pattern, std::move(ev), now_ms, out);
    }
  }
}

void Processor::tick(int64_t now_ms, std::vector<Event>& out) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    if (now_ms - it->second->started_ms >= rules_[it->first.second].multiline.timeout_ms) {
      const auto key = it->first;
      close_group(key.first, key.second, now_ms, out);
    }
    it = next;
  }
  for (auto it = bursts_.begin(); it != bursts_.end();) {
    Burst& b = *it->second;
    if (b.dirty) {
      out.push_back(b.event);
      b.dirty = false;
    }
    if (now_ms >= b.window_end_ms)
      it = bursts_.erase(it);
    else
      ++it;
  }
}

}  // namespace llmon::logwatch
