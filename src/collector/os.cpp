// os collector: node_os_info{build_id,id,id_like,image_id,image_version,name,
// pretty_name,variant,variant_id,version,version_codename,version_id} 1 and
// node_os_version{id,id_like,name} from <rootfs>/etc/os-release, falling back
// to <rootfs>/usr/lib/os-release (node_exporter 1.5 os_release.go).
// The file is parsed again only when its identity or mtime changes (one
// stat per cycle). A malformed file fails the cycle and reports nothing;
// node_exporter 1.5 instead reports all-empty labels from its second scrape on.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/os_release.h"

namespace llmon::collector {
namespace {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_s = 0, mtime_ns = 0;
  bool operator==(const FileId&) const = default;
};

class OsCollector final : public Collector {
 public:
  explicit OsCollector(const CollectorContext& ctx)
      : paths_{ctx.fs.rooted("/etc/os-release"), ctx.fs.rooted("/usr/lib/os-release")} {}

  Status collect(model::SnapshotBuilder& out) override {
    const std::string* path = nullptr;
    struct stat st {};
    for (const auto& p : paths_) {
      if (::stat(p.c_str(), &st) == 0) {
        path = &p;
        break;
      }
      if (errno != ENOENT) return Status::error("stat " + p + ": " + std::strerror(errno));
    }
    if (!path) {
      cached_ = false;
      return Status::error("os: no os-release file found (" + paths_[0] + ", " + paths_[1] + ")");
    }
    FileId id{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
    if (!cached_ || id != id_ || *path != cached_path_) {
      cached_ = false;
      auto text = base::read_file(*path);
      if (!text) return text.status();
      auto rel = procfs::parse_os_release(*text, *path);
      if (!rel) return rel.status();
      os_ = std::move(*rel);
      version_ = procfs::os_version_number(os_.version_id);
      id_ = id;
      cached_path_ = *path;
      cached_ = true;
    }
    out.family("node_os_info",
               "A metric with a constant '1' value labeled by build_id, id, id_like, image_id, image_version, "
               "name, pretty_name, variant, variant_id, version, version_codename, version_id.",
               model::MetricType::kGauge,
               {"build_id", "id", "id_like", "image_id", "image_version", "name", "pretty_name", "variant",
                "variant_id", "version", "version_codename", "version_id"})
        .add({os_.build_id, os_.id, os_.id_like, os_.image_id, os_.image_version, os_.name, os_.pretty_name,
              os_.variant, os_.variant_id, os_.version, os_.version_codename, os_.version_id},
             1);
    if (version_ > 0) {
      out.family("node_os_version", "Metric containing the major.minor part of the OS version.",
                 model::MetricType::kGauge, {"id", "id_like", "name"})
          .add({os_.id, os_.id_like, os_.name}, version_);
    }
    return Status::ok();
  }

 private:
  std::string paths_[2];
  bool cached_ = false;
  std::string cached_path_;
  FileId id_;
  procfs::OsRelease os_;
  double version_ = 0;
};

}  // namespace

std::unique_ptr<Collector> make_os(const CollectorContext& ctx) {
  return std::make_unique<OsCollector>(ctx);
}

}  // namespace llmon::collector
