// The streaming trace parser (parser.h; the format: docs/trace.md). Each unit
// (one event, or one top-level key and its value) is parsed from the buffer;
// when a unit runs off the end of the buffer the parser keeps the unit's
// bytes, reads more and parses the unit again. NeedMore and SyntaxError are
// internal exceptions; parse_trace turns them into a Status.
#include "trace/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmon::trace {

Expected<size_t> StringSource::read(char* buf, size_t n) {
  size_t k = std::min({n, text_.size(), max_read_});
  std::memcpy(buf, text_.data(), k);
  text_.remove_prefix(k);
  return k;
}

namespace {

struct NeedMore {};
struct SyntaxError {
  uint64_t offset;
  std::string what;
};

// Bytes after the end of the data in the buffer, all '"': every scanning loop
// (whitespace, digits, the string scanner) stops at them without a bounds
// check of its own, and the 8-byte digit reads never touch stale bytes. A
// scan that stops at end_ then throws NeedMore as before.
constexpr size_t kPad = InputView::kInputPadding;
// A mapped input is released behind the parser in steps of this many bytes.
constexpr size_t kReleaseBytes = 16u << 20;

// The first '"' or '\\' at or after p; the padding guarantees one. SSE2
// (every x86-64 has it): 16 bytes at a time.
const char* find_quote_or_backslash(const char* p) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (;;) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (mask) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#else
  while (*p != '"' && *p != '\\') ++p;
  return p;
#endif
}

// The first of " { } [ ] at or after p (the padding guarantees one).
const char* find_structural(const char* p) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
  const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
  for (;;) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i m =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, ob)),
                     _mm_or_si128(_mm_cmpeq_epi8(v, cb), _mm_or_si128(_mm_cmpeq_epi8(v, os), _mm_cmpeq_epi8(v, cs))));
    int mask = _mm_movemask_epi8(m);
    if (mask) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#else
  while (*p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
#endif
}

