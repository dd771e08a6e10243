// Silences (see silences.h); semantics from Alertmanager 0.25 silence/silence.go
// (Set, canUpdate, expire, validateSilence, getState) and api/v2 (ordering).
#include "notify/silences/silences.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "notify/routing/nflog_file.h"
#include "notify/silences/silence_json.h"

namespace llmon::notify {

std::string_view silence_state_string(SilenceState s) {
  switch (s) {
    case SilenceState::kPending:
      return "pending";
    case SilenceState::kActive:
      return "active";
    case SilenceState::kExpired:
      return "expired";
  }
  return "expired";
}

SilenceState silence_state(const Silence& s, int64_t now_ms) {
  if (now_ms < s.starts_at_ms) return SilenceState::kPending;
  if (now_ms > s.ends_at_ms) return SilenceState::kExpired;
  return SilenceState::kActive;
}

Status validate_silence(const Silence& s) {
  if (s.matchers.empty()) return Status::error("at least one matcher required");
  bool all_match_empty = true;
  for (size_t i = 0; i < s.matchers.size(); ++i) {
    const Matcher& m = s.matchers[i];
    if (!is_valid_label_name(m.name()))
      return Status::error("invalid label matcher " + std::to_string(i) + ": invalid label name \"" + m.name() + "\"");
    all_match_empty = all_match_empty && m.matches("");
  }
  if (all_match_empty) return Status::error("at least one matcher must not match the empty string");
  if (s.starts_at_ms == 0) return Status::error("invalid zero start timestamp");
  if (s.ends_at_ms == 0) return Status::error("invalid zero end timestamp");
  if (s.ends_at_ms < s.starts_at_ms) return Status::error("end time must not be before start time");
  return Status::ok();
}

std::string uuid_v4(const std::function<uint64_t()>& rng) {
  unsigned char b[16];
  for (int half = 0; half < 2; ++half) {
    uint64_t v = rng();
    for (int k = 0; k < 8; ++k) b[half * 8 + k] = static_cast<unsigned char>(v >> (56 - 8 * k));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0x0F];
  }
  return out;
}

