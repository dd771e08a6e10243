// Silences as Alertmanager's silence/silence.go (0.25): a silence mutes the
// alerts all of whose labels its matchers match while it is active
// (startsAt <= now <= endsAt; before: pending, after: expired). set() creates a
// silence (new uuid v4 id from the injected RNG; a start in the past becomes
// now) or updates one in place when Alertmanager would (same matchers; an
// active one keeps its start and does not end in the past; a pending one does
// not start in the past); otherwise the old one is expired and a new id
// issued. expire() ends an active silence now (a pending one starts and ends
// now; an expired one is left as it is). Expired silences are dropped `retention` after they end (120h).
//
// Persistence: when a directory is given, every change is written to
// DIR/silences.json atomically (temp file, fsync, rename, fsync of the
// directory) before it takes effect; a change that cannot be written is
// rolled back and reported. The file is JSON: {"version":1,"silences":[...]}
// with each silence in API v2's gettableSilence shape (silence_json.h) minus
// the status. A file that cannot be read or parsed is renamed to
// silences.json.corrupt-<ms> and reported by load(); start-up continues
// with no silences. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "notify/alert.h"
#include "notify/routing/matchers.h"

namespace llmon::notify {

enum class SilenceState { kPending, kActive, kExpired };
std::string_view silence_state_string(SilenceState s);  // "pending", "active", "expired"

struct Silence {
  std::string id;
  Matchers matchers;
  int64_t starts_at_ms = 0;
  int64_t ends_at_ms = 0;
  int64_t updated_at_ms = 0;
  std::string created_by;
  std::string comment;
};

SilenceState silence_state(const Silence& s, int64_t now_ms);
// Alertmanager's validateSilence for a new or updated silence (id not checked):
// at least one matcher, valid label names, not all matchers matching "",
// start and end set, end not before start.
Status validate_silence(const Silence& s);
// A random (version 4) UUID in its 36-character form from two 64-bit draws.
std::string uuid_v4(const std::function<uint64_t()>& rng);

struct SilencesOptions {
  std::string dir{};  // empty: in memory only
  int64_t retention_ms = 120 * 3'600'000LL;
  size_t max_silences = 10'000;     // stored, expired ones included
  std::function<uint64_t()> rng{};  // empty: seeded from std::random_device
};

class Silences {
 public:
  Silences(const base::Clock& clock, SilencesOptions opts);

  // Reads DIR/silences.json (absent: no silences). On a corrupt file the
  // returned status says what was wrong and where the file was moved; the
  // store is then empty and usable.
  Status load();

  // Creates or updates (see above); returns the silence's id. Errors (in
  // Alertmanager's words): "silence not found" for an unknown id, "silence
  // invalid: ..." from validation, "silence limit reached", persistence failures.
  Expected<std::string> set(Silence s);
  // Errors: "silence not found", persistence failures.
  Status expire(std::string_view id);
  std::optional<Silence> get(std::string_view id) const;
  // All stored silences in Alertmanager's API order: active (by end), then
  // pending (by start), then expired (latest end first).
  std::vector<Silence> list() const;
  // Active silences whose matchers match the labels at now_ms.
  std::vector<Silence> query(const LabelPairs& labels, int64_t now_ms) const;
  bool mutes(const LabelPairs& labels, int64_t now_ms) const;
  // Drops silences expired longer than the retention; returns how many.
  size_t gc();
  size_t size() const;

 private:
  Status persist_locked() const;
  std::string path() const;

  const base::Clock& clock_;
  SilencesOptions opts_;
  mutable std::mutex mu_;
  std::vector<Silence> silences_;
};

}  // namespace llmon::notify