// The bytes a JSON number can hold (skip_num).
struct NumberChars {
  bool yes[256] = {};
  constexpr NumberChars() {
    for (char c : {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', '.', 'e', 'E'})
      yes[static_cast<unsigned char>(c)] = true;
  }
};
constexpr NumberChars kNumberChars;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Whitespace from p on: the first byte that is not a space (the padding
// stops it). A plain loop: Kineto's runs are short (one space, or a newline
// and an indent), and a 16-byte SSE2 scan measured 50 % slower overall.
const char* skip_space(const char* p) {
  while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') ++p;
  return p;
}

// k equals the literal: a fixed-size memcmp, which the compiler inlines
// (string_view's == calls memcmp with a run-time length).
template <size_t N>
bool is(std::string_view k, const char (&lit)[N]) {
  return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

// 8 bytes (little-endian load) that are all ASCII digits, and their value
// (the well-known SWAR conversion of fast_float / simdjson).
uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
bool eight_digits(uint64_t w) {
  return ((w & 0xF0F0F0F0F0F0F0F0ull) | (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
         0x3333333333333333ull;
}
uint64_t eight_digits_value(uint64_t w) {
  w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  return ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

struct Num {
  int64_t i = kAbsent;      // truncated toward zero; kAbsent when beyond int64
  int64_t milli = kAbsent;  // the value x 1000, truncated (ns from µs); kAbsent when beyond int64
};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(ByteSource& src, EventSink& sink, TraceHeader& header, const ParseOptions& opts)
      : src_(src), sink_(sink), header_(header), opts_(opts) {
    if ((view_ = src_.view()) != nullptr) {  // parsed in place; nothing is ever read
      origin_ = released_ = p_ = view_->data;
      end_ = p_ + view_->size;
      read_total_ = view_->size;
      eof_ = true;
    } else {
      buf_.resize(opts_.chunk_bytes + kPad);
      origin_ = p_ = end_ = buf_.data();
    }
    pad();
  }

  Status run(ParseStats* stats) {
    Status st;
    try {
      parse_document();
    } catch (const SyntaxError& e) {
      st = Status::error("byte " + std::to_string(e.offset) + ": " + e.what);
    }
    if (stats) {
      stats->bytes = read_total_;
      stats->events = events_;
    }
    return st;
  }

 private:
  uint64_t abs(const char* p) const { return base_ + static_cast<uint64_t>(p - origin_); }
  [[noreturn]] void fail(const std::string& what) const { throw SyntaxError{abs(p_), what}; }

  size_t capacity() const { return buf_.size() - kPad; }
  void pad() { std::memset(const_cast<char*>(end_), '"', kPad); }

  // Keeps [p_, end_), reads more after it. False at the end of the input.
  bool refill() {
    if (view_) return false;
    size_t keep = static_cast<size_t>(end_ - p_);
    base_ += static_cast<uint64_t>(p_ - buf_.data());
    std::memmove(buf_.data(), p_, keep);
    if (capacity() - keep < opts_.chunk_bytes / 2) {
      if (keep > opts_.max_value_bytes)
        throw SyntaxError{base_, "a single value is larger than " + std::to_string(opts_.max_value_bytes) + " bytes"};
      buf_.resize(keep + opts_.chunk_bytes + kPad);
    }
    origin_ = p_ = buf_.data();
    end_ = p_ + keep;
    pad();
    if (eof_) return false;
    auto n = src_.read(buf_.data() + keep, capacity() - keep);
    if (!n) throw SyntaxError{base_ + keep, n.error()};
    if (*n == 0) {
      eof_ = true;
      return false;
    }
    read_total_ += *n;
    end_ += *n;
    pad();
    return true;
  }

  // Runs f from the current position; on NeedMore reads more and runs it again.
  template <typename F>
  void unit(const char* what, F&& f) {
    for (;;) {
      const char* start = p_;
      uint64_t start_abs = abs(start);
      try {
        f();
        return;
      } catch (const NeedMore&) {
        p_ = start;
        // At the end of the input f runs once more with eof_ set, so that it
        // can accept an end where one is allowed.
        if (eof_)
          throw SyntaxError{abs(end_), std::string("truncated: the input ends inside ") + what +
                                           " that starts at byte " + std::to_string(start_abs)};
        refill();
      }
    }
  }

  // True when only whitespace is left before the end of the input.
  bool at_end() {
    for (;;) {
      p_ = skip_space(p_);
      if (p_ < end_) return false;
      if (!refill()) return true;
    }
  }

  void ws() {
    p_ = skip_space(p_);
    if (p_ >= end_) throw NeedMore{};
  }
  void expect(char c) {
    ws();
    if (*p_ != c) fail(std::string("expected '") + c + "', found '" + printable(*p_) + "'");
    ++p_;
  }
  static std::string printable(char c) {
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) return std::string(1, c);
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned char>(c));
    return b;
  }

  std::string& scratch() {
    if (scratch_i_ == kScratch) scratch_i_ = 0;
    std::string& s = scratch_[scratch_i_++];
    s.clear();
    return s;
  }

  // A string at p_ (after whitespace). lenient: a quote not followed by , } ] :
  // is taken as an unescaped quote inside the string (old Kineto).
  std::string_view str(bool lenient) {
    ws();
    if (*p_ != '"') fail("expected a string");
    const char* s = p_ + 1;
    const char* from = s;
    for (;;) {
      const char* q = find_quote_or_backslash(from);
      if (q >= end_) throw NeedMore{};
      if (*q == '\\') return str_escaped(s, lenient);
      p_ = q + 1;
      if (!lenient || string_ends_here()) return {s, static_cast<size_t>(q - s)};
      from = q + 1;
    }
  }
  // After a closing quote: does the next non-space byte end a value?
  bool string_ends_here() {
    const char* t = skip_space(p_);
    if (t >= end_) throw NeedMore{};
    return *t == ',' || *t == '}' || *t == ']' || *t == ':';
  }
  std::string_view str_escaped(const char* s, bool lenient) {
    std::string& out = scratch();
    const char* q = s;
    for (;;) {
      if (q >= end_) throw NeedMore{};
      char c = *q;
      if (c == '"') {
        p_ = q + 1;
        if (!lenient || string_ends_here()) return out;
        out += '"';
        ++q;
        continue;
      }
      if (c != '\\') {
        out += c;
        ++q;
        continue;
      }
      if (q + 1 >= end_) throw NeedMore{};
      char e = q[1];
      q += 2;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4(q);
          q += 4;
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (q + 6 > end_) throw NeedMore{};
            if (q[0] == '\\' && q[1] == 'u') {
              uint32_t lo = hex4(q + 2);
              if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
              } else {
                cp = 0xFFFD;
              }
            } else {
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            cp = 0xFFFD;
          }
          append_utf8(out, cp);
          break;
        }
        default:
          p_ = q - 1;
          fail(std::string("invalid escape '\\") + printable(e) + "' in a string");
      }
    }
  }
  uint32_t hex4(const char* q) {
    if (q + 4 > end_) throw NeedMore{};
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = q[k];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else {
        p_ = q + k;
        fail("invalid \\u escape in a string");
      }
    }
    return v;
  }

