// The exec receiver; see exec_action.h. Process handling is in exec_process.h.
#include "notify/senders/exec_action.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "base/utf8.h"
#include "notify/senders/exec_process.h"
#include "notify/senders/webhook.h"

namespace llmon::notify {

namespace {

Expected<std::string> canonical_path(std::string_view path) {
  if (path.empty() || path.front() != '/')
    return Status::error("\"" + std::string(path) + "\" is not an absolute path");
  if (path.find('\0') != std::string_view::npos) return Status::error("path contains a NUL byte");
  char buf[PATH_MAX];
  std::string p(path);
  if (::realpath(p.c_str(), buf) == nullptr) return Status::error(p + ": " + std::strerror(errno));
  return std::string(buf);
}

std::string cut_nul(std::string_view s) {
  return std::string(s.substr(0, s.find('\0')));
}

// For the log: at most `limit` bytes, valid UTF-8, controls but LF as \xNN.
std::string log_excerpt(std::string_view s, size_t limit) {
  bool cut = s.size() > limit;
  std::string v = base::to_valid_utf8(s.substr(0, limit));
  std::string out;
  for (char c : v) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return cut ? out + "...(truncated)" : out;
}

std::string first_line(std::string_view s, size_t limit) {
  size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  s = s.substr(start);
  s = s.substr(0, s.find('\n'));
  return log_excerpt(s, limit);
}

}  // namespace

Expected<ExecAllowList> ExecAllowList::create(const std::vector<std::string>& paths) {
  ExecAllowList list;
  for (const auto& p : paths) {
    auto c = canonical_path(p);
    if (!c) return Status::error("exec allow-list: " + c.error());
    struct stat st {};
    if (::stat(c->c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      return Status::error("exec allow-list: " + p + " is not a regular file");
    if (::access(c->c_str(), X_OK) != 0) return Status::error("exec allow-list: " + p + " is not executable");
    if (std::find(list.canonical_.begin(), list.canonical_.end(), *c) == list.canonical_.end())
      list.canonical_.push_back(*c);
  }
  return list;
}

Expected<std::string> ExecAllowList::check(std::string_view path) const {
  auto c = canonical_path(path);
  if (!c) return Status::error("exec: " + c.error());
  if (std::find(canonical_.begin(), canonical_.end(), *c) == canonical_.end()) {
    std::string what = *c == path ? std::string(path) : std::string(path) + " (resolves to " + *c + ")";
    return Status::error("exec: " + what + " is not in the exec allow-list");
  }
  return *c;
}

Status validate_exec_config(const ExecSenderConfig& cfg, const ExecAllowList& allow) {
  if (cfg.command.empty()) return Status::error("exec: command: missing (a list: program and arguments)");
  if (auto c = allow.check(cfg.command[0]); !c) return c.status();
  for (size_t i = 0; i < cfg.command.size(); ++i)
    if (cfg.command[i].find('\0') != std::string::npos)
      return Status::error("exec: command[" + std::to_string(i) + "]: contains a NUL byte");
  if (cfg.timeout_ms <= 0) return Status::error("exec: timeout must be positive");
  if (cfg.max_concurrent < 1) return Status::error("exec: max_concurrent must be at least 1");
  if (cfg.kill_grace_ms < 0) return Status::error("exec: kill grace period must not be negative");
  return Status::ok();
}

std::string exec_env_name(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  for (char c : name) {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += ((u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_') ? u : '_';
  }
  return out;
}

std::vector<std::string> exec_environment(const Notification& n) {
  std::vector<std::string> env = {
      "PATH=/usr/bin:/bin",
      "LLMON_ALERT_STATUS=" + std::string(n.status()),
      "LLMON_ALERT_COUNT=" + std::to_string(n.alerts.size()),
      "LLMON_RECEIVER=" + cut_nul(n.receiver),
      "LLMON_GROUP_KEY=" + cut_nul(n.group_key),
  };
  if (n.alerts.empty()) return env;
  std::set<std::string> used;
  auto add = [&](std::string_view prefix, const LabelPairs& pairs) {
    for (const auto& [k, v] : pairs) {
      std::string name = exec_env_name(prefix, k);
      if (!used.insert(name).second) continue;
      env.push_back(name + "=" + cut_nul(v));
    }
  };
  add("LLMON_LABEL_", n.alerts[0].labels);
  add("LLMON_ANNOTATION_", n.alerts[0].annotations);
  return env;
}

ExecAuditSink log_audit_sink(base::Logger& logger) {
  return [&logger](const ExecAuditRecord& r) {
    std::string argv = nlohmann::json(r.argv).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string alerts;
    for (const auto& a : r.alert_names) alerts += (alerts.empty() ? "" : ",") + a;
    char dur[32];
    std::snprintf(dur, sizeof dur, "%.3f", r.duration_s);
    std::string exit_code = std::to_string(r.exit_code);
    std::string out = log_excerpt(r.stdout_data, 512), err = log_excerpt(r.stderr_data, 512);
    std::string receiver = log_excerpt(r.receiver, 256), status = log_excerpt(r.status, 512);
    logger.log(r.outcome == DeliveryOutcome::kDelivered ? base::LogLevel::kInfo : base::LogLevel::kWarn, "exec action",
               {{"receiver", receiver},
                {"argv", argv},
                {"alerts", log_excerpt(alerts, 512)},
                {"status", status},
                {"exit_code", exit_code},
                {"duration_s", dur},
                {"stdout", out},
                {"stderr", err}});
  };
}

Expected<std::unique_ptr<ExecSender>> ExecSender::create(ExecSenderConfig cfg, ExecAllowList allow,
                                                         const base::Clock& clock, ExecAuditSink audit) {
  if (Status s = validate_exec_config(cfg, allow); !s) return s;
  if (!audit) return Status::error("exec: no audit sink");
  return std::unique_ptr<ExecSender>(new ExecSender(std::move(cfg), std::move(allow), clock, std::move(audit)));
}

DeliveryResult ExecSender::send(const Notification& in) {
  Notification n = in;
  if (!cfg_.send_resolved)
    n.alerts.erase(
        std::remove_if(n.alerts.begin(), n.alerts.end(), [&](const Alert& a) { return a.resolved_at(n.created_ms); }),
        n.alerts.end());
  if (n.alerts.empty()) return DeliveryResult{DeliveryOutcome::kDelivered, ""};

  ExecAuditRecord rec;
  rec.time_ms = clock_.now_ms();
  rec.receiver = n.receiver;
  rec.argv = cfg_.command;
  for (const auto& a : n.alerts) rec.alert_names.emplace_back(a.label("alertname"));
  auto done = [&](DeliveryOutcome o, std::string status, std::string error) {
    rec.outcome = o;
    rec.status = std::move(status);
    audit_(rec);
    return DeliveryResult{o, std::move(error)};
  };

  const std::string& prog = cfg_.command[0];
  auto path = allow_.check(prog);
  if (!path) return done(DeliveryOutcome::kFailed, "refused: " + path.error(), path.error());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ >= cfg_.max_concurrent) {
      std::string why =
          std::to_string(running_) + " run(s) in progress (max_concurrent " + std::to_string(cfg_.max_concurrent) + ")";
      return done(DeliveryOutcome::kRetry, "skipped: " + why, "exec " + prog + ": not started: " + why);
    }
    ++running_;
  }
  ExecRequest req;
  req.path = *path;
  req.argv = cfg_.command;
  req.env = exec_environment(n);
  req.stdin_data = render_webhook_payload(n);
  req.timeout_ms = cfg_.timeout_ms;
  req.kill_grace_ms = cfg_.kill_grace_ms;
  req.max_output_bytes = cfg_.max_output_bytes;
  ExecResult r = run_process(req);
  {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
  rec.exit_code = r.exit_code;
  rec.duration_s = r.duration_s;
  rec.stdout_data = std::move(r.stdout_data);
  rec.stderr_data = std::move(r.stderr_data);
  std::string status = r.describe(cfg_.timeout_ms);
  if (r.success()) return done(DeliveryOutcome::kDelivered, status, "");
  std::string err = "exec " + prog + ": " + status;
  if (std::string l = first_line(rec.stderr_data, 200); !l.empty()) err += ": " + l;
  return done(DeliveryOutcome::kFailed, status, err);
}

}  // namespace llmon::notify
