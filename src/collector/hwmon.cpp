// hwmon collector: node_hwmon_* from <sysfs>/class/hwmon/hwmon*/ and their
// device/ directories, named and scaled as node_exporter 1.5 does
// (hwmon_linux.go; rules in procfs/hwmon.h).
// The tree is walked once into a plan (files kept open, labels and chip names
// read once) and walked again when the hwmon*/ entries change or every
// kRescanMs; each cycle then only reads the value files.
#include "procfs/hwmon.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <map>
#include <set>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/utf8.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

constexpr int64_t kRescanMs = 60'000;
// Descriptors kept open at most; further files are opened on each read
// (a large board can expose over a thousand hwmon attributes).
constexpr size_t kMaxOpenFiles = 256;
// node_exporter reads at most this much of a sensor file.
constexpr size_t kMaxValueBytes = 128;

// One sensor attribute. The descriptor stays open when keep_open (sysfs
// regenerates the text on every pread at offset 0); reads use the caller's
// small buffer, so a thousand sensors cost no per-file buffers.
class Reading {
 public:
  Reading(std::string chip, std::string sensor, std::string path, bool keep_open)
      : chip(std::move(chip)), sensor(std::move(sensor)), path_(std::move(path)), keep_open_(keep_open) {}
  ~Reading() { close_fd(); }
  Reading(Reading&& o) noexcept
      : chip(std::move(o.chip)),
        sensor(std::move(o.sensor)),
        path_(std::move(o.path_)),
        fd_(o.fd_),
        keep_open_(o.keep_open_) {
    o.fd_ = -1;
  }
  Reading& operator=(Reading&& o) noexcept {
    if (this != &o) {
      close_fd();
      chip = std::move(o.chip);
      sensor = std::move(o.sensor);
      path_ = std::move(o.path_);
      fd_ = o.fd_;
      keep_open_ = o.keep_open_;
      o.fd_ = -1;
    }
    return *this;
  }

  // Reads up to size bytes from the start of the file; false when unreadable.
  bool read(char* buf, size_t size, std::string_view& text) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ < 0) {
        fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) return false;
      }
      ssize_t n = 0;
      do {
        n = ::pread(fd_, buf, size, 0);
      } while (n < 0 && errno == EINTR);
      const int err = errno;
      if (!keep_open_ || n < 0) close_fd();
      if (n >= 0) {
        text = std::string_view(buf, static_cast<size_t>(n));
        return true;
      }
      // A kept descriptor may belong to a file replaced meanwhile: retry once
      // on a fresh one; a driver's own error (EAGAIN, ENODATA, EIO) stays.
      if (!(err == ENODEV || err == ESTALE || err == EBADF) || attempt == 1) return false;
    }
    return false;
  }

  std::string chip;
  std::string sensor;

 private:
  void close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  std::string path_;
  int fd_ = -1;
  bool keep_open_ = true;
};

struct FamilyPlan {
  procfs::HwmonMetric metric;
  std::vector<Reading> readings;  // sorted by (chip, sensor)
};

struct Plan {
  std::vector<FamilyPlan> families;                    // sorted by name
  std::vector<std::array<std::string, 2>> chip_names;  // (chip, chip_name), sorted
  std::vector<std::array<std::string, 3>> labels;      // (chip, label, sensor), sorted
  Status error;                                        // first problem met while walking
};

// Identity of a series for duplicate detection: the parts joined by '\n'.
std::string series_key(std::initializer_list<std::string_view> parts) {
  std::string k;
  for (auto p : parts) {
    k.append(p);
    k += '\n';
  }
  return k;
}