  Num num() {
    ws();
    const char* s = p_;
    const char* q = p_;
    bool neg = false;
    if (*q == '-') {
      neg = true;
      ++q;
    }
    const char* ds = q;
    uint64_t ip = 0;
    // Eight digits at a time while they come (timestamps have 13 to 16);
    // the padding makes the loads safe and stops them at end_.
    for (int k = 0; k < 2; ++k) {
      uint64_t w = load8(q);
      if (!eight_digits(w)) break;
      ip = ip * 100000000u + eight_digits_value(w);
      q += 8;
    }
    while (is_digit(*q)) {
      if (q - ds < 19) ip = ip * 10 + static_cast<uint64_t>(*q - '0');
      ++q;
    }
    if (q >= end_) throw NeedMore{};
    int nd = static_cast<int>(std::min<ptrdiff_t>(q - ds, 1000));
    if (nd == 0) fail("expected a number");
    uint64_t f3 = 0;  // the first three decimals
    int fd = 0;
    bool exp = false;
    if (*q == '.') {
      ++q;
      while (is_digit(*q)) {
        if (fd < 3) {
          f3 = f3 * 10 + static_cast<uint64_t>(*q - '0');
          ++fd;
        }
        ++q;
      }
      if (q >= end_) throw NeedMore{};
    }
    for (int k = fd; k < 3; ++k) f3 *= 10;
    if (*q == 'e' || *q == 'E') {
      exp = true;
      ++q;
      if (*q == '+' || *q == '-') ++q;
      while (is_digit(*q)) ++q;
      if (q >= end_) throw NeedMore{};
    }
    p_ = q;
    Num n;
    if (!exp) {
      bool fits = nd < 19 || (nd == 19 && ip <= static_cast<uint64_t>(INT64_MAX));
      if (fits) n.i = neg ? -static_cast<int64_t>(ip) : static_cast<int64_t>(ip);
      if (nd <= 16 && ip < 9223372036854774ull) {
        int64_t m = static_cast<int64_t>(ip * 1000 + f3);
        n.milli = neg ? -m : m;
      }
      return n;
    }
    double d = 0;
    if (std::from_chars(s, q, d).ec != std::errc()) return n;  // out of double's range
    if (std::fabs(d) < 9.2e18) n.i = static_cast<int64_t>(d);
    if (std::fabs(d) < 9.2e15) n.milli = static_cast<int64_t>(d * 1000);
    return n;
  }

  // Skips a number without converting it (unknown args): the bytes a
  // number can hold; an ill-formed one is accepted, as skip() does with
  // nested values.
  void skip_num() {
    const char* q = p_ + (*p_ == '-');
    if (!is_digit(*q)) {
      if (q >= end_) throw NeedMore{};
      fail("expected a number");
    }
    while (kNumberChars.yes[static_cast<unsigned char>(*q)]) ++q;
    if (q >= end_) throw NeedMore{};
    p_ = q;
  }

