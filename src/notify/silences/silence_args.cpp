// `silence add` arguments (see silence_args.h); behaviour of amtool 0.25's
// cli/silence_add.go, flag syntax of kingpin.
#include "notify/silences/silence_args.h"

#include <optional>

#include "notify/config/notify_config.h"
#include "notify/silences/silence_json.h"

namespace llmon::notify {

Expected<Silence> parse_silence_add_args(const std::vector<std::string>& args, int64_t now_ms,
                                         std::string_view default_author) {
  std::string author(default_author), comment, duration = "1h", start, end;
  bool require_comment = true;
  std::vector<std::string> positional;

  struct ValueFlag {
    std::string_view long_name;
    char short_name;
    std::string* out;
  };
  const ValueFlag value_flags[] = {
      {"author", 'a', &author}, {"comment", 'c', &comment}, {"duration", 'd', &duration},
      {"start", 0, &start},     {"end", 0, &end},
  };

  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (flags_done || a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    if (a == "--") {
      flags_done = true;
      continue;
    }
    if (a[1] == '-') {
      std::string_view body = std::string_view(a).substr(2);
      std::optional<std::string> inline_value;
      if (size_t eq = body.find('='); eq != std::string_view::npos) {
        inline_value = std::string(body.substr(eq + 1));
        body = body.substr(0, eq);
      }
      if (body == "require-comment" || body == "no-require-comment") {
        if (inline_value) {
          if (*inline_value == "true")
            require_comment = body == "require-comment";
          else if (*inline_value == "false")
            require_comment = body != "require-comment";
          else
            return Status::error("--" + std::string(body) + ": expected true or false, got \"" + *inline_value + "\"");
        } else {
          require_comment = body == "require-comment";
        }
        continue;
      }
      const ValueFlag* f = nullptr;
      for (const auto& vf : value_flags)
        if (vf.long_name == body) f = &vf;
      if (!f) return Status::error("unknown long flag '--" + std::string(body) + "'");
      if (inline_value) {
        *f->out = *inline_value;
      } else {
        if (i + 1 >= args.size()) return Status::error("expected argument for flag '--" + std::string(body) + "'");
        *f->out = args[++i];
      }
      continue;
    }
    const ValueFlag* f = nullptr;
    for (const auto& vf : value_flags)
      if (vf.short_name != 0 && vf.short_name == a[1]) f = &vf;
    if (!f) return Status::error(std::string("unknown short flag '-") + a[1] + "'");
    if (a.size() > 2) {
      *f->out = a.substr(2);
    } else {
      if (i + 1 >= args.size()) return Status::error(std::string("expected argument for flag '-") + a[1] + "'");
      *f->out = args[++i];
    }
  }

  if (!positional.empty() && !parse_matcher(positional[0])) positional[0] = "alertname=" + positional[0];
  Silence s;
  for (const auto& p : positional) {
    auto m = parse_matcher(p);
    if (!m) return m.status();
    s.matchers.push_back(std::move(*m));
  }
  if (s.matchers.empty()) return Status::error("no matchers specified");

  if (!start.empty()) {
    auto t = parse_silence_time(start);
    if (!t) return Status::error("--start: " + t.error());
    s.starts_at_ms = *t;
  } else {
    s.starts_at_ms = now_ms;
  }
  if (!end.empty()) {
    auto t = parse_silence_time(end);
    if (!t) return Status::error("--end: " + t.error());
    s.ends_at_ms = *t;
  } else {
    auto d = parse_am_duration_ms(duration);
    if (!d) return Status::error("--duration: " + d.error());
    if (*d == 0) return Status::error("silence duration must be greater than 0");
    s.ends_at_ms = s.starts_at_ms + *d;
  }
  if (s.starts_at_ms > s.ends_at_ms) return Status::error("silence cannot start after it ends");
  if (require_comment && comment.empty()) return Status::error("comment required by config");
  s.created_by = std::move(author);
  s.comment = std::move(comment);
  return s;
}

}  // namespace llmon::notify
