// The push store (push_store.h): Pushgateway 1.5's DiskMetricStore write
// path (checkWriteRequest, processWriteRequest, setPushFailedTimestamp) and
// its merged read view (GetMetricFamilies).
#include "scrape/push_store.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "base/utf8.h"
#include "go/strconv.h"

namespace llmon::scrape {

namespace {

constexpr std::string_view kPushTimeHelp = "Last Unix time when changing this group in the Pushgateway succeeded.";
constexpr std::string_view kPushFailureTimeHelp = "Last Unix time when changing this group in the Pushgateway failed.";
constexpr std::string_view kInvalidPrefix = "pushed metrics are invalid or inconsistent with existing metrics: ";

PushedFamily timestamp_family(std::string_view name, std::string_view help, const GroupingKey& key, int64_t ms) {
  PushedFamily f{std::string(name), std::string(help), PushedType::kGauge, {}};
  PushedMetric m;
  m.value = ms == 0 ? 0.0 : static_cast<double>(ms) / 1000.0;
  f.metrics.push_back(std::move(m));
  apply_grouping_labels(f, key.labels);
  return f;
}

bool is_timestamp_family(std::string_view name) {
  return name == kPushTimeMetric || name == kPushFailureTimeMetric;
}

// The series identity client_golang hashes: family name, label names and values.
std::string identity(std::string_view name, const PushedMetric& m) {
  std::string id(name);
  for (const auto& l : m.labels) {
    id += '\xff';
    id += l.name;
    id += '\xff';
    id += l.value;
  }
  return id;
}

// "<file>:N: msg" from parse_text_families with an empty file name, as
// expfmt words it.
std::string parse_error_text(std::string msg) {
  constexpr std::string_view kNoNewline = " (no final newline)";  // expfmt says no more
  if (msg.size() > kNoNewline.size() &&
      msg.compare(msg.size() - kNoNewline.size(), kNoNewline.size(), kNoNewline) == 0) {
    msg.resize(msg.size() - kNoNewline.size());
  }
  if (msg.size() > 1 && msg[0] == ':') {
    const size_t colon = msg.find(':', 1);
    if (colon != std::string::npos) {
      return "text format parsing error in line " + msg.substr(1, colon - 1) + ":" + msg.substr(colon + 1);
    }
  }
  return "text format parsing error: " + msg;
}

std::string join_errors(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::string out = std::to_string(errors.size()) + " error(s) occurred:";
  for (const auto& e : errors) out += "\n* " + e;
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string encode_grouping_key(const GroupingKey& key) {
  std::string out;
  for (size_t i = 0; i < key.labels.size(); ++i) {
    if (i > 0) out += '\xff';
    out += key.labels[i].name;
    out += '\xff';
    out += key.labels[i].value;
  }
  return out;
}

PushStore::PushStore(const base::Clock& clock) : clock_(clock) {}

Status PushStore::push(const GroupingKey& key, std::string_view body, PushMode mode) {
  auto text = exposition::parse_text_families(body, "");
  if (!text) return Status::error(parse_error_text(text.error()));
  bool timestamps = false;
  for (const auto& f : *text)
    for (const auto& s : f.samples) timestamps = timestamps || s.has_timestamp;
  auto families = pushed_families(std::move(*text));
  if (!families) return Status::error(parse_error_text(families.error()));
  return push_families(key, std::move(*families), mode, timestamps ? "pushed metrics must not have timestamps" : "");
}

Status PushStore::push_families(const GroupingKey& key, std::vector<PushedFamily> families, PushMode mode,
                                std::string_view refusal) {
  std::lock_guard lock(mu_);
  const int64_t now = clock_.now_ms();
  if (!refusal.empty()) {
    mark_failure(key, now);
    return Status::error(std::string(kInvalidPrefix) + std::string(refusal));
  }
  const std::string k = encode_grouping_key(key);
  PushGroup next;
  if (auto it = groups_.find(k); it != groups_.end()) {
    if (mode == PushMode::kReplaceGroup) {
      next.key = it->second.key;
      for (const auto& [name, st] : it->second.families)
        if (is_timestamp_family(name)) next.families.emplace(name, st);
    } else {
      next = it->second;
    }
  } else {
    next.key = key;
  }
  const bool had_failure_time = next.families.count(kPushFailureTimeMetric) > 0;
  for (auto& f : families) {
    apply_grouping_labels(f, key.labels);
    std::string name = f.name;
    next.families[name] = PushGroup::Stored{std::move(f), now};
  }
  next.families[std::string(kPushTimeMetric)] =
      PushGroup::Stored{timestamp_family(kPushTimeMetric, kPushTimeHelp, key, now), now};
  if (!had_failure_time) {
    next.families[std::string(kPushFailureTimeMetric)] =
        PushGroup::Stored{timestamp_family(kPushFailureTimeMetric, kPushFailureTimeHelp, key, 0), now};
  }
  if (auto errors = check(next, k); !errors.empty()) {
    mark_failure(key, now);
    return Status::error(std::string(kInvalidPrefix) + join_errors(errors));
  }
  put_group(k, std::move(next));
  ++generation_;
  return Status::ok();
}

void PushStore::put_group(const std::string& key, PushGroup g) {
  auto it = groups_.find(key);
  if (it != groups_.end()) {
    index_remove(it->second);
    it->second = std::move(g);
  } else {
    it = groups_.emplace(key, std::move(g)).first;
  }
  index_add(it->second);
}

void PushStore::index_add(const PushGroup& g) {
  for (const auto& [name, st] : g.families) {
    index_.families[name][static_cast<size_t>(st.family.type)]++;
    for (const auto& m : st.family.metrics) {
      if (++index_.series[identity(name, m)] == 2) ++index_.shared_series;
    }
  }
}

void PushStore::index_remove(const PushGroup& g) {
  for (const auto& [name, st] : g.families) {
    auto f = index_.families.find(name);
    if (f != index_.families.end()) {
      f->second[static_cast<size_t>(st.family.type)]--;
      if (f->second == std::array<uint32_t, 5>{}) index_.families.erase(f);
    }
    for (const auto& m : st.family.metrics) {
      auto it = index_.series.find(identity(name, m));
      if (it == index_.series.end()) continue;
      if (it->second-- == 2) --index_.shared_series;
      if (it->second == 0) index_.series.erase(it);
    }
  }
}

void PushStore::mark_failure(const GroupingKey& key, int64_t now_ms) {
  const std::string k = encode_grouping_key(key);
  auto it = groups_.find(k);
  if (it == groups_.end()) {
    PushGroup g;
    g.key = key;
    g.families[std::string(kPushFailureTimeMetric)] =
        PushGroup::Stored{timestamp_family(kPushFailureTimeMetric, kPushFailureTimeHelp, key, now_ms), now_ms};
    g.families[std::string(kPushTimeMetric)] =
        PushGroup::Stored{timestamp_family(kPushTimeMetric, kPushTimeHelp, key, 0), now_ms};
    // Pushgateway creates the group regardless; a group whose push-time
    // series another group already has would make every later exposition
    // inconsistent, so such a group is not created (docs/scrape.md).
    if (!check(g, k).empty()) return;
    put_group(k, std::move(g));
  } else {
    PushGroup g = it->second;
    g.families[std::string(kPushFailureTimeMetric)] =
        PushGroup::Stored{timestamp_family(kPushFailureTimeMetric, kPushFailureTimeHelp, key, now_ms), now_ms};
    if (!g.families.count(kPushTimeMetric)) {
      g.families[std::string(kPushTimeMetric)] =
          PushGroup::Stored{timestamp_family(kPushTimeMetric, kPushTimeHelp, key, 0), now_ms};
    }
    put_group(k, std::move(g));
  }
  ++generation_;
}

// client_golang's Gatherer checks of the store with `next` in place of the
// group `key`, reported for next's families only. "Others" are the index
// less what the current group `key` holds.
std::vector<std::string> PushStore::check(const PushGroup& next, const std::string& key) const {
  std::unordered_set<std::string> old_ids;
  std::map<std::string, PushedType, std::less<>> old_types;
  if (auto it = groups_.find(key); it != groups_.end()) {
    for (const auto& [name, st] : it->second.families) {
      old_types.emplace(name, st.family.type);
      for (const auto& m : st.family.metrics) old_ids.insert(identity(name, m));
    }
  }
  // The type other groups give `name` (the first type held), if any.
  auto other_type = [&](std::string_view name, PushedType* t) {
    auto it = index_.families.find(std::string(name));
    if (it == index_.families.end()) return false;
    auto old = old_types.find(name);
    for (size_t i = 0; i < it->second.size(); ++i) {
      uint32_t n = it->second[i];
      if (old != old_types.end() && static_cast<size_t>(old->second) == i) --n;
      if (n > 0) {
        *t = static_cast<PushedType>(i);
        return true;
      }
    }
    return false;
  };
  auto held_by_others = [&](const std::string& id) {
    auto it = index_.series.find(id);
    const uint32_t n = it == index_.series.end() ? 0 : it->second;
    return n > (old_ids.count(id) ? 1u : 0u);
  };
  // Any family called `name` other than `self`, in another group or in next.
  auto type_of = [&](const std::string& self, std::string_view name, PushedType* t) {
    if (name == self) return false;
    if (other_type(name, t)) return true;
    auto it = next.families.find(name);
    if (it == next.families.end()) return false;
    *t = it->second.family.type;
    return true;
  };

  std::vector<std::string> errors;
  std::unordered_set<std::string> own;
  for (const auto& [name, st] : next.families) {
    const PushedFamily& f = st.family;
    // checkSuffixCollisions, once per family.
    std::string collision;
    PushedType t{};
    for (std::string_view suffix : {"_count", "_sum", "_bucket"}) {
      if (!ends_with(name, suffix)) continue;
      const std::string base = name.substr(0, name.size() - suffix.size());
      if (type_of(name, base, &t)) {
        if (t == PushedType::kSummary && suffix != "_bucket") {
          collision = "collected metric named " + go::quote(name) +
                      " collides with previously collected summary named " + go::quote(base);
        } else if (t == PushedType::kHistogram) {
          collision = "collected metric named " + go::quote(name) +
                      " collides with previously collected histogram named " + go::quote(base);
        }
      }
      break;
    }
    if (collision.empty() && (f.type == PushedType::kSummary || f.type == PushedType::kHistogram)) {
      for (std::string_view suffix : {"_count", "_sum"}) {
        if (collision.empty() && type_of(name, name + std::string(suffix), &t)) {
          collision = "collected histogram or summary named " + go::quote(name) +
                      " collides with previously collected metric named " + go::quote(name + std::string(suffix));
        }
      }
      if (collision.empty() && f.type == PushedType::kHistogram && type_of(name, name + "_bucket", &t)) {
        collision = "collected histogram named " + go::quote(name) +
                    " collides with previously collected metric named " + go::quote(name + "_bucket");
      }
    }
    if (!collision.empty()) {
      errors.push_back(std::move(collision));
      continue;
    }
    // checkMetricConsistency, per metric.
    PushedType other{};
    const bool type_clash = other_type(name, &other) && other != f.type;
    auto prefix = [&](const PushedMetric& m) {
      return "collected metric " + go::quote(name) + " " + describe_metric(f, m);
    };
    for (const auto& m : f.metrics) {
      if (type_clash) {
        errors.push_back(prefix(m) + " is not a " + std::string(dto_type_name(other)));
        continue;
      }
      auto bad = std::find_if(m.labels.begin(), m.labels.end(),
                              [](const model::Label& l) { return !base::is_valid_utf8(l.value); });
      if (bad != m.labels.end()) {
        errors.push_back(prefix(m) + " has a label named " + go::quote(bad->name) +
                         " whose value is not utf8: " + go::quote(bad->value));
        continue;
      }
      std::string id = identity(name, m);
      if (held_by_others(id) || !own.insert(std::move(id)).second) {
        errors.push_back(prefix(m) + " was collected before with the same name and label values");
      }
    }
  }
  return errors;
}

void PushStore::remove(const GroupingKey& key) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(encode_grouping_key(key));
  if (it == groups_.end()) return;
  index_remove(it->second);
  groups_.erase(it);
  ++generation_;
}

void PushStore::wipe() {
  std::lock_guard lock(mu_);
  groups_.clear();
  index_ = Index{};
  ++generation_;
}

std::vector<PushedFamily> PushStore::families() const {
  std::lock_guard lock(mu_);
  std::map<std::string, PushedFamily, std::less<>> merged;
  for (const auto& [k, g] : groups_) {
    for (const auto& [name, st] : g.families) {
      auto [it, fresh] = merged.try_emplace(name, PushedFamily{name, st.family.help, st.family.type, {}});
      if (!fresh && it->second.type != st.family.type) continue;  // cannot be consistent: left out
      it->second.metrics.insert(it->second.metrics.end(), st.family.metrics.begin(), st.family.metrics.end());
    }
  }
  std::vector<PushedFamily> out;
  out.reserve(merged.size());
  for (auto& [name, f] : merged) {
    // A series twice (only a persisted file can hold that): the first stays.
    if (index_.shared_series > 0) {
      std::unordered_set<std::string> seen;
      std::erase_if(f.metrics, [&](const PushedMetric& m) { return !seen.insert(identity(name, m)).second; });
    }
    std::stable_sort(f.metrics.begin(), f.metrics.end(), metric_less);
    if (!f.metrics.empty()) out.push_back(std::move(f));
  }
  return out;
}

std::vector<PushGroup> PushStore::groups() const {
  std::lock_guard lock(mu_);
  std::vector<PushGroup> out;
  out.reserve(groups_.size());
  for (const auto& [k, g] : groups_) out.push_back(g);
  return out;
}

size_t PushStore::group_count() const {
  std::lock_guard lock(mu_);
  return groups_.size();
}

uint64_t PushStore::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

}  // namespace llmon::scrape
