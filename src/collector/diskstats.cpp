// diskstats collector: node_disk_* from /proc/diskstats plus node_disk_info and
// the udev-derived node_disk_{filesystem_info,device_mapper_info,ata_*}
// (node_exporter 1.5 diskstats_linux.go). udev data comes from --path.udev.data
// (default /run/udev/data, as in node_exporter); a missing entry leaves the
// info labels empty and is not an error. Entries, present or absent, are
// cached per major:minor and looked up again every 60 s (a device with a new
// major:minor is looked up at once), so a cycle does no udev I/O.
#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "collector/options.h"
#include "procfs/diskstats.h"
#include "procfs/udev.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using procfs::DiskStatField;

constexpr double kSectorBytes = 512.0;      // iostats sectors are always 512 bytes
constexpr double kSecondsPerTick = 0.001;   // node_exporter multiplies by 1.0/1000.0

struct StatMetric {
  DiskStatField field;
  double scale;  // 0: the raw count
  std::string_view name;
  std::string_view help;
  MetricType type;
};

// Order is node_exporter's; a line with n counters emits the first n.
constexpr StatMetric kStats[] = {
    {procfs::kReadIOs, 0, "node_disk_reads_completed_total", "The total number of reads completed successfully.",
     MetricType::kCounter},
    {procfs::kReadMerges, 0, "node_disk_reads_merged_total", "The total number of reads merged.",
     MetricType::kCounter},
    {procfs::kReadSectors, kSectorBytes, "node_disk_read_bytes_total", "The total number of bytes read successfully.",
     MetricType::kCounter},
    {procfs::kReadTicksMs, kSecondsPerTick, "node_disk_read_time_seconds_total",
     "The total number of seconds spent by all reads.", MetricType::kCounter},
    {procfs::kWriteIOs, 0, "node_disk_writes_completed_total", "The total number of writes completed successfully.",
     MetricType::kCounter},
    {procfs::kWriteMerges, 0, "node_disk_writes_merged_total", "The number of writes merged.", MetricType::kCounter},
    {procfs::kWriteSectors, kSectorBytes, "node_disk_written_bytes_total",
     "The total number of bytes written successfully.", MetricType::kCounter},
    {procfs::kWriteTicksMs, kSecondsPerTick, "node_disk_write_time_seconds_total",
     "This is the total number of seconds spent by all writes.", MetricType::kCounter},
    {procfs::kIOsInProgress, 0, "node_disk_io_now", "The number of I/Os currently in progress.", MetricType::kGauge},
    {procfs::kIOTicksMs, kSecondsPerTick, "node_disk_io_time_seconds_total", "Total seconds spent doing I/Os.",
     MetricType::kCounter},
    {procfs::kWeightedIOTicksMs, kSecondsPerTick, "node_disk_io_time_weighted_seconds_total",
     "The weighted # of seconds spent doing I/Os.", MetricType::kCounter},
    {procfs::kDiscardIOs, 0, "node_disk_discards_completed_total",
     "The total number of discards completed successfully.", MetricType::kCounter},
    {procfs::kDiscardMerges, 0, "node_disk_discards_merged_total", "The total number of discards merged.",
     MetricType::kCounter},
    // Sectors, not bytes: node_exporter 1.5 exports the raw count here.
    {procfs::kDiscardSectors, 0, "node_disk_discarded_sectors_total",
     "The total number of sectors discarded successfully.", MetricType::kCounter},
    {procfs::kDiscardTicksMs, kSecondsPerTick, "node_disk_discard_time_seconds_total",
     "This is the total number of seconds spent by all discards.", MetricType::kCounter},
    {procfs::kFlushIOs, 0, "node_disk_flush_requests_total",
     "The total number of flush requests completed successfully", MetricType::kCounter},
    {procfs::kFlushTicksMs, kSecondsPerTick, "node_disk_flush_requests_time_seconds_total",
     "This is the total number of seconds spent by all flush requests.", MetricType::kCounter},
};

struct AtaMetric {
  std::string_view property;
  std::string_view name;
  std::string_view help;
};

constexpr AtaMetric kAta[] = {
    {"ID_ATA_WRITE_CACHE", "node_disk_ata_write_cache", "ATA disk has a write cache."},
    {"ID_ATA_WRITE_CACHE_ENABLED", "node_disk_ata_write_cache_enabled", "ATA disk has its write cache enabled."},
    {"ID_ATA_ROTATION_RATE_RPM", "node_disk_ata_rotation_rate_rpm", "ATA disk rotation rate in RPMs (0 for SSDs)."},
};

// udev entry of one device, re-parsed only when the file's text changes.
struct UdevEntry {
  std::string path;
  std::string raw;  // "" when absent
  procfs::UdevProperties props;
  int64_t checked_ms = 0;
};

constexpr int64_t kUdevRecheckMs = 60'000;

// A device kept this cycle.
struct Disk {
  const procfs::DiskStatsLine* line;
  const procfs::UdevProperties* udev;
  char major[11], minor[11];
  std::string_view major_sv() const { return major; }
  std::string_view minor_sv() const { return minor; }
};

void format_u32(uint32_t v, char (&buf)[11]) {
  auto r = std::to_chars(buf, buf + 10, v);
  *r.ptr = '\0';
}

