// Processor: the rules applied to lines. Each line from a source (a file's
// path, or "kmsg") runs through one Matcher holding every rule's pattern; a
// match counts in the rule's counter and becomes an Event (deduplicated
// within the rule's window, grouped with the lines that follow for a
// multi-line rule). Pure: no I/O, time comes with each call. Not thread-safe.
//
// Events are handed out as they happen: a new event at its first occurrence
// (a multi-line group when it closes); tick() hands out the updates of bursts
// that grew (same id, higher repeat, later time_ms), at most one per burst a
// call, and closes the multi-line groups that timed out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "logwatch/event.h"
#include "logwatch/matcher.h"
#include "logwatch/rule_file.h"

namespace re2 {
class RE2;
}

namespace llmon::logwatch {

// One series of llmon_log_matches_total.
struct CounterKey {
  std::string rule;
  std::string source;
  Severity severity = Severity::kInfo;
  std::vector<std::pair<std::string, std::string>> labels;  // the rule's counter_labels, as matched
  bool operator<(const CounterKey& o) const {
    return std::tie(rule, source, severity, labels) < std::tie(o.rule, o.source, o.severity, o.labels);
  }
};

class Processor {
 public:
  // An error names the rule whose pattern does not compile.
  static Expected<std::unique_ptr<Processor>> build(std::vector<LogRule> rules);
  ~Processor();

  // A source the rules will see: its counters exist from now on at 0 (so
  // increase() sees the first match), for each rule that selects it and has
  // no counter_labels.
  void declare_source(const std::string& source, bool is_kmsg);
  void line(const std::string& source, bool is_kmsg, std::string_view text, int64_t now_ms, std::vector<Event>& out);
  void tick(int64_t now_ms, std::vector<Event>& out);

  const std::map<CounterKey, uint64_t>& counters() const { return counters_; }
  const std::vector<LogRule>& rules() const { return rules_; }
  uint64_t lines() const { return lines_; }
  // Event ids continue after the largest one already stored.
  void set_next_id(uint64_t id) { next_id_ = id; }
  uint64_t next_id() const { return next_id_; }

 private:
  struct Burst;
  struct Group;
  explicit Processor(std::vector<LogRule> rules);
  Event make_event(size_t rule, const std::string& source,
                   const std::vector<std::pair<std::string, std::string>>& groups, std::string_view text,
                   int64_t now_ms);
  void emit(size_t rule, Event ev, int64_t now_ms, std::vector<Event>& out);
  void close_group(const std::string& source, size_t rule, int64_t now_ms, std::vector<Event>& out);

  std::vector<LogRule> rules_;
  std::unique_ptr<Matcher> matcher_;
  std::vector<std::unique_ptr<re2::RE2>> continue_;  // per rule (multi-line rules only)
  std::map<CounterKey, uint64_t> counters_;
  std::map<std::string, std::unique_ptr<Burst>> bursts_;                     // by dedup key
  std::map<std::pair<std::string, size_t>, std::unique_ptr<Group>> groups_;  // by (source, rule)
  std::vector<Match> matches_;
  uint64_t next_id_ = 1;
  uint64_t lines_ = 0;
};

}  // namespace llmon::logwatch
