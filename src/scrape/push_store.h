// A Pushgateway-compatible push store (Prometheus Pushgateway 1.5 semantics,
// docs/scrape.md "Push store"): groups of metric families keyed by their
// grouping labels (push_path.h), written by PUT (replace the group), POST
// (replace the families pushed) and DELETE (drop the group), read back as one
// merged set of families for a /metrics-like page or a Snapshot. Not HTTP:
// the caller routes requests (is_push_path / parse_push_path), answers 200
// for a push, 202 for a delete and 400 with the returned message on error,
// and undoes a gzip Content-Encoding before handing the body over.
//
// What a push does, as Pushgateway does it:
//   * the body is the text format (parse_text_families); a parse error is
//     refused and changes nothing;
//   * a sample with a timestamp refuses the whole push ("pushed metrics must
//     not have timestamps");
//   * every pushed metric gets the grouping labels (overriding a pushed value
//     of the same label) and instance="" when it has no instance label;
//   * the group after the write is checked against the other groups as
//     client_golang's Gatherer would: the same family name with another type,
//     a series (name and labels) present twice, a histogram/summary colliding
//     with a family named like its _count/_sum/_bucket, an invalid UTF-8
//     grouping value; any of these refuses the push;
//   * a refused push (timestamps, check) sets the group's
//     push_failure_time_seconds to now (creating the group, push_time_seconds
//     0, when it did not exist); an accepted one replaces the group (PUT) or
//     the families pushed (POST) and sets push_time_seconds to now, adding a
//     push_failure_time_seconds of 0 when the group had none. An empty PUT
//     body empties the group but keeps it (with its push times).
// Deliberate differences (docs/scrape.md): only problems that involve the
// pushed group are reported (Pushgateway reports every inconsistency in the
// store, so one bad state refuses all later pushes), a refused push creates
// no group whose push-time series would duplicate another group's, messages
// list errors in a fixed order (Pushgateway's follows Go map order), help
// and type of a family pushed by several groups come from the first group in
// grouping-key order, and Pushgateway's own metrics (go_*, pushgateway_*)
// are not part of the check.
//
// Time comes from the injected Clock (push times are its now_ms() / 1000).
// Cost: a push is checked against an index of every series and family name
// the store holds, so it costs the size of the pushed group, not of the
// store (bench/push_store_bench.cpp).
// Thread-safe: every method locks one mutex; readers get copies.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "scrape/push_family.h"
#include "scrape/push_path.h"

namespace llmon::scrape {

enum class PushMode {
  kReplaceGroup,     // PUT
  kReplaceFamilies,  // POST
};

inline constexpr std::string_view kPushTimeMetric = "push_time_seconds";
inline constexpr std::string_view kPushFailureTimeMetric = "push_failure_time_seconds";

// One group as stored: its key and its families by name (the two push-time
// families included), each with the time it was last pushed.
struct PushGroup {
  GroupingKey key;
  struct Stored {
    PushedFamily family;
    int64_t pushed_ms = 0;
  };
  std::map<std::string, Stored, std::less<>> families;
};

class PushStore {
 public:
  explicit PushStore(const base::Clock& clock);

  // A PUT or POST of a text-format body. The error is the whole 400 text,
  // e.g. "pushed metrics are invalid or inconsistent with existing metrics:
  // pushed metrics must not have timestamps" or "text format parsing error in
  // line 1: ...".
  Status push(const GroupingKey& key, std::string_view body, PushMode mode);
  // The same with families already read (their labels not yet grouped), for
  // other body formats (push_protobuf.h). A non-empty `refusal` (e.g.
  // "pushed metrics must not have timestamps") refuses the push as a failed
  // check does: push_failure_time_seconds is set, the error is the usual
  // prefix and the refusal.
  Status push_families(const GroupingKey& key, std::vector<PushedFamily> families, PushMode mode,
                       std::string_view refusal = "");
  // DELETE: drops the group (nothing when there is none).
  void remove(const GroupingKey& key);
  // Pushgateway's admin wipe: drops every group.
  void wipe();

  // The merged families of all groups, sorted by name, metrics in
  // client_golang's order (metric_less): what Pushgateway's /metrics shows
  // of pushed metrics. write_push_page / add_to_snapshot take it.
  std::vector<PushedFamily> families() const;
  // Every group, in grouping-key order (for an API like Pushgateway's
  // /api/v1/metrics).
  std::vector<PushGroup> groups() const;
  size_t group_count() const;
  // Grows by one on every change: a caller persisting on an interval saves
  // when it moved.
  uint64_t generation() const;

  // Pushgateway's --persistence.file, in our own JSON format (docs/scrape.md
  // "Persistence file"): save() replaces the file atomically
  // (base/atomic_file.h); load() replaces the store's contents with the
  // file's, and a missing file is an empty store. Errors name the file.
  Status save(const std::string& path) const;
  Status load(const std::string& path);

 private:
  // Every series identity (family name, label names and values) and family
  // name of groups_, with how many groups hold it.
  struct Index {
    std::unordered_map<std::string, uint32_t> series;
    std::unordered_map<std::string, std::array<uint32_t, 5>> families;  // by PushedType
    size_t shared_series = 0;                                           // identities more than one group holds
  };
  void mark_failure(const GroupingKey& key, int64_t now_ms);
  std::vector<std::string> check(const PushGroup& next, const std::string& key) const;
  void put_group(const std::string& key, PushGroup g);  // groups_ and index_ together
  void index_add(const PushGroup& g);
  void index_remove(const PushGroup& g);

  const base::Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, PushGroup> groups_;  // by encoded grouping key
  Index index_;
  uint64_t generation_ = 0;
};

// The group's key as Pushgateway's groupingKeyFor encodes it (names and
// values joined by 0xff, names sorted): the order groups are kept in.
std::string encode_grouping_key(const GroupingKey& key);

}  // namespace llmon::scrape
