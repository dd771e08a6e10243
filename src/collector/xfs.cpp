// xfs collector (node_exporter 1.5 xfs_linux.go): per mounted XFS
// filesystem, counters from /sys/fs/xfs/<device>/stats/stats (kernel 4.4+),
// device = the directory's name. No /sys/fs/xfs (no XFS mounted): no series,
// success 1, as node_exporter's empty glob. A file that fails to parse fails
// the collector (node_exporter: the whole collector too).
#include <string>
#include <string_view>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/xfs_stats.h"

namespace llmon::collector {
namespace {

struct Metric {
  std::string_view name, help, line;
  size_t index;
};
constexpr Metric kMetrics[] = {
    {"node_xfs_extent_allocation_extents_allocated_total", "Number of extents allocated for a filesystem.",
     "extent_alloc", 0},
    {"node_xfs_extent_allocation_blocks_allocated_total", "Number of blocks allocated for a filesystem.",
     "extent_alloc", 1},
    {"node_xfs_extent_allocation_extents_freed_total", "Number of extents freed for a filesystem.", "extent_alloc", 2},
    {"node_xfs_extent_allocation_blocks_freed_total", "Number of blocks freed for a filesystem.", "extent_alloc", 3},
    {"node_xfs_allocation_btree_lookups_total", "Number of allocation B-tree lookups for a filesystem.", "abt", 0},
    {"node_xfs_allocation_btree_compares_total", "Number of allocation B-tree compares for a filesystem.", "abt", 1},
    {"node_xfs_allocation_btree_records_inserted_total",
     "Number of allocation B-tree records inserted for a filesystem.", "abt", 2},
    {"node_xfs_allocation_btree_records_deleted_total", "Number of allocation B-tree records deleted for a filesystem.",
     "abt", 3},
    {"node_xfs_block_mapping_reads_total", "Number of block map for read operations for a filesystem.", "blk_map", 0},
    {"node_xfs_block_mapping_writes_total", "Number of block map for write operations for a filesystem.", "blk_map", 1},
    {"node_xfs_block_mapping_unmaps_total", "Number of block unmaps (deletes) for a filesystem.", "blk_map", 2},
    {"node_xfs_block_mapping_extent_list_insertions_total", "Number of extent list insertions for a filesystem.",
     "blk_map", 3},
    {"node_xfs_block_mapping_extent_list_deletions_total", "Number of extent list deletions for a filesystem.",
     "blk_map", 4},
    {"node_xfs_block_mapping_extent_list_lookups_total", "Number of extent list lookups for a filesystem.", "blk_map",
     5},
    {"node_xfs_block_mapping_extent_list_compares_total", "Number of extent list compares for a filesystem.", "blk_map",
     6},
    {"node_xfs_block_map_btree_lookups_total", "Number of block map B-tree lookups for a filesystem.", "bmbt", 0},
    {"node_xfs_block_map_btree_compares_total", "Number of block map B-tree compares for a filesystem.", "bmbt", 1},
    {"node_xfs_block_map_btree_records_inserted_total", "Number of block map B-tree records inserted for a filesystem.",
     "bmbt", 2},
    {"node_xfs_block_map_btree_records_deleted_total", "Number of block map B-tree records deleted for a filesystem.",
     "bmbt", 3},
    {"node_xfs_directory_operation_lookup_total",
     "Number of file name directory lookups which miss the operating systems directory name lookup cache.", "dir", 0},
    {"node_xfs_directory_operation_create_total", "Number of times a new directory entry was created for a filesystem.",
     "dir", 1},
    {"node_xfs_directory_operation_remove_total",
     "Number of times an existing directory entry was created for a filesystem.", "dir", 2},
    {"node_xfs_directory_operation_getdents_total",
     "Number of times the directory getdents operation was performed for a filesystem.", "dir", 3},
    {"node_xfs_inode_operation_attempts_total", "Number of times the OS looked for an XFS inode in the inode cache.",
     "ig", 0},
    {"node_xfs_inode_operation_found_total",
     "Number of times the OS looked for and found an XFS inode in the inode cache.", "ig", 1},
    {"node_xfs_inode_operation_recycled_total",
     "Number of times the OS found an XFS inode in the cache, but could not use it as it was being recycled.", "ig", 2},
    {"node_xfs_inode_operation_missed_total",
     "Number of times the OS looked for an XFS inode in the cache, but did not find it.", "ig", 3},
    {"node_xfs_inode_operation_duplicates_total",
     "Number of times the OS tried to add a missing XFS inode to the inode cache, but found it had already been added "
     "by another process.",
     "ig", 4},
    {"node_xfs_inode_operation_reclaims_total",
     "Number of times the OS reclaimed an XFS inode from the inode cache to free memory for another purpose.", "ig", 5},
    {"node_xfs_inode_operation_attribute_changes_total",
     "Number of times the OS explicitly changed the attributes of an XFS inode.", "ig", 6},
    // The kernel prints write calls first.
    {"node_xfs_read_calls_total", "Number of read(2) system calls made to files in a filesystem.", "rw", 1},
    {"node_xfs_write_calls_total", "Number of write(2) system calls made to files in a filesystem.", "rw", 0},
    {"node_xfs_vnode_active_total", "Number of vnodes not on free lists for a filesystem.", "vnodes", 0},
    {"node_xfs_vnode_allocate_total", "Number of times vn_alloc called for a filesystem.", "vnodes", 1},
    {"node_xfs_vnode_get_total", "Number of times vn_get called for a filesystem.", "vnodes", 2},
    {"node_xfs_vnode_hold_total", "Number of times vn_hold called for a filesystem.", "vnodes", 3},
    {"node_xfs_vnode_release_total", "Number of times vn_rele called for a filesystem.", "vnodes", 4},
    {"node_xfs_vnode_reclaim_total", "Number of times vn_reclaim called for a filesystem.", "vnodes", 5},
    {"node_xfs_vnode_remove_total", "Number of times vn_remove called for a filesystem.", "vnodes", 6},
};

class XfsCollector final : public Collector {
 public:
  explicit XfsCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("fs/xfs")) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!base::list_dir(dir_, entries_)) return Status::ok();  // no XFS mounted
    stats_.clear();
    for (const auto& e : entries_) {
      std::string path = dir_ + "/" + e.name + "/stats/stats";
      if (base::stat_kind(path) != base::EntryKind::kFile) continue;
      if (Status s = base::read_file(path, text_); !s) return s;
      auto st = procfs::parse_xfs_stats(text_, path);
      if (!st) return st.status();
      stats_.push_back({e.name, *st});
    }
    if (stats_.empty()) return Status::ok();
    for (const Metric& m : kMetrics) {
      auto f = out.family(m.name, m.help, model::MetricType::kCounter, {"device"});
      for (const auto& [device, st] : stats_) f.add({device}, static_cast<double>(st.line(m.line)[m.index]));
    }
    return Status::ok();
  }

 private:
  std::string dir_;
  std::vector<base::DirEntry> entries_;
  std::string text_;
  std::vector<std::pair<std::string_view, procfs::XfsStats>> stats_;
};

}  // namespace

std::unique_ptr<Collector> make_xfs(const CollectorContext& ctx) {
  return std::make_unique<XfsCollector>(ctx);
}

}  // namespace llmon::collector
