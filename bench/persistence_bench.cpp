// Persistence prototypes for the time-series store (issue 4): the same chunks and
// per-cycle samples persisted (A) in SQLite 3 (WAL mode) and (B) in our own files
// (append-only chunk segment + index + CRC'd WAL). Measurement code, not the product:
// results and the choice are in docs/architecture.md and docs/performance.md.
//
//   persistence_bench --compare DIR [--data FILE] [--series N] [--days D]
//                     [--fsync-cycles C] [--recovery-cycles R]
//       one-shot report: bytes on disk (data vs index), bulk chunk write rate,
//       per-cycle commit rate, one series' week, all series' last hour, recovery
//       after a SIGKILLed writer. FILE is Prometheus text with ms timestamps
//       (`name{labels} value t_ms`, bench/chunk_data.py); each of its series is
//       replayed back and forth (ping-pong, so no jumps) with a per-copy phase to
//       fill D days at 1 s, copies get a `replica` label. Without FILE: synthetic.
//   persistence_bench [benchmark flags]  per-cycle commit micro-benchmarks (DIR=/tmp).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tsdb/chunk.h"

using llmon::model::Sample;
using llmon::tsdb::ChunkDecoder;
using llmon::tsdb::ChunkEncoder;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kBlockMs = 2 * 3600 * 1000;
constexpr int64_t kT0 = 1'795'982'400'000;  // 2 h aligned

// ---------------------------------------------------------------- helpers

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
long max_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}
struct Timer {
  double w0 = now_s(), c0 = cpu_s();
  double wall() const { return now_s() - w0; }
  double cpu() const { return cpu_s() - c0; }
};

uint64_t fsize(const fs::path& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}
// Evicts a file's clean pages (no root needed): the read then comes from disk.
void drop_cache(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
bool get_varint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    uint8_t b = *p++;
    r |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}
void put_u32(std::string& out, uint32_t v) {
  out.append(reinterpret_cast<const char*>(&v), 4);
}
uint32_t crc(const void* p, size_t n) {
  return static_cast<uint32_t>(crc32(0, static_cast<const Bytef*>(p), static_cast<uInt>(n)));
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n <= 0) {
      std::perror("write");
      std::exit(1);
    }
    off += static_cast<size_t>(n);
  }
}

// ---------------------------------------------------------------- input data

struct Input {
  std::vector<std::string> labels;            // per ref
  std::vector<std::vector<double>> patterns;  // per source series: values at 1 s
  std::vector<size_t> pattern_of, phase;      // per ref
  std::string source;
  double value(size_t ref, int64_t sec) const {
    const auto& p = patterns[pattern_of[ref]];
    size_t n = p.size();
    if (n == 1) return p[0];
    size_t period = 2 * (n - 1), x = (static_cast<size_t>(sec) + phase[ref]) % period;
    return p[x < n ? x : period - x];
  }
};

bool load_real(const char* path, Input& in) {
  std::ifstream f(path);
  if (!f) return false;
  std::unordered_map<std::string, size_t> idx;
  std::vector<std::string> keys;
  std::vector<std::vector<Sample>> series;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp2 = line.rfind(' ');
    size_t sp1 = sp2 == std::string::npos || sp2 == 0 ? std::string::npos : line.rfind(' ', sp2 - 1);
    if (sp1 == std::string::npos) continue;
    std::string key = line.substr(0, sp1);
    double v = std::strtod(line.c_str() + sp1 + 1, nullptr);
    long long t = std::strtoll(line.c_str() + sp2 + 1, nullptr, 10);
    auto [it, fresh] = idx.emplace(key, series.size());
    if (fresh) {
      series.emplace_back();
      keys.push_back(key);
    }
    auto& s = series[it->second];
    if (!s.empty() && t <= s.back().t_ms) continue;
    s.push_back({t, v});
  }
  for (size_t i = 0; i < series.size(); ++i) {
    bool finite = !series[i].empty();
    for (auto& s : series[i]) finite = finite && std::isfinite(s.v);
    if (!finite) continue;
    std::vector<double> p;
    for (auto& s : series[i]) p.push_back(s.v);
    in.patterns.push_back(std::move(p));
    in.labels.push_back(keys[i]);
  }
  in.source = std::string("real recording ") + path;
  return !in.patterns.empty();
}

void synth(Input& in) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> nd(0, 1);
  for (int i = 0; i < 100; ++i) {
    std::vector<double> p(600);
    double x = 1000 + i;
    for (size_t k = 0; k < p.size(); ++k) {
      if (i < 60)
        p[k] = i;  // constant
      else if (i < 80)
        p[k] = x += static_cast<double>(rng() % 50);  // counter
      else if (i < 90)
        p[k] = std::round((x += nd(rng)) * 100) / 100;  // decimal gauge
      else
        p[k] = x += nd(rng) * 3.7;  // noisy float
    }
    in.patterns.push_back(std::move(p));
    in.labels.push_back("synth_metric_" + std::to_string(i) + "{job=\"llmon\"}");
  }
  in.source = "synthetic (60 % constant, 20 % counters, 10 % decimal gauges, 10 % noisy floats)";
}