class DiskstatsCollector final : public Collector {
 public:
  explicit DiskstatsCollector(const CollectorContext& ctx)
      : file_(ctx.fs.proc("diskstats")),
        udev_dir_(ctx.option(flag::kPathUdevData)),
        clock_(ctx.clock ? ctx.clock : &system_clock_) {
    std::string exclude = ctx.option(flag::kCollectorDiskstatsDeviceExclude);
    const std::string& include = ctx.option(flag::kCollectorDiskstatsDeviceInclude);
    // As in node_exporter, giving only device-include drops the default exclude.
    if (!include.empty() && exclude == flag::kDiskstatsDefaultDeviceExclude) exclude.clear();
    filter_ = DeviceFilter(exclude, include);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!filter_.status()) return filter_.status();
    auto text = file_.read();
    if (!text) return text.status();
    Status s = procfs::parse_diskstats(*text, lines_);
    if (!s) return s.with_context(file_.path());

    disks_.clear();
    if (udev_.size() > kMaxUdevEntries) udev_.clear();  // devices come and go; keep the cache bounded
    now_ms_ = clock_->now_ms();
    for (const auto& l : lines_) {
      if (filter_.ignored(l.name)) continue;
      Disk d{&l, &udev_for(l.major, l.minor), {}, {}};
      format_u32(l.major, d.major);
      format_u32(l.minor, d.minor);
      disks_.push_back(d);
    }
    std::stable_sort(disks_.begin(), disks_.end(),
                     [](const Disk& a, const Disk& b) { return a.line->name < b.line->name; });

    auto info = out.family("node_disk_info", "Info of /sys/block/<block_device>.", MetricType::kGauge,
                           {"device", "major", "minor", "model", "path", "revision", "serial", "wwn"});
    for (const auto& d : disks_) {
      const auto& u = *d.udev;
      info.add({d.line->name, d.major_sv(), d.minor_sv(), u.get("ID_MODEL"), u.get("ID_PATH"), u.get("ID_REVISION"),
                u.get("ID_SERIAL_SHORT"), u.get("ID_WWN")},
               1);
    }

    for (const auto& m : kStats) {
      auto fam = out.family(m.name, m.help, m.type, {"device"});
      for (const auto& d : disks_) {
        if (static_cast<size_t>(m.field) >= d.line->count) continue;
        double v = static_cast<double>(d.line->v[m.field]);
        fam.add({d.line->name}, m.scale != 0 ? v * m.scale : v);
      }
    }

    auto fs = out.family("node_disk_filesystem_info", "Info about disk filesystem.", MetricType::kGauge,
                         {"device", "type", "usage", "uuid", "version"});
    for (const auto& d : disks_) {
      const auto& u = *d.udev;
      if (auto type = u.get("ID_FS_TYPE"); !type.empty())
        fs.add({d.line->name, type, u.get("ID_FS_USAGE"), u.get("ID_FS_UUID"), u.get("ID_FS_VERSION")}, 1);
    }
    auto dm = out.family("node_disk_device_mapper_info", "Info about disk device mapper.", MetricType::kGauge,
                         {"device", "lv_layer", "lv_name", "name", "uuid", "vg_name"});
    for (const auto& d : disks_) {
      const auto& u = *d.udev;
      if (auto name = u.get("DM_NAME"); !name.empty())
        dm.add({d.line->name, u.get("DM_LV_LAYER"), u.get("DM_LV_NAME"), name, u.get("DM_UUID"), u.get("DM_VG_NAME")},
               1);
    }
    for (const auto& a : kAta) {
      auto fam = out.family(a.name, a.help, MetricType::kGauge, {"device"});
      for (const auto& d : disks_) {
        const auto& u = *d.udev;
        if (u.get("ID_ATA").empty() || !u.has(a.property)) continue;
        // node_exporter logs and skips values strconv.ParseFloat rejects.
        if (auto v = base::parse_double(u.get(a.property))) fam.add({d.line->name}, *v);
      }
    }
    return Status::ok();
  }

 private:
  // The udev properties of block device major:minor; empty when there is no
  // readable entry (no udev in containers, device without a database entry).
  // Read when first seen, then again once kUdevRecheckMs passed.
  const procfs::UdevProperties& udev_for(uint32_t major, uint32_t minor) {
    uint64_t key = (uint64_t{major} << 32) | minor;
    auto [it, inserted] = udev_.try_emplace(key);
    UdevEntry& e = it->second;
    if (!inserted && now_ms_ - e.checked_ms < kUdevRecheckMs && now_ms_ >= e.checked_ms) return e.props;
    if (inserted) e.path = udev_dir_ + "/b" + std::to_string(major) + ":" + std::to_string(minor);
    e.checked_ms = now_ms_;
    if (!base::read_file(e.path, scratch_)) scratch_.clear();
    if (scratch_ != e.raw || inserted) {
      e.raw.swap(scratch_);
      e.props = procfs::parse_udev_properties(e.raw);
    }
    return e.props;
  }

  static constexpr size_t kMaxUdevEntries = 4096;

  base::CachedFile file_;
  std::string udev_dir_;
  base::SystemClock system_clock_;
  const base::Clock* clock_;
  int64_t now_ms_ = 0;
  DeviceFilter filter_;
  std::vector<procfs::DiskStatsLine> lines_;
  std::vector<Disk> disks_;
  std::unordered_map<uint64_t, UdevEntry> udev_;
  std::string scratch_;
};

}  // namespace

std::unique_ptr<Collector> make_diskstats(const CollectorContext& ctx) {
  return std::make_unique<DiskstatsCollector>(ctx);
}

}  // namespace llmon::collector