  void literal() {
    ws();
    const char* word = *p_ == 't' ? "true" : *p_ == 'f' ? "false" : *p_ == 'n' ? "null" : nullptr;
    if (!word) fail(std::string("unexpected '") + printable(*p_) + "'");
    size_t len = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < len) throw NeedMore{};
    if (std::memcmp(p_, word, len) != 0) fail(std::string("unexpected '") + printable(*p_) + "'");
    p_ += len;
  }

  // Skips one value of any kind (nested values are skipped without checking
  // their structure beyond brackets and strings).
  void skip() {
    ws();
    char c = *p_;
    if (c == '"') {
      str(true);
      return;
    }
    if (c == '-' || is_digit(c)) {
      skip_num();
      return;
    }
    if (c != '{' && c != '[') {
      literal();
      return;
    }
    int depth = 0;
    const char* q = p_;
    for (;;) {
      q = find_structural(q);
      if (q >= end_) throw NeedMore{};
      char k = *q;
      if (k == '"') {
        ++q;
        for (;;) {
          const char* e = find_quote_or_backslash(q);
          if (e >= end_) throw NeedMore{};
          if (*e == '"') {
            q = e + 1;
            break;
          }
          q = e + 2;  // an escape: the escaped byte is never the string's end
          if (q > end_) throw NeedMore{};
        }
        continue;
      }
      if (k == '{' || k == '[')
        ++depth;
      else if (--depth == 0) {
        p_ = q + 1;
        return;
      }
      ++q;
    }
  }

  bool next_is(char c) {
    ws();
    return *p_ == c;
  }
  // After a member: true when another follows, false at the closing bracket.
  bool more(char close, const char* where) {
    ws();
    if (*p_ == ',') {
      ++p_;
      return true;
    }
    if (*p_ == close) {
      ++p_;
      return false;
    }
    fail(std::string("expected ',' or '") + close + "' in " + where + ", found '" + printable(*p_) + "'");
  }

  void int_field(int64_t& out, RawEvent& e) {
    ws();
    if (*p_ == '-' || is_digit(*p_)) {
      Num n = num();
      out = n.i;
      if (n.i == kAbsent) e.overflowed = true;
    } else {
      skip();
    }
  }
  void time_field(int64_t& out, RawEvent& e) {
    ws();
    if (*p_ == '-' || is_digit(*p_)) {
      Num n = num();
      out = n.milli;
      if (n.milli == kAbsent) e.overflowed = true;
    } else {
      skip();
    }
  }
  // A JSON number as a double (from_chars over the token num() consumed).
  void double_field(double& out) {
    ws();
    if (*p_ == '-' || is_digit(*p_)) {
      const char* start = p_;
      num();
      double v = 0;
      auto r = std::from_chars(start, p_, v);
      if (r.ec == std::errc()) out = v;
    } else {
      skip();
    }
  }
  void str_field(std::string_view& out) {
    if (next_is('"'))
      out = str(true);
    else
      skip();
  }
  void id_field(int64_t& num_out, std::string_view& text_out, RawEvent& e) {
    if (next_is('"'))
      text_out = str(true);
    else
      int_field(num_out, e);
  }

  void args(RawEvent& e) {
    if (!next_is('{')) {
      skip();
      return;
    }
    ++p_;
    if (next_is('}')) {
      ++p_;
      return;
    }
    do {
      std::string_view k = str(false);
      expect(':');
      if (is(k, "stream"))
        int_field(e.stream, e);
      else if (is(k, "correlation"))
        int_field(e.correlation, e);
      else if (is(k, "External id"))
        int_field(e.external_id, e);
      else if (is(k, "device"))
        int_field(e.device, e);
      else if (is(k, "Collective name"))
        str_field(e.collective);
      else if (is(k, "name"))
        str_field(e.arg_name);
      else if (k == "bytes")
        int_field(e.bytes, e);
      else if (k == "memory bandwidth (GB/s)")
        double_field(e.memory_gbps);
      else if (k == "In msg nelems")
        int_field(e.in_nelems, e);
      else if (k == "Process Group Name")
        str_field(e.process_group);
      else
        skip();
    } while (more('}', "args"));
  }

  void event() {
    RawEvent e;
    ws();
    e.offset = abs(p_);
    if (*p_ != '{') fail("expected an event object");
    ++p_;
    scratch_i_ = 0;
    if (next_is('}')) {
      ++p_;
    } else {
      do {
        std::string_view k = str(false);
        expect(':');
        if (is(k, "ph")) {
          std::string_view ph;
          str_field(ph);
          e.ph = ph.empty() ? 0 : ph[0];
        } else if (is(k, "name"))
          str_field(e.name);
        else if (is(k, "ts"))
          time_field(e.ts, e);
        else if (is(k, "dur"))
          time_field(e.dur, e);
        else if (is(k, "cat"))
          str_field(e.cat);
        else if (is(k, "pid"))
          id_field(e.pid, e.pid_text, e);
        else if (is(k, "tid"))
          id_field(e.tid, e.tid_text, e);
        else if (is(k, "args"))
          args(e);
        else if (is(k, "id")) {
          std::string_view text;
          id_field(e.id, text, e);
        } else if (is(k, "bp"))
          str_field(e.bp);
        else
          skip();
      } while (more('}', "an event"));
    }
    ++events_;
    sink_.on_event(e);
  }

  // A view's bytes before the current unit are done with.
  void release_behind() {
    if (!view_ || static_cast<size_t>(p_ - released_) < kReleaseBytes) return;
    size_t off = static_cast<size_t>(p_ - origin_) & ~size_t{4095};
    view_->release(off);
    released_ = origin_ + off;
  }

  void events(bool top_level_array) {
    bool first = true;
    for (;;) {
      release_behind();
      if (top_level_array && at_end()) return;  // Chrome allows a missing ']'
      bool done = false;
      unit("an event", [&] {
        ws();
        if (*p_ == ']') {
          ++p_;
          done = true;
          return;
        }
        if (!first) {
          if (*p_ != ',') fail("expected ',' or ']' after an event, found '" + printable(*p_) + "'");
          ++p_;
          if (top_level_array) {
            p_ = skip_space(p_);
            if (p_ >= end_ && eof_) {  // a trailing comma, then the end
              done = true;
              return;
            }
            ws();
            if (*p_ == ']') {  // trailing comma before the end
              ++p_;
              done = true;
              return;
            }
          }
        }
        event();
      });
      if (done) return;
      first = false;
    }
  }

  void distributed_info() {
    if (!next_is('{')) {
      skip();
      return;
    }
    ++p_;
    if (next_is('}')) {
      ++p_;
      return;
    }
    RawEvent dummy;
    do {
      std::string_view k = str(false);
      expect(':');
      if (is(k, "rank"))
        int_field(header_.rank, dummy);
      else if (is(k, "world_size"))
        int_field(header_.world_size, dummy);
      else if (is(k, "backend") && next_is('"'))
        header_.backend = std::string(str(true));
      else
        skip();
    } while (more('}', "distributedInfo"));
  }

  void device_properties() {
    if (!next_is('[')) {
      skip();
      return;
    }
    ++p_;
    std::vector<std::string> names;
    if (next_is(']')) {
      ++p_;
    } else {
      do {
        if (!next_is('{')) {
          skip();
          continue;
        }
        ++p_;
        std::string name;
        if (next_is('}')) {
          ++p_;
        } else {
          do {
            std::string_view k = str(false);
            expect(':');
            if (is(k, "name") && next_is('"'))
              name = std::string(str(true));
            else
              skip();
          } while (more('}', "deviceProperties"));
        }
        names.push_back(std::move(name));
      } while (more(']', "deviceProperties"));
    }
    header_.device_names = std::move(names);
  }

  void parse_document() {
    bool is_array = false;
    unit("the document", [&] {
      ws();
      if (*p_ == '[')
        is_array = true;
      else if (*p_ != '{')
        fail("expected '{' or '[' at the start of a trace, found '" + printable(*p_) + "'");
      ++p_;
    });
    header_.array_format = is_array;
    if (is_array) {
      events(true);
    } else {
      bool first = true;
      for (;;) {
        bool done = false, trace_events = false;
        unit("a top-level value", [&] {
          ws();
          if (*p_ == '}') {
            ++p_;
            done = true;
            return;
          }
          if (!first) {
            if (*p_ != ',') fail("expected ',' or '}' at the top level, found '" + printable(*p_) + "'");
            ++p_;
          }
          scratch_i_ = 0;
          std::string_view k = str(false);
          expect(':');
          if (is(k, "traceEvents")) {
            expect('[');
            trace_events = true;
          } else if (is(k, "displayTimeUnit") && next_is('"')) {
            header_.display_time_unit = std::string(str(true));
          } else if (is(k, "traceName") && next_is('"')) {
            header_.trace_name = std::string(str(true));
          } else if (is(k, "schemaVersion")) {
            RawEvent dummy;
            int_field(header_.schema_version, dummy);
          } else if (is(k, "distributedInfo")) {
            distributed_info();
          } else if (is(k, "deviceProperties")) {
            device_properties();
          } else {
            skip();
          }
        });
        if (done) break;
        first = false;
        if (trace_events) events(false);
      }
    }
    if (!at_end()) fail("unexpected bytes after the end of the trace");
  }

  static constexpr int kScratch = 8;
  ByteSource& src_;
  EventSink& sink_;
  TraceHeader& header_;
  ParseOptions opts_;
  std::string buf_;
  InputView* view_ = nullptr;     // the input in place of buf_
  const char* origin_ = nullptr;  // buf_.data() or view_->data: byte base_ of the input
  const char* released_ = nullptr;
  const char* p_;
  const char* end_;
  uint64_t base_ = 0;
  uint64_t read_total_ = 0;
  uint64_t events_ = 0;
  bool eof_ = false;
  std::string scratch_[kScratch];
  int scratch_i_ = 0;
};

}  // namespace

Status parse_trace(ByteSource& src, EventSink& sink, TraceHeader& header, ParseStats* stats, const ParseOptions& opts) {
  Parser p(src, sink, header, opts);
  return p.run(stats);
}

}  // namespace llmon::trace