void replicate(Input& in, size_t n_series) {
  std::vector<std::string> base = in.labels;
  in.labels.clear();
  size_t r = in.patterns.size();
  for (size_t i = 0; i < n_series; ++i) {
    size_t src = i % r, copy = i / r;
    std::string l = base[src];
    std::string add = "replica=\"" + std::to_string(copy) + "\"";
    if (l.back() == '}')
      l = l.substr(0, l.size() - 1) + (l[l.size() - 2] == '{' ? "" : ",") + add + "}";
    else
      l += "{" + add + "}";
    in.labels.push_back(l);
    in.pattern_of.push_back(src);
    in.phase.push_back((copy * 97 + src * 13) % 100000);
  }
}

// Label pairs of `name{a="b",...}` (for the SQLite postings table).
std::vector<std::pair<std::string, std::string>> parse_labels(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t b = key.find('{');
  out.emplace_back("__name__", key.substr(0, b));
  if (b == std::string::npos) return out;
  size_t i = b + 1;
  while (i < key.size() && key[i] != '}') {
    size_t eq = key.find('=', i);
    if (eq == std::string::npos) break;
    std::string name = key.substr(i, eq - i), val;
    size_t j = eq + 2;  // past ="
    while (j < key.size() && key[j] != '"') {
      if (key[j] == '\\' && j + 1 < key.size()) ++j;
      val.push_back(key[j++]);
    }
    out.emplace_back(name, val);
    i = j + 1;
    if (i < key.size() && key[i] == ',') ++i;
  }
  return out;
}

struct Chunk {
  uint32_t ref;
  int64_t min_t, max_t;
  std::vector<uint8_t> data;
};

// ---------------------------------------------------------------- (A) SQLite

void sq_check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "sqlite %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    std::exit(1);
  }
}
void sq_exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite: %s: %s\n", sql, err);
    std::exit(1);
  }
}
sqlite3* sq_open(const fs::path& p, const char* sync = "NORMAL") {
  sqlite3* db = nullptr;
  sq_check(sqlite3_open(p.c_str(), &db), db, "open");
  sq_exec(db, "PRAGMA journal_mode=WAL");
  sq_exec(db, (std::string("PRAGMA synchronous=") + sync).c_str());
  return db;
}
const char* kSqSchema =
    "CREATE TABLE IF NOT EXISTS series(ref INTEGER PRIMARY KEY, labels TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS postings(name TEXT, value TEXT, ref INTEGER, PRIMARY KEY(name, value, ref)) "
    "WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS chunks(series_ref INTEGER NOT NULL, min_t INTEGER NOT NULL, max_t INTEGER NOT NULL, "
    "data BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS chunks_ref_maxt ON chunks(series_ref, max_t);"
    "CREATE TABLE IF NOT EXISTS head_samples(ref INTEGER NOT NULL, t INTEGER NOT NULL, v REAL NOT NULL);";

