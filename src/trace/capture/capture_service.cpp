// One on-demand capture (capture_service.h).
#include "trace/capture/capture_service.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "base/unique_fd.h"
#include "trace/load.h"
#include "trace/report_json.h"

namespace llmon::trace::capture {

namespace {

struct Waiting {
  int32_t pid = 0;
  std::string stem;
  std::vector<std::string> paths;  // where it may appear
  bool picked_up = false;
  int64_t picked_up_ms = 0;
  int64_t deadline_ms = 0;  // for the file, once picked up
  std::string found;        // the path that exists
  int64_t size = -1;
  int64_t size_since_ms = 0;
  bool done = false;
};

// Regular file size (not following symlinks), -1 when absent or not regular.
int64_t regular_size(const std::string& p) {
  struct stat st;
  if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return static_cast<int64_t>(st.st_size);
}

std::string tail_of(const std::string& p, size_t n) {
  base::UniqueFd fd(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return {};
  off_t end = ::lseek(fd.get(), 0, SEEK_END);
  if (end <= 0) return {};
  off_t from = end > static_cast<off_t>(n) ? end - static_cast<off_t>(n) : 0;
  std::string b(static_cast<size_t>(end - from), '\0');
  ssize_t r = ::pread(fd.get(), b.data(), b.size(), from);
  b.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return b;
}

std::string seconds(int64_t ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", static_cast<double>(ms) / 1000.0);
  return b;
}

}  // namespace

std::string describe_processes(const std::vector<ProcessInfo>& ps) {
  if (ps.empty()) return "no processes registered";
  std::string s;
  for (const auto& p : ps) s += (s.empty() ? "" : "; ") + p.describe();
  return s;
}

Status gzip_trace(const std::string& src, const std::string& dst) {
  base::UniqueFd in(::open(src.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!in.valid()) return Status::error("opening " + src + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Status::error(src + ": not a regular file");
  std::random_device rd;
  std::string tmp = dst + ".tmp" + std::to_string(rd());
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out < 0) return Status::error("creating " + tmp + ": " + std::strerror(errno));
  gzFile gz = ::gzdopen(out, "wb6");
  if (!gz) {
    ::close(out);
    ::unlink(tmp.c_str());
    return Status::error("gzdopen " + tmp);
  }
  std::vector<char> buf(1 << 20);
  Status err;
  for (;;) {
    ssize_t n = ::read(in.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      err = Status::error("reading " + src + ": " + std::strerror(errno));
      break;
    }
    if (n == 0) break;
    if (::gzwrite(gz, buf.data(), static_cast<unsigned>(n)) != static_cast<int>(n)) {
      err = Status::error("writing " + tmp);
      break;
    }
  }
  if (::gzclose(gz) != Z_OK && err) err = Status::error("closing " + tmp);
  if (err && ::rename(tmp.c_str(), dst.c_str()) != 0)
    err = Status::error("renaming " + tmp + " to " + dst + ": " + std::strerror(errno));
  if (!err) {
    ::unlink(tmp.c_str());
    return err;
  }
  ::unlink(src.c_str());
  return Status::ok();
}

std::string headline(const nlohmann::json& r) {
  char b[256];
  const auto& t = r["temporal"];
  std::snprintf(b, sizeof b, "%llu GPU kernels over %.3f ms: idle %.1f%%, compute %.1f%%, non-compute %.1f%%",
                static_cast<unsigned long long>(r["kernels"].value("total", 0ULL)),
                t.value("kernel_time_us", 0.0) / 1000.0, t.value("idle_pct", 0.0), t.value("compute_pct", 0.0),
                t.value("non_compute_pct", 0.0));
  std::string s = b;
  auto top = [&](const char* key, const char* what) {
    if (!r.contains(key) || r[key].empty()) return;
    const auto& k = r[key][0];
    std::snprintf(b, sizeof b, "; top %s %s %.1f%%%s", what, k.value("name", std::string()).substr(0, 80).c_str(),
                  100 * k.value("share", 0.0), k.value("flagged", false) ? " (above threshold)" : "");
    s += b;
  };
  top("top_kernels", "kernel");
  top("top_operators", "operator");
  if (r.contains("steps") && !r["steps"].empty()) s += "; " + std::to_string(r["steps"].size()) + " steps";
  return s;
}

nlohmann::json CaptureOutcome::to_json() const {
  nlohmann::json reg = nlohmann::json::array();
  for (const auto& p : registered) {
    nlohmann::json j{{"pid", p.pid},
                     {"chain", p.chain},
                     {"job_id", p.job_id},
                     {"polls", p.polls},
                     {"peer_pid", p.peer_pid},
                     {"last_poll_ms", p.last_poll_ms},
                     {"config_pending", p.config_pending}};
    j["gpu"] = p.gpu ? nlohmann::json(*p.gpu) : nlohmann::json(nullptr);
    reg.push_back(std::move(j));
  }
  nlohmann::json tr = nlohmann::json::array();
  for (const auto& t : traces) {
    nlohmann::json j{
        {"pid", t.pid}, {"awaited", t.awaited}, {"path", t.path}, {"error", t.error}, {"headline", t.headline}};
    j["report"] = t.report;
    tr.push_back(std::move(j));
  }
  return {{"selector", selector}, {"registered", reg}, {"matched", matched}, {"traces", tr}, {"error", error}};
}

CaptureOutcome CaptureService::capture(const CaptureRequest& req) {
  CaptureOutcome out;
  out.selector = req.selector.describe();
  int64_t now = clock_.now_ms();
  out.registered = table_.list(now);
  std::vector<ProcessInfo> matched = table_.match(req.selector, now);
  if (matched.empty()) {
    out.error = "No processes were matched (" + out.selector + "): " +
                (out.registered.empty()
                     ? "no process has contacted the agent on the abstract socket \"" + opts_.socket_name +
                           "\". Is KINETO_USE_DAEMON=1 in the training job's environment, does the job run in this "
                           "network namespace, and has it imported torch and started profiling-capable work?"
                     : "registered: " + describe_processes(out.registered));
    return out;
  }
  std::vector<Waiting> waits;
  std::vector<std::string> errors;
  for (const auto& p : matched) {
    out.matched.push_back(p.pid);
    Waiting w;
    w.pid = p.pid;
    w.stem = trace_stem(opts_.host, p.pid, now);
    w.paths = expected_trace_paths(opts_.dir, w.stem, p.pid);
    if (!table_.install(p.pid, kineto_config(req.spec, opts_.dir + "/" + w.stem + ".json"))) {
      CapturedTrace t;
      t.pid = p.pid;
      t.awaited = w.paths[0];
      t.error = "pid " + std::to_string(p.pid) + " is busy: another capture's config is still waiting for its poll";
      errors.push_back(t.error);
      out.traces.push_back(std::move(t));
      continue;
    }
    waits.push_back(std::move(w));
  }
  log_.info("trace capture: configs installed",
            {{"selector", out.selector}, {"processes", std::to_string(waits.size())}});
  const int64_t run_ms = req.spec.iterations > 0 ? 0 : req.spec.duration_ms;
  const int64_t pickup_deadline = now + opts_.pickup_timeout_ms;
  size_t open = waits.size();
  while (open > 0) {
    now = clock_.now_ms();
    for (Waiting& w : waits) {
      if (w.done) continue;
      if (!w.picked_up) {
        if (!table_.pending(w.pid)) {
          w.picked_up = true;
          w.picked_up_ms = now;
          w.deadline_ms = now + run_ms + req.timeout_ms;
        } else if (now >= pickup_deadline) {
          table_.cancel(w.pid);
          CapturedTrace t;
          t.pid = w.pid;
          t.awaited = w.paths[0];
          t.error = "pid " + std::to_string(w.pid) + " did not poll for its config within " +
                    seconds(opts_.pickup_timeout_ms) +
                    " (Kineto polls every 5 s while the process runs; it may have exited or hung)";
          errors.push_back(t.error);
          out.traces.push_back(std::move(t));
          w.done = true;
          --open;
        }
        continue;
      }
      int64_t size = -1;
      std::string found;
      for (const auto& p : w.paths)
        if ((size = regular_size(p)) >= 0) {
          found = p;
          break;
        }
      if (size >= 0 && (found != w.found || size != w.size)) {
        w.found = found;
        w.size = size;
        w.size_since_ms = now;
      }
      bool settled = size > 0 && now - w.size_since_ms >= opts_.settle_ms && looks_complete(tail_of(found, 64));
      if (!settled && now < w.deadline_ms) continue;
      CapturedTrace t;
      t.pid = w.pid;
      t.awaited = w.paths[0];
      w.done = true;
      --open;
      if (!settled) {
        int64_t waited = now - w.picked_up_ms;
        if (size < 0) {
          t.error = "timed out after " + seconds(waited) + " waiting for " + w.paths[0] + " (or " + w.paths[1] +
                    "): pid " + std::to_string(w.pid) + " took the config but wrote no trace there.";
          std::string fallback = kineto_default_trace_path(w.pid);
          if (regular_size(fallback) >= 0) t.error += " " + fallback + " exists: Kineto ignored ACTIVITIES_LOG_FILE";
          t.error +=
              " Newer Kineto writes on-demand traces only under /tmp/ or $KINETO_ONDEMAND_TRACE_DIR: set "
              "KINETO_ONDEMAND_TRACE_DIR=" +
              opts_.dir + " in the job's environment";
          if (req.spec.iterations > 0)
            t.error += "; an iteration-based capture also needs the job to call profiler.step() (ProfilerStep)";
        } else {
          t.error = "timed out after " + seconds(waited) + ": " + found + " is " + std::to_string(size) +
                    " bytes and not a finished trace yet";
        }
        errors.push_back(t.error);
        out.traces.push_back(std::move(t));
        continue;
      }
      std::string gz = opts_.dir + "/" + w.stem + ".json.gz";
      if (Status st = gzip_trace(found, gz); !st) {
        t.error = st.message();
      } else {
        t.path = gz;
        ParseStats stats;
        auto data = load_trace_file(gz, &stats);
        if (!data) {
          t.error = data.error();
        } else {
          FileReport f;
          f.path = gz;
          f.bytes = stats.bytes;
          f.report = analyze(*data);
          f.data = std::move(*data);
          t.report = rank_json(f);
          t.headline = headline(t.report);
        }
      }
      if (!t.error.empty()) errors.push_back(t.error);
      log_.info("trace capture: trace written",
                {{"pid", std::to_string(t.pid)}, {"path", t.path}, {"summary", t.headline}, {"err", t.error}});
      out.traces.push_back(std::move(t));
    }
    if (open > 0) std::this_thread::sleep_for(std::chrono::milliseconds(opts_.poll_interval_ms));
  }
  for (const auto& e : errors) out.error += (out.error.empty() ? "" : "; ") + e;
  return out;
}

}  // namespace llmon::trace::capture