bool readable(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// Sensor attribute files of one directory: sensor ("temp1") -> property -> path.
using SensorFiles = std::map<std::string, std::map<std::string, std::string>>;

Status collect_sensor_files(const std::string& dir, SensorFiles& out) {
  std::vector<base::DirEntry> entries;
  Status s = base::list_dir(dir, entries);
  if (!s) return s;
  for (const auto& e : entries) {
    auto f = procfs::parse_hwmon_filename(e.name);
    if (!f || !procfs::is_hwmon_sensor_type(f->type)) continue;
    std::string path = dir + "/" + e.name;
    if (e.kind == base::EntryKind::kDir || e.kind == base::EntryKind::kOther) continue;
    if (e.kind != base::EntryKind::kFile && base::stat_kind(path) != base::EntryKind::kFile) continue;
    if (!readable(path)) continue;  // write-only attributes (e.g. temp1_reset_history)
    out[std::string(f->type) + std::to_string(f->num)][std::string(f->property)] = std::move(path);
  }
  return Status::ok();
}

// node_exporter's hwmonName: device path, else the name file, else hwmonN.
Expected<std::string> chip_name(const std::string& dir) {
  if (auto dev = base::real_path(dir + "/device")) {
    std::string n = procfs::hwmon_chip_from_device_path(*dev);
    if (!n.empty()) return n;
  }
  if (auto raw = base::read_file(dir + "/name"); raw && !raw->empty()) {
    std::string n = procfs::hwmon_clean_name(*raw);
    if (!n.empty()) return n;
  }
  auto real = base::real_path(dir);
  if (!real) return real.status();
  std::string_view r(*real);
  std::string n = procfs::hwmon_clean_name(r.substr(r.rfind('/') + 1));
  if (n.empty()) return Status::error("could not derive a monitoring name for " + dir);
  return n;
}

std::string read_label(const std::string& path, bool& ok) {
  auto raw = base::read_file(path);
  ok = raw.has_value();
  if (!ok) return {};
  std::string_view v(*raw);
  v = v.substr(0, kMaxValueBytes);
  while (!v.empty() && v.front() == '\n') v.remove_prefix(1);
  while (!v.empty() && v.back() == '\n') v.remove_suffix(1);
  return base::to_valid_utf8(v);
}

Plan build_plan(const std::string& class_dir) {
  Plan plan;
  std::vector<base::DirEntry> entries;
  Status ls = base::list_dir(class_dir, entries);
  if (!ls) {
    plan.error = ls;
    return plan;
  }
  std::map<std::string, FamilyPlan> families;
  std::set<std::string> seen;  // duplicates: the first chip in directory order wins, as in client_golang
  size_t open_budget = kMaxOpenFiles;
  for (const auto& e : entries) {
    const std::string dir = class_dir + "/" + e.name;
    if (base::stat_kind(dir) != base::EntryKind::kDir) continue;
    auto chip = chip_name(dir);
    if (!chip) {
      if (plan.error.is_ok()) plan.error = chip.status();
      continue;
    }
    SensorFiles files;
    Status s = collect_sensor_files(dir, files);
    if (s && base::stat_kind(dir + "/device") == base::EntryKind::kDir)
      s = collect_sensor_files(dir + "/device", files);
    if (!s) {
      if (plan.error.is_ok()) plan.error = s;
      continue;
    }
    if (auto raw = base::read_file(dir + "/name")) {
      std::string human = procfs::hwmon_clean_name(*raw);
      if (!human.empty() && seen.insert(series_key({"chip_names", *chip, human})).second)
        plan.chip_names.push_back({*chip, human});
    }
    for (auto& [sensor, props] : files) {
      auto type = procfs::parse_hwmon_filename(sensor);
      if (!type) continue;
      if (auto it = props.find("label"); it != props.end()) {
        bool ok = false;
        std::string label = read_label(it->second, ok);
        if (ok && seen.insert(series_key({"label", *chip, sensor, label})).second)
          plan.labels.push_back({*chip, label, sensor});
      }
      const bool has_bare = props.count("") > 0;
      for (auto& [prop, path] : props) {
        auto m = procfs::hwmon_metric_for(type->type, prop, has_bare);
        if (!m) continue;
        if (!seen.insert(series_key({m->name, *chip, sensor})).second) continue;
        FamilyPlan& fam = families[m->name];
        if (fam.metric.name.empty()) fam.metric = *m;
        fam.readings.emplace_back(*chip, sensor, path, open_budget > 0);
        if (open_budget > 0) --open_budget;
      }
    }
  }
  for (auto& [name, fam] : families) {
    std::sort(fam.readings.begin(), fam.readings.end(), [](const Reading& a, const Reading& b) {
      return a.chip != b.chip ? a.chip < b.chip : a.sensor < b.sensor;
    });
    plan.families.push_back(std::move(fam));
  }
  std::sort(plan.chip_names.begin(), plan.chip_names.end());
  std::sort(plan.labels.begin(), plan.labels.end());
  return plan;
}

class HwmonCollector final : public Collector {
 public:
  explicit HwmonCollector(const CollectorContext& ctx) : class_dir_(ctx.fs.sys("class/hwmon")) {}

  Status collect(model::SnapshotBuilder& out) override {
    Status ls = base::list_dir(class_dir_, entries_);
    if (!ls) {
      // node_exporter: ErrNoData, "hwmon collector metrics are not available for this system".
      if (::access(class_dir_.c_str(), F_OK) != 0) return Status::no_data(ls.message());
      return ls.with_context("hwmon (no hardware monitors exposed)");
    }
    signature(sig_);
    const int64_t now = out.timestamp_ms();
    if (!scanned_ || sig_ != plan_sig_ || now - scanned_ms_ >= kRescanMs || now < scanned_ms_) {
      plan_ = build_plan(class_dir_);
      plan_sig_ = sig_;
      scanned_ms_ = now;
      scanned_ = true;
    }
    if (!plan_.chip_names.empty()) {
      auto w = out.family("node_hwmon_chip_names", "Annotation metric for human-readable chip names",
                          model::MetricType::kGauge, {"chip", "chip_name"});
      for (const auto& c : plan_.chip_names) w.add({c[0], c[1]}, 1);
    }
    if (!plan_.labels.empty()) {
      auto w = out.family("node_hwmon_sensor_label", "Label for given chip and sensor", model::MetricType::kGauge,
                          {"chip", "label", "sensor"});
      for (const auto& l : plan_.labels) w.add({l[0], l[1], l[2]}, 1);
    }
    for (auto& fam : plan_.families) {
      auto w =
          out.family(fam.metric.name, fam.metric.help,
                     fam.metric.counter ? model::MetricType::kCounter : model::MetricType::kGauge, {"chip", "sensor"});
      for (auto& r : fam.readings) {
        std::string_view text;
        // Unreadable now (EAGAIN, ENODATA, ...): skipped, like node_exporter.
        if (!r.read(buf_, sizeof buf_, text)) continue;
        auto v = procfs::parse_hwmon_value(text);
        if (!v) continue;
        w.add({r.chip, r.sensor}, procfs::hwmon_scaled(fam.metric, *v));
      }
    }
    return plan_.error;
  }

 private:
  // Names of the hwmon* entries with their link targets: a changed target
  // means a re-numbered device.
  void signature(std::string& sig) {
    sig.clear();
    char buf[PATH_MAX];
    for (const auto& e : entries_) {
      sig += e.name;
      sig += '\0';
      if (e.kind == base::EntryKind::kSymlink) {
        path_ = class_dir_;
        path_ += '/';
        path_ += e.name;
        ssize_t n = ::readlink(path_.c_str(), buf, sizeof buf);
        if (n > 0) sig.append(buf, static_cast<size_t>(n));
      }
      sig += '\n';
    }
  }

  std::string class_dir_;
  std::vector<base::DirEntry> entries_;
  std::string sig_, plan_sig_, path_;
  char buf_[kMaxValueBytes];
  int64_t scanned_ms_ = 0;
  bool scanned_ = false;
  Plan plan_;
};

}  // namespace

std::unique_ptr<Collector> make_hwmon(const CollectorContext& ctx) {
  return std::make_unique<HwmonCollector>(ctx);
}

}  // namespace llmon::collector