void sq_write_series(sqlite3* db, const Input& in) {
  sq_exec(db, "BEGIN");
  sqlite3_stmt *s1, *s2;
  sqlite3_prepare_v2(db, "INSERT INTO series VALUES(?,?)", -1, &s1, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO postings VALUES(?,?,?)", -1, &s2, nullptr);
  for (size_t r = 0; r < in.labels.size(); ++r) {
    sqlite3_bind_int64(s1, 1, static_cast<int64_t>(r));
    sqlite3_bind_text(s1, 2, in.labels[r].c_str(), -1, SQLITE_STATIC);
    sq_check(sqlite3_step(s1), db, "series");
    sqlite3_reset(s1);
    for (auto& [n, v] : parse_labels(in.labels[r])) {
      sqlite3_bind_text(s2, 1, n.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(s2, 2, v.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(s2, 3, static_cast<int64_t>(r));
      sq_check(sqlite3_step(s2), db, "postings");
      sqlite3_reset(s2);
    }
  }
  sqlite3_finalize(s1);
  sqlite3_finalize(s2);
  sq_exec(db, "COMMIT");
}

// One transaction per 2 h cut across all series.
void sq_write_chunks(sqlite3* db, const std::vector<Chunk>& chunks, size_t per_block) {
  sqlite3_stmt* st;
  sqlite3_prepare_v2(db, "INSERT INTO chunks VALUES(?,?,?,?)", -1, &st, nullptr);
  for (size_t i = 0; i < chunks.size(); i += per_block) {
    sq_exec(db, "BEGIN");
    for (size_t k = i; k < std::min(chunks.size(), i + per_block); ++k) {
      const Chunk& c = chunks[k];
      sqlite3_bind_int64(st, 1, c.ref);
      sqlite3_bind_int64(st, 2, c.min_t);
      sqlite3_bind_int64(st, 3, c.max_t);
      sqlite3_bind_blob(st, 4, c.data.data(), static_cast<int>(c.data.size()), SQLITE_STATIC);
      sq_check(sqlite3_step(st), db, "chunk");
      sqlite3_reset(st);
    }
    sq_exec(db, "COMMIT");
  }
  sqlite3_finalize(st);
}

// Reads and decodes [mint, maxt] of one series; returns samples, adds blob bytes.
size_t sq_read(sqlite3_stmt* st, uint32_t ref, int64_t mint, int64_t maxt, size_t* bytes, double* sum) {
  sqlite3_bind_int64(st, 1, ref);
  sqlite3_bind_int64(st, 2, mint);
  sqlite3_bind_int64(st, 3, maxt);
  size_t n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(st, 0));
    size_t len = static_cast<size_t>(sqlite3_column_bytes(st, 0));
    *bytes += len;
    auto dec = ChunkDecoder::open(std::span<const uint8_t>(p, len));
    if (!dec) std::exit(2);
    if (dec->seek(mint)) {
      do {
        if (dec->at().t_ms > maxt) break;
        *sum += dec->at().v;
        ++n;
      } while (dec->next());
    }
  }
  sqlite3_reset(st);
  return n;
}
const char* kSqRange = "SELECT data FROM chunks WHERE series_ref=?1 AND max_t>=?2 AND min_t<=?3 ORDER BY max_t";

// ---------------------------------------------------------------- (B) own files
//
// DIR/series   append-only: [len varint][crc32 u32][ref varint, labels]   (new series only)
// DIR/chunks   append-only segment: per chunk [ref u32][min_t i64][max_t i64][len u32][crc32 u32][data]
//              (crc over the 24 header bytes before it and the data)
// DIR/index    append-only, one record per block cut, written after the segment is fdatasync'd:
//              [len varint][crc32 u32][min_t varint][n varint]{ref delta, offset delta, total len}...
// DIR/wal      per cycle [len varint][crc32 u32][t varint][n varint]{(ref delta << 2 | kind), payload}...
//              kind 0 value as in the previous cycle, 1 zigzag integer varint, 2 raw double

struct ChunkRef {
  int64_t min_t, max_t;
  uint64_t off;
  uint32_t len;
};

void own_append_record(std::string& out, const std::string& payload) {
  put_varint(out, payload.size());
  put_u32(out, crc(payload.data(), payload.size()));
  out += payload;
}

// Reads [len][crc][payload] records; stops at the first torn or corrupt one and returns its offset.
template <class F>
size_t own_scan_records(const std::string& buf, F&& f) {
  const auto* base = reinterpret_cast<const uint8_t*>(buf.data());
  const uint8_t *p = base, *end = base + buf.size();
  while (p < end) {
    const uint8_t* rec = p;
    uint64_t len;
    if (!get_varint(p, end, &len) || end - p < 4 || static_cast<uint64_t>(end - p - 4) < len) return rec - base;
    uint32_t c;
    std::memcpy(&c, p, 4);
    p += 4;
    if (crc(p, len) != c) return rec - base;
    f(p, p + len);
    p += len;
  }
  return buf.size();
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void own_write_series(const fs::path& dir, const Input& in) {
  std::string out;
  for (size_t r = 0; r < in.labels.size(); ++r) {
    std::string pl;
    put_varint(pl, r);
    pl += in.labels[r];
    own_append_record(out, pl);
  }
  int fd = ::open((dir / "series").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  write_all(fd, out);
  ::fdatasync(fd);
  ::close(fd);
}

void own_write_chunks(const fs::path& dir, const std::vector<Chunk>& chunks, size_t per_block) {
  int seg = ::open((dir / "chunks").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int idx = ::open((dir / "index").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  uint64_t off = 0;
  std::string buf, ib, rec;
  for (size_t i = 0; i < chunks.size(); i += per_block) {
    buf.clear();
    rec.clear();
    size_t e = std::min(chunks.size(), i + per_block);
    put_varint(rec, static_cast<uint64_t>(chunks[i].min_t));
    put_varint(rec, e - i);
    uint64_t prev_ref = 0, prev_off = off;
    for (size_t k = i; k < e; ++k) {
      const Chunk& c = chunks[k];
      size_t h = buf.size();
      uint32_t len = static_cast<uint32_t>(c.data.size());
      buf.append(reinterpret_cast<const char*>(&c.ref), 4);
      buf.append(reinterpret_cast<const char*>(&c.min_t), 8);
      buf.append(reinterpret_cast<const char*>(&c.max_t), 8);
      buf.append(reinterpret_cast<const char*>(&len), 4);
      uLong cc = crc32(0, reinterpret_cast<const Bytef*>(buf.data() + h), 24);
      cc = crc32(cc, c.data.data(), len);
      put_u32(buf, static_cast<uint32_t>(cc));
      buf.append(reinterpret_cast<const char*>(c.data.data()), len);
      put_varint(rec, c.ref - prev_ref);  // refs ascend within a block
      put_varint(rec, off - prev_off);
      put_varint(rec, 28 + len);
      prev_ref = c.ref;
      prev_off = off;
      off += 28 + len;
    }
    write_all(seg, buf);
    ::fdatasync(seg);  // chunks durable before the index points at them
    ib.clear();
    own_append_record(ib, rec);
    write_all(idx, ib);
    ::fdatasync(idx);
  }
  ::close(seg);
  ::close(idx);
}

struct OwnDb {
  std::vector<std::string> labels;
  std::vector<std::vector<ChunkRef>> refs;  // per series, ascending
  int seg_fd = -1;
  size_t torn_tail = 0;
};

// Open = read series + index (CRC-checked), truncate any segment tail the index does not cover.
OwnDb own_open(const fs::path& dir) {
  OwnDb db;
  std::string s = slurp(dir / "series");
  own_scan_records(s, [&](const uint8_t* p, const uint8_t* e) {
    uint64_t r = 0;
    get_varint(p, e, &r);
    if (db.labels.size() <= r) db.labels.resize(r + 1);
    db.labels[r].assign(reinterpret_cast<const char*>(p), e - p);
  });
  db.refs.resize(db.labels.size());
  std::string ix = slurp(dir / "index");
  uint64_t seg_end = 0;
  own_scan_records(ix, [&](const uint8_t* p, const uint8_t* e) {
    uint64_t mint = 0, n = 0, ref = 0, off = 0, d = 0, len = 0;
    get_varint(p, e, &mint);
    get_varint(p, e, &n);
    bool first = true;
    for (uint64_t k = 0; k < n; ++k) {
      get_varint(p, e, &d);
      ref += d;
      get_varint(p, e, &d);
      off = first ? seg_end + d : off + d;  // a block starts where the previous one ended
      first = false;
      get_varint(p, e, &len);
      if (ref < db.refs.size())
        db.refs[ref].push_back(
            {static_cast<int64_t>(mint), static_cast<int64_t>(mint) + kBlockMs - 1, off, static_cast<uint32_t>(len)});
      seg_end = std::max(seg_end, off + len);
    }
  });
  db.seg_fd = ::open((dir / "chunks").c_str(), O_RDWR);
  uint64_t sz = fsize(dir / "chunks");
  if (sz > seg_end) {
    db.torn_tail = sz - seg_end;
    if (::ftruncate(db.seg_fd, static_cast<off_t>(seg_end)) != 0) std::perror("ftruncate");
  }
  return db;
}

size_t own_read(const OwnDb& db, uint32_t ref, int64_t mint, int64_t maxt, size_t* bytes, double* sum,
                std::vector<uint8_t>& buf) {
  size_t n = 0;
  for (const ChunkRef& c : db.refs[ref]) {
    if (c.max_t < mint || c.min_t > maxt) continue;
    buf.resize(c.len);
    if (::pread(db.seg_fd, buf.data(), c.len, static_cast<off_t>(c.off)) != static_cast<ssize_t>(c.len)) std::exit(3);
    *bytes += c.len;
    uint32_t want;
    std::memcpy(&want, buf.data() + 24, 4);
    uLong cc = crc32(0, buf.data(), 24);
    cc = crc32(cc, buf.data() + 28, c.len - 28);
    if (cc != want) std::exit(4);
    auto dec = ChunkDecoder::open(std::span<const uint8_t>(buf.data() + 28, c.len - 28));
    if (!dec) std::exit(2);
    if (dec->seek(mint)) {
      do {
        if (dec->at().t_ms > maxt) break;
        *sum += dec->at().v;
        ++n;
      } while (dec->next());
    }
  }
  return n;
}

// One WAL record for a cycle of all series at second `sec`.
void wal_record(std::string& out, std::string& pl, const Input& in, int64_t sec, std::vector<double>& last) {
  pl.clear();
  put_varint(pl, static_cast<uint64_t>(kT0 + sec * 1000));
  put_varint(pl, in.labels.size());
  for (size_t r = 0; r < in.labels.size(); ++r) {
    double v = in.value(r, sec);
    uint64_t kind;
    if (v == last[r] && std::signbit(v) == std::signbit(last[r]))
      kind = 0;
    else if (v == std::trunc(v) && std::fabs(v) < 9e15)
      kind = 1;
    else
      kind = 2;
    put_varint(pl, (1u << 2) | kind);  // ref delta 1: every series, ascending
    if (kind == 1) {
      auto i = static_cast<int64_t>(v);
      put_varint(pl, (static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63));
    } else if (kind == 2) {
      pl.append(reinterpret_cast<const char*>(&v), 8);
    }
    last[r] = v;
  }
  own_append_record(out, pl);
}

// Replays a WAL into per-series chunk encoders (what a head would do); returns samples.
size_t wal_replay(const fs::path& p, size_t n_series, size_t* dropped_bytes) {
  std::string w = slurp(p);
  std::vector<ChunkEncoder> enc(n_series);
  std::vector<double> last(n_series, 0);
  size_t samples = 0;
  size_t good = own_scan_records(w, [&](const uint8_t* q, const uint8_t* e) {
    uint64_t t = 0, n = 0, x = 0;
    get_varint(q, e, &t);
    get_varint(q, e, &n);
    uint64_t ref = static_cast<uint64_t>(-1);
    for (uint64_t k = 0; k < n && q < e; ++k) {
      get_varint(q, e, &x);
      ref += x >> 2;
      double v = last[ref];
      if ((x & 3) == 1) {
        uint64_t z = 0;
        get_varint(q, e, &z);
        v = static_cast<double>(static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1)));
      } else if ((x & 3) == 2) {
        std::memcpy(&v, q, 8);
        q += 8;
      }
      last[ref] = v;
      (void)enc[ref].append(static_cast<int64_t>(t), v);
      ++samples;
    }
  });
  *dropped_bytes = w.size() - good;
  if (good < w.size()) {  // drop only the damaged tail
    int fd = ::open(p.c_str(), O_WRONLY);
    if (::ftruncate(fd, static_cast<off_t>(good)) != 0) std::perror("ftruncate");
    ::close(fd);
  }
  return samples;
}

// ---------------------------------------------------------------- report

struct Args {
  fs::path dir;
  const char* data = nullptr;
  size_t series = 1500;
  int days = 7;
  int fsync_cycles = 120;
  int recovery_cycles = 7200;
};

void report_line(const char* what, double v, const char* unit) {
  std::printf("| %s | %.6g %s |\n", what, v, unit);
}

int compare(const Args& a) {
  Input in;
  if (!a.data || !load_real(a.data, in)) synth(in);
  size_t n_src = in.patterns.size();
  replicate(in, a.series);
  const size_t S = in.labels.size();
  const int64_t blocks = a.days * 12;
  std::printf("data: %s; %zu source series -> %zu series x %d days at 1 s, %lld blocks of 2 h\n", in.source.c_str(),
              n_src, S, a.days, static_cast<long long>(blocks));

  // Encode every 2 h chunk (as the head would hand them over at each cut).
  Timer te;
  std::vector<Chunk> chunks;
  chunks.reserve(S * static_cast<size_t>(blocks));
  size_t samples = 0, chunk_bytes = 0;
  std::vector<size_t> ref_bytes(S, 0);
  for (int64_t b = 0; b < blocks; ++b) {
    for (size_t r = 0; r < S; ++r) {
      ChunkEncoder enc;
      int64_t s0 = b * 7200;
      for (int64_t s = s0; s < s0 + 7200; ++s) (void)enc.append(kT0 + s * 1000, in.value(r, s));
      chunks.push_back({static_cast<uint32_t>(r), kT0 + s0 * 1000, kT0 + (s0 + 7199) * 1000, enc.bytes()});
      samples += enc.num_samples();
      chunk_bytes += enc.bytes().size();
      ref_bytes[r] += enc.bytes().size();
    }
  }
  double spb = 1.0 / static_cast<double>(samples);
  std::printf("encoded %zu chunks, %zu samples, %zu chunk bytes (%.4f B/sample) in %.1f s (%.3g samples/s)\n\n",
              chunks.size(), samples, chunk_bytes, static_cast<double>(chunk_bytes) * spb, te.wall(),
              static_cast<double>(samples) / te.wall());
  const int64_t last_t = kT0 + (blocks * 7200 - 1) * 1000;
  // Week reads: the series with the most bytes (a noisy float) and the median one.
  std::vector<uint32_t> order(S);
  for (uint32_t r = 0; r < S; ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return ref_bytes[x] < ref_bytes[y]; });
  const std::pair<const char*, uint32_t> probes[] = {{"largest", order.back()}, {"median", order[S / 2]}};

  fs::remove_all(a.dir);
  fs::create_directories(a.dir / "sqlite");
  fs::create_directories(a.dir / "own");

  // ---- (A) SQLite
  std::printf("## (A) SQLite %s, WAL, synchronous=NORMAL\n\n| measure | value |\n|---|---:|\n", sqlite3_libversion());
  {
    fs::path p = a.dir / "sqlite" / "tsdb.db";
    sqlite3* db = sq_open(p);
    sq_exec(db, kSqSchema);
    sq_write_series(db, in);
    Timer t;
    sq_write_chunks(db, chunks, S);
    double w = t.wall(), c = t.cpu();
    Timer tc;
    sq_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    double ckw = tc.wall();
    report_line("bulk chunks: wall", w, "s");
    report_line("bulk chunks: samples/s per CPU-second", static_cast<double>(samples) / c, "");
    report_line("bulk chunks: samples/s wall", static_cast<double>(samples) / w, "");
    report_line("final checkpoint(TRUNCATE)", ckw, "s");
    std::map<std::string, uint64_t> by;
    sqlite3_stmt* st;
    if (sqlite3_prepare_v2(db, "SELECT name, SUM(pgsize), SUM(unused) FROM dbstat GROUP BY name", -1, &st, nullptr) ==
        SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        std::string n = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        by[n] = static_cast<uint64_t>(sqlite3_column_int64(st, 1));
        std::printf("| dbstat %s: bytes (unused) | %lld (%lld) |\n", n.c_str(),
                    static_cast<long long>(sqlite3_column_int64(st, 1)),
                    static_cast<long long>(sqlite3_column_int64(st, 2)));
      }
      sqlite3_finalize(st);
    } else {
      std::printf("| dbstat | not available |\n");
    }
    sqlite3_close(db);
    uint64_t total = fsize(p) + fsize(p.string() + "-wal") + fsize(p.string() + "-shm");
    uint64_t index = by["series"] + by["postings"] + by["chunks_ref_maxt"] + by["sqlite_schema"];
    report_line("file bytes total (db+wal+shm)", static_cast<double>(total), "");
    report_line("B/sample total", static_cast<double>(total) * spb, "");
    report_line("B/sample chunks table (blobs + rows + page slack)", static_cast<double>(by["chunks"]) * spb, "");
    report_line("B/sample index (series, postings, chunk index)", static_cast<double>(index) * spb, "");
    report_line("B/sample overhead over raw chunk bytes", static_cast<double>(total - chunk_bytes) * spb, "");

    // Reads: one series' week, all series' last hour; cold (fadvise DONTNEED), then warm.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 0) drop_cache(p);
      const char* tag = pass == 0 ? "cold" : "warm";
      Timer tr;
      sqlite3* rd = sq_open(p);
      sqlite3_stmt* q;
      sqlite3_prepare_v2(rd, kSqRange, -1, &q, nullptr);
      double sum = 0;
      for (auto [pname, probe] : probes) {
        size_t bytes = 0;
        size_t n = sq_read(q, probe, kT0, last_t, &bytes, &sum);
        double w1 = tr.wall();
        std::printf(
            "| read 1 series week, %s (%s, 1st incl. open): %zu samples, %zu blob bytes | %.2f ms (%.3g "
            "samples/s) |\n",
            pname, tag, n, bytes, w1 * 1e3, static_cast<double>(n) / w1);
        tr = Timer();
      }
      Timer th;
      size_t bytes2 = 0, n2 = 0;
      for (uint32_t r = 0; r < S; ++r) n2 += sq_read(q, r, last_t - 3600 * 1000 + 1, last_t, &bytes2, &sum);
      double w2 = th.wall();
      benchmark::DoNotOptimize(sum);
      std::printf("| read %zu series last hour (%s): %zu samples, %zu blob bytes | %.2f ms (%.3g samples/s) |\n", S,
                  tag, n2, bytes2, w2 * 1e3, static_cast<double>(n2) / w2);
      sqlite3_finalize(q);
      sqlite3_close(rd);
    }
  }

  // Per-cycle commits: S rows per 1 s cycle, one transaction each.
  auto sq_cycles = [&](const fs::path& p, const char* sync, int cycles, bool kill_at_end) {
    sqlite3* db = sq_open(p, sync);
    sq_exec(db, kSqSchema);
    sqlite3_stmt* st;
    sqlite3_prepare_v2(db, "INSERT INTO head_samples VALUES(?,?,?)", -1, &st, nullptr);
    Timer t;
    for (int s = 0; s < cycles; ++s) {
      sq_exec(db, "BEGIN");
      for (size_t r = 0; r < S; ++r) {
        sqlite3_bind_int64(st, 1, static_cast<int64_t>(r));
        sqlite3_bind_int64(st, 2, kT0 + s * 1000);
        sqlite3_bind_double(st, 3, in.value(r, s));
        sqlite3_step(st);
        sqlite3_reset(st);
      }
      sq_exec(db, "COMMIT");
    }
    if (kill_at_end) ::kill(::getpid(), SIGKILL);
    std::pair<double, double> r{t.wall(), t.cpu()};
    sqlite3_finalize(st);
    sqlite3_close(db);
    return r;
  };
  for (const char* sync : {"NORMAL", "FULL"}) {
    fs::path p = a.dir / "sqlite" / (std::string("cycles_") + sync + ".db");
    auto [w, c] = sq_cycles(p, sync, a.fsync_cycles, false);
    double n = static_cast<double>(S) * a.fsync_cycles;
    std::printf(
        "| per-cycle tx, synchronous=%s: %d cycles x %zu rows | %.3f ms/cycle, %.3g samples/s per CPU-s, "
        "%.1f B/sample on disk |\n",
        sync, a.fsync_cycles, S, w * 1e3 / a.fsync_cycles, n / c,
        static_cast<double>(fsize(p) + fsize(p.string() + "-wal")) / n);
  }
  // Recovery: a writer SIGKILLed after R cycles without closing; reopen + read the head rows back.
  {
    fs::path p = a.dir / "sqlite" / "kill.db";
    pid_t pid = fork();
    if (pid == 0) sq_cycles(p, "NORMAL", a.recovery_cycles, true);
    int stt;
    waitpid(pid, &stt, 0);
    uint64_t wal_b = fsize(p.string() + "-wal"), db_b = fsize(p);
    drop_cache(p);
    drop_cache(p.string() + "-wal");
    Timer t;
    sqlite3* db = sq_open(p);
    sqlite3_stmt* st;
    sqlite3_prepare_v2(db, "SELECT ref, t, v FROM head_samples ORDER BY rowid", -1, &st, nullptr);
    std::vector<ChunkEncoder> enc(S);
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      (void)enc[static_cast<size_t>(sqlite3_column_int64(st, 0))].append(sqlite3_column_int64(st, 1),
                                                                         sqlite3_column_double(st, 2));
      ++n;
    }
    sqlite3_finalize(st);
    double w = t.wall();
    sqlite3_close(db);
    std::printf(
        "| recovery after SIGKILL (%s): %d cycles, db %llu + wal %llu bytes; reopen + %zu samples into "
        "encoders | %.0f ms |\n",
        WIFSIGNALED(stt) ? "killed" : "not killed", a.recovery_cycles, static_cast<unsigned long long>(db_b),
        static_cast<unsigned long long>(wal_b), n, w * 1e3);
  }

  // ---- (B) own files
  std::printf("\n## (B) own files: chunk segment + index + WAL\n\n| measure | value |\n|---|---:|\n");
  {
    fs::path d = a.dir / "own";
    Timer t;
    own_write_series(d, in);
    own_write_chunks(d, chunks, S);
    double w = t.wall(), c = t.cpu();
    report_line("bulk chunks: wall", w, "s");
    report_line("bulk chunks: samples/s per CPU-second", static_cast<double>(samples) / c, "");
    report_line("bulk chunks: samples/s wall", static_cast<double>(samples) / w, "");
    uint64_t seg = fsize(d / "chunks"), ix = fsize(d / "index"), se = fsize(d / "series");
    report_line("file bytes total", static_cast<double>(seg + ix + se), "");
    report_line("B/sample total", static_cast<double>(seg + ix + se) * spb, "");
    report_line("B/sample segment (chunk bytes + 28 B record headers)", static_cast<double>(seg) * spb, "");
    report_line("B/sample index + series files", static_cast<double>(ix + se) * spb, "");
    report_line("B/sample overhead over raw chunk bytes", static_cast<double>(seg + ix + se - chunk_bytes) * spb, "");
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 0) {
        drop_cache(d / "chunks");
        drop_cache(d / "index");
        drop_cache(d / "series");
      }
      const char* tag = pass == 0 ? "cold" : "warm";
      Timer to;
      OwnDb db = own_open(d);
      double wo = to.wall();
      std::vector<uint8_t> buf;
      Timer tr;
      double sum = 0;
      std::printf("| open (series + index into memory, %s) | %.2f ms |\n", tag, wo * 1e3);
      for (auto [pname, probe] : probes) {
        size_t bytes = 0;
        size_t n = own_read(db, probe, kT0, last_t, &bytes, &sum, buf);
        double w1 = tr.wall();
        std::printf("| read 1 series week, %s (%s, excl. open): %zu samples, %zu bytes | %.2f ms (%.3g samples/s) |\n",
                    pname, tag, n, bytes, w1 * 1e3, static_cast<double>(n) / w1);
        tr = Timer();
      }
      Timer th;
      size_t bytes2 = 0, n2 = 0;
      for (uint32_t r = 0; r < S; ++r) n2 += own_read(db, r, last_t - 3600 * 1000 + 1, last_t, &bytes2, &sum, buf);
      double w2 = th.wall();
      benchmark::DoNotOptimize(sum);
      std::printf("| read %zu series last hour (%s): %zu samples, %zu bytes | %.2f ms (%.3g samples/s) |\n", S, tag, n2,
                  bytes2, w2 * 1e3, static_cast<double>(n2) / w2);
      ::close(db.seg_fd);
    }
  }
  // Per-cycle WAL: one CRC'd record per cycle, fdatasync per cycle (= per second at 1 s cycles).
  auto own_cycles = [&](const fs::path& p, int cycles, bool sync, bool kill_at_end) {
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    std::vector<double> last(S, 0);
    std::string rec, pl;
    Timer t;
    for (int s = 0; s < cycles; ++s) {
      rec.clear();
      wal_record(rec, pl, in, s, last);
      write_all(fd, rec);
      if (sync) ::fdatasync(fd);
    }
    if (kill_at_end) {
      rec.clear();
      wal_record(rec, pl, in, cycles, last);
      write_all(fd, rec.substr(0, rec.size() / 2));  // torn tail
      ::kill(::getpid(), SIGKILL);
    }
    std::pair<double, double> r{t.wall(), t.cpu()};
    ::close(fd);
    return r;
  };
  {
    fs::path p = a.dir / "own" / "wal_cycles";
    auto [w, c] = own_cycles(p, a.fsync_cycles, true, false);
    double n = static_cast<double>(S) * a.fsync_cycles;
    std::printf(
        "| per-cycle WAL record + fdatasync: %d cycles x %zu samples | %.3f ms/cycle, %.3g samples/s per "
        "CPU-s, %.2f B/sample in the WAL |\n",
        a.fsync_cycles, S, w * 1e3 / a.fsync_cycles, n / c, static_cast<double>(fsize(p)) / n);
  }
  {
    fs::path p = a.dir / "own" / "wal_kill";
    pid_t pid = fork();
    if (pid == 0) own_cycles(p, a.recovery_cycles, false, true);
    int stt;
    waitpid(pid, &stt, 0);
    uint64_t wal_b = fsize(p);
    drop_cache(p);
    Timer t;
    OwnDb db = own_open(a.dir / "own");
    size_t dropped = 0;
    size_t n = wal_replay(p, S, &dropped);
    double w = t.wall();
    ::close(db.seg_fd);
    std::printf(
        "| recovery after SIGKILL (%s): %d cycles + torn record, wal %llu bytes; open index + replay %zu "
        "samples into encoders, %zu torn bytes dropped | %.0f ms |\n",
        WIFSIGNALED(stt) ? "killed" : "not killed", a.recovery_cycles, static_cast<unsigned long long>(wal_b), n,
        dropped, w * 1e3);
  }
  std::printf("\nmax RSS of this process: %ld KiB (holds all encoded chunks in memory)\n", max_rss_kb());
  return 0;
}

