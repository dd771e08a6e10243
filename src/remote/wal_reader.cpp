#include "remote/wal_reader.h"

#include <algorithm>
#include <filesystem>

#include "tsdb/wal/record_log.h"

namespace llmon::remote {

namespace wal = tsdb::wal;

WalReader::WalReader(std::string storage_path) : path_(std::move(storage_path)) {}

Expected<ReadResult> WalReader::read(const ReadPosition& from, size_t max_samples, std::vector<wal::SampleEntry>& out) {
  ReadResult res;
  res.next = from;
  const std::string dir = wal_dir();
  auto segs = wal::list_segments(dir);
  if (!segs) return segs.status();
  if (segs->empty()) {
    res.caught_up = true;
    return res;
  }
  ReadPosition pos = from;
  if (pos.segment == 0) {
    pos.segment = segs->front();
    pos.offset = pos.skip = 0;
  } else if (pos.segment < segs->front()) {
    res.lost_first = pos.segment;
    res.lost_end = segs->front();
    pos.segment = segs->front();
    pos.offset = pos.skip = 0;
  } else if (pos.segment > segs->back()) {
    // A position from a store that was since emptied: start again at its oldest.
    res.lost_first = res.lost_end = 0;
    pos.segment = segs->front();
    pos.offset = pos.skip = 0;
  }
  {
    // A segment shorter than the position: records we read were lost from
    // it (a power cut before the store's fdatasync, then its tail repair).
    // Re-read the segment from its start: repeats are identical samples,
    // which receivers store once; skipping could lose new records.
    std::error_code ec;
    const auto size = std::filesystem::file_size(wal::segment_path(dir, pos.segment), ec);
    if (!ec && pos.offset > size) {
      res.rewound = true;
      pos.offset = pos.skip = 0;
    }
  }
  res.next = pos;
  size_t room = max_samples;
  auto it = std::lower_bound(segs->begin(), segs->end(), pos.segment);
  for (; it != segs->end(); ++it) {
    const uint32_t seg = *it;
    if (seg != pos.segment) {
      // Moving on: a number missing in between was removed under us.
      if (seg > pos.segment + 1 && res.lost_end == 0) {
        res.lost_first = pos.segment + 1;
        res.lost_end = seg;
      }
      pos = ReadPosition{seg, 0, 0, from.max_sent_ms};
      res.next = pos;
    }
    const bool last = it + 1 == segs->end();
    bool full = false;
    bool first_record = true;
    const uint64_t start_off = pos.offset, start_skip = pos.skip;
    auto on_record = [&](std::string_view rec, uint64_t start, uint64_t end) -> Status {
      if (room == 0) {
        full = true;
        return Status::error("full");
      }
      const uint64_t skip = first_record && start == start_off ? start_skip : 0;
      first_record = false;
      auto type = wal::record_type(rec);
      if (!type || *type != wal::RecordType::kSamples) {
        res.next = ReadPosition{seg, end, 0, from.max_sent_ms};
        return Status::ok();
      }
      if (Status s = wal::decode_samples(rec, tmp_); !s) {
        ++res.corruptions;
        res.corruption_detail = wal::segment_path(dir, seg) + " at " + std::to_string(start) + ": " + s.message();
        res.next = ReadPosition{seg, end, 0, from.max_sent_ms};
        return Status::ok();
      }
      const uint64_t n = tmp_.size();
      const uint64_t begin = std::min<uint64_t>(skip, n);
      const uint64_t take = std::min<uint64_t>(room, n - begin);
      out.insert(out.end(), tmp_.begin() + static_cast<ptrdiff_t>(begin),
                 tmp_.begin() + static_cast<ptrdiff_t>(begin + take));
      room -= take;
      if (begin + take == n) {
        res.next = ReadPosition{seg, end, 0, from.max_sent_ms};
        return Status::ok();
      }
      res.next = ReadPosition{seg, start, begin + take, from.max_sent_ms};
      full = true;
      return Status::error("full");
    };
    auto on_corruption = [&](const wal::Corruption& c) {
      if (c.reason == "torn tail" && last) return;  // a record being written: read it next time
      ++res.corruptions;
      res.corruption_detail = c.file + " at " + std::to_string(c.offset) + ": " + c.reason;
    };
    Status st = wal::read_segment_from(dir, seg, pos.offset, last, on_record, on_corruption);
    if (full) return res;
    if (!st) return st;
    if (last) {
      res.caught_up = true;
      return res;
    }
  }
  res.caught_up = true;
  return res;
}

Status WalReader::reload_series() {
  std::vector<wal::SeriesEntry> entries;
  auto stats = wal::read_log(
      path_ + "/series", 0,
      [&](std::string_view rec) -> Status {
        auto type = wal::record_type(rec);
        if (!type || *type != wal::RecordType::kSeries) return Status::ok();
        if (Status s = wal::decode_series(rec, entries); !s) return Status::ok();  // counted by the store
        for (auto& e : entries) {
          series_.insert_or_assign(e.ref, std::move(e.labels));
        }
        return Status::ok();
      },
      [](const wal::Corruption&) {});
  return stats.status();
}

const model::Labels* WalReader::labels(storage::SeriesRef ref) {
  auto it = series_.find(ref);
  if (it != series_.end()) return &it->second;
  // A series is logged before its first sample: one reload finds it, or it
  // is gone for good (remembered, so it costs one reload, not one per record).
  if (missing_.count(ref)) return nullptr;
  if (Status st = reload_series(); !st) {
    reload_failed_ = true;  // transient (the store swapping in a rewritten log): not "missing"
    return nullptr;
  }
  it = series_.find(ref);
  if (it == series_.end()) {
    missing_.insert(ref);
    return nullptr;
  }
  return &it->second;
}

}  // namespace llmon::remote