namespace {

bool can_update(const Silence& a, const Silence& b, int64_t now) {
  if (a.matchers != b.matchers) return false;
  switch (silence_state(a, now)) {
    case SilenceState::kActive:
      return b.starts_at_ms == a.starts_at_ms && b.ends_at_ms >= now;
    case SilenceState::kPending:
      return b.starts_at_ms >= now;
    case SilenceState::kExpired:
      return false;
  }
  return false;
}

void expire_in_place(Silence& s, int64_t now) {
  if (silence_state(s, now) == SilenceState::kPending) s.starts_at_ms = now;
  s.ends_at_ms = now;
  s.updated_at_ms = now;
}

Status errno_status(const std::string& what, const std::string& path) {
  return Status::error(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Silences::Silences(const base::Clock& clock, SilencesOptions opts) : clock_(clock), opts_(std::move(opts)) {
  if (!opts_.rng) {
    auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
    opts_.rng = [engine] { return (*engine)(); };
  }
}

std::string Silences::path() const {
  return opts_.dir + "/silences.json";
}

Status Silences::load() {
  std::lock_guard lk(mu_);
  silences_.clear();
  if (opts_.dir.empty()) return Status::ok();
  const std::string p = path();
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::ok();
    return errno_status("cannot stat", p);
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) return errno_status("cannot open", p);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  auto parse = [&](std::vector<Silence>& out) -> Status {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return Status::error("not valid JSON");
    if (!j.is_object() || !j.contains("version") || j["version"] != 1)
      return Status::error("not a version 1 silences file");
    auto it = j.find("silences");
    if (it == j.end() || !it->is_array()) return Status::error("\"silences\" is not an array");
    std::set<std::string> ids;
    for (size_t i = 0; i < it->size(); ++i) {
      auto s = parse_silence_object_json((*it)[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      if (!s) return s.status().with_context("silences[" + std::to_string(i) + "]");
      if (s->id.empty() || !ids.insert(s->id).second)
        return Status::error("silences[" + std::to_string(i) + "]: missing or duplicate id");
      if (Status v = validate_silence(*s); !v) return v.with_context("silences[" + std::to_string(i) + "]");
      out.push_back(std::move(*s));
    }
    return Status::ok();
  };
  std::vector<Silence> loaded;
  if (Status s = parse(loaded); !s) {
    const std::string aside = p + ".corrupt-" + std::to_string(clock_.now_ms());
    std::string moved = ::rename(p.c_str(), aside.c_str()) == 0
                            ? "moved to " + aside
                            : "could not be moved to " + aside + ": " + std::strerror(errno);
    return Status::error(p + ": corrupt silences file (" + s.message() + "); " + moved + "; starting with no silences");
  }
  silences_ = std::move(loaded);
  return Status::ok();
}

Status Silences::persist_locked() const {
  if (opts_.dir.empty()) return Status::ok();
  if (::mkdir(opts_.dir.c_str(), 0755) != 0 && errno != EEXIST) return errno_status("cannot create", opts_.dir);
  const int64_t now = clock_.now_ms();
  std::string data = "{\"version\":1,\"silences\":[";
  for (size_t i = 0; i < silences_.size(); ++i) {
    if (i > 0) data += ',';
    data += render_gettable_silence(silences_[i], now);
  }
  data += "]}\n";
  return write_file_atomic(path(), data, 0644);
}

Expected<std::string> Silences::set(Silence sil) {
  std::lock_guard lk(mu_);
  const int64_t now = clock_.now_ms();
  auto prev = std::find_if(silences_.begin(), silences_.end(), [&](const Silence& s) { return s.id == sil.id; });
  const bool found = !sil.id.empty() && prev != silences_.end();
  if (!sil.id.empty() && !found) return Status::error("silence not found");

  std::vector<Silence> backup = silences_;
  auto rollback = [&](Status s) {
    silences_ = std::move(backup);
    return s;
  };
  if (found && can_update(*prev, sil, now)) {
    sil.updated_at_ms = now;
    if (Status v = validate_silence(sil); !v) return v.with_context("silence invalid");
    *prev = sil;
    if (Status p = persist_locked(); !p) return rollback(p);
    return sil.id;
  }
  Silence fresh = sil;
  if (fresh.starts_at_ms < now) fresh.starts_at_ms = now;
  fresh.updated_at_ms = now;
  if (Status v = validate_silence(fresh); !v) return v.with_context("silence invalid");
  if (found && silence_state(*prev, now) != SilenceState::kExpired) expire_in_place(*prev, now);
  if (silences_.size() >= opts_.max_silences) {
    const int64_t cutoff = now - opts_.retention_ms;
    silences_.erase(
        std::remove_if(silences_.begin(), silences_.end(), [&](const Silence& s) { return s.ends_at_ms < cutoff; }),
        silences_.end());
    if (silences_.size() >= opts_.max_silences)
      return rollback(Status::error("silence limit reached (" + std::to_string(opts_.max_silences) + ")"));
  }
  do {
    fresh.id = uuid_v4(opts_.rng);
  } while (std::any_of(silences_.begin(), silences_.end(), [&](const Silence& s) { return s.id == fresh.id; }));
  silences_.push_back(fresh);
  if (Status p = persist_locked(); !p) return rollback(p);
  return fresh.id;
}

Status Silences::expire(std::string_view id) {
  std::lock_guard lk(mu_);
  const int64_t now = clock_.now_ms();
  auto it = std::find_if(silences_.begin(), silences_.end(), [&](const Silence& s) { return s.id == id; });
  if (it == silences_.end()) return Status::error("silence not found");
  // Idempotent, as in Alertmanager: expiring an expired silence is a no-op.
  if (silence_state(*it, now) == SilenceState::kExpired) return Status::ok();
  Silence before = *it;
  expire_in_place(*it, now);
  if (Status p = persist_locked(); !p) {
    *it = before;
    return p;
  }
  return Status::ok();
}

std::optional<Silence> Silences::get(std::string_view id) const {
  std::lock_guard lk(mu_);
  for (const auto& s : silences_)
    if (s.id == id) return s;
  return std::nullopt;
}

std::vector<Silence> Silences::list() const {
  std::vector<Silence> out;
  {
    std::lock_guard lk(mu_);
    out = silences_;
  }
  const int64_t now = clock_.now_ms();
  auto rank = [](SilenceState s) { return s == SilenceState::kActive ? 0 : s == SilenceState::kPending ? 1 : 2; };
  std::stable_sort(out.begin(), out.end(), [&](const Silence& a, const Silence& b) {
    const SilenceState sa = silence_state(a, now), sb = silence_state(b, now);
    if (sa != sb) return rank(sa) < rank(sb);
    if (sa == SilenceState::kPending && a.starts_at_ms != b.starts_at_ms) return a.starts_at_ms < b.starts_at_ms;
    if (sa == SilenceState::kActive && a.ends_at_ms != b.ends_at_ms) return a.ends_at_ms < b.ends_at_ms;
    if (sa == SilenceState::kExpired && a.ends_at_ms != b.ends_at_ms) return a.ends_at_ms > b.ends_at_ms;
    return a.id < b.id;
  });
  return out;
}

std::vector<Silence> Silences::query(const LabelPairs& labels, int64_t now_ms) const {
  std::vector<Silence> out;
  std::lock_guard lk(mu_);
  for (const auto& s : silences_)
    if (silence_state(s, now_ms) == SilenceState::kActive && matches_all(s.matchers, labels)) out.push_back(s);
  return out;
}

bool Silences::mutes(const LabelPairs& labels, int64_t now_ms) const {
  std::lock_guard lk(mu_);
  for (const auto& s : silences_)
    if (silence_state(s, now_ms) == SilenceState::kActive && matches_all(s.matchers, labels)) return true;
  return false;
}

size_t Silences::gc() {
  std::lock_guard lk(mu_);
  const int64_t cutoff = clock_.now_ms() - opts_.retention_ms;
  const size_t before = silences_.size();
  silences_.erase(
      std::remove_if(silences_.begin(), silences_.end(), [&](const Silence& s) { return s.ends_at_ms < cutoff; }),
      silences_.end());
  const size_t removed = before - silences_.size();
  // A failed write only delays the removal on disk: the next change rewrites the file.
  if (removed > 0) (void)persist_locked();
  return removed;
}

size_t Silences::size() const {
  std::lock_guard lk(mu_);
  return silences_.size();
}

}  // namespace llmon::notify