// ---------------------------------------------------------------- micro-benchmarks

const Input& small_input() {
  static Input in = [] {
    Input i;
    synth(i);
    replicate(i, 1500);
    return i;
  }();
  return in;
}

void BM_SqliteCycleTx(benchmark::State& state) {
  const Input& in = small_input();
  fs::path p = fs::temp_directory_path() / "llmon_persist_bm.db";
  fs::remove(p);
  fs::remove(p.string() + "-wal");
  sqlite3* db = sq_open(p, state.range(0) ? "FULL" : "NORMAL");
  sq_exec(db, kSqSchema);
  sqlite3_stmt* st;
  sqlite3_prepare_v2(db, "INSERT INTO head_samples VALUES(?,?,?)", -1, &st, nullptr);
  int64_t s = 0;
  for (auto _ : state) {
    sq_exec(db, "BEGIN");
    for (size_t r = 0; r < in.labels.size(); ++r) {
      sqlite3_bind_int64(st, 1, static_cast<int64_t>(r));
      sqlite3_bind_int64(st, 2, kT0 + s * 1000);
      sqlite3_bind_double(st, 3, in.value(r, s));
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sq_exec(db, "COMMIT");
    ++s;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(in.labels.size()));
  sqlite3_finalize(st);
  sqlite3_close(db);
}
BENCHMARK(BM_SqliteCycleTx)->ArgName("full_sync")->Arg(0)->Arg(1)->UseRealTime();

void BM_OwnWalCycle(benchmark::State& state) {
  const Input& in = small_input();
  fs::path p = fs::temp_directory_path() / "llmon_persist_bm.wal";
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  std::vector<double> last(in.labels.size(), 0);
  std::string rec, pl;
  int64_t s = 0;
  for (auto _ : state) {
    rec.clear();
    wal_record(rec, pl, in, s++, last);
    write_all(fd, rec);
    if (state.range(0)) ::fdatasync(fd);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(in.labels.size()));
  ::close(fd);
  fs::remove(p);
}
BENCHMARK(BM_OwnWalCycle)->ArgName("fdatasync")->Arg(0)->Arg(1)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--compare") == 0) {
    Args a;
    a.dir = argv[2];
    for (int i = 3; i + 1 < argc; i += 2) {
      std::string k = argv[i];
      if (k == "--data")
        a.data = argv[i + 1];
      else if (k == "--series")
        a.series = std::stoul(argv[i + 1]);
      else if (k == "--days")
        a.days = std::stoi(argv[i + 1]);
      else if (k == "--fsync-cycles")
        a.fsync_cycles = std::stoi(argv[i + 1]);
      else if (k == "--recovery-cycles")
        a.recovery_cycles = std::stoi(argv[i + 1]);
    }
    return compare(a);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
