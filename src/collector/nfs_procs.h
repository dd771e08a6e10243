// The NFSv2 and v3 procedure names of node_{nfs,nfsd}_requests_total{method}
// (procfs 0.8's struct field names), by the index of the kernel's counter in
// /proc/net/rpc/nfs{,d}'s proc2/proc3 lines, and the loop that adds them.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "model/snapshot_builder.h"
#include "procfs/net_rpc.h"

namespace llmon::collector::nfs {

inline constexpr std::string_view kV2[] = {"Null", "GetAttr", "SetAttr", "Root",   "Lookup",  "ReadLink",
                                           "Read", "WrCache", "Write",   "Create", "Remove",  "Rename",
                                           "Link", "SymLink", "MkDir",   "RmDir",  "ReadDir", "FsStat"};
inline constexpr std::string_view kV3[] = {"Null",   "GetAttr", "SetAttr",  "Lookup", "Access",  "ReadLink",
                                           "Read",   "Write",   "Create",   "MkDir",  "SymLink", "MkNod",
                                           "Remove", "RmDir",   "Rename",   "Link",   "ReadDir", "ReadDirPlus",
                                           "FsStat", "FsInfo",  "PathConf", "Commit"};
static_assert(std::size(kV2) == std::tuple_size_v<procfs::NfsV2Procs>);
static_assert(std::size(kV3) == std::tuple_size_v<procfs::NfsV3Procs>);

// One series {proto, method} per counter from index `first` on (the server
// skips Null).
template <size_t N, size_t M>
void add_procs(model::FamilyWriter& f, std::string_view proto, const std::string_view (&names)[N],
               const std::array<uint64_t, M>& values, size_t first = 0) {
  static_assert(N <= M);
  for (size_t i = first; i < N; ++i) f.add({proto, names[i]}, static_cast<double>(values[i]));
}

}  // namespace llmon::collector::nfs
