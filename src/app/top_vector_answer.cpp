#include "app/top_vector_answer.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "go/utf8.h"

namespace llmon::app {
namespace {

// A pull reader over the answer: strict JSON (RFC 8259), nesting bounded,
// strings without escapes read in place. Every reader returns false on
// invalid input with `error` saying what and where.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::string error;

  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool at_end() {
    ws();
    return i_ == s_.size();
  }
  // The next significant byte (0 at the end), not consumed.
  char peek() {
    ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool eat(char c) {
    if (peek() != c) return fail(std::string("expected '") + c + "'");
    ++i_;
    return true;
  }
  // Object members: call first() after '{' was eaten, then next() after each
  // value; both read the key and its ':' and say whether there is a member.
  bool first_member(std::string_view& key, bool& more) {
    if (peek() == '}') {
      ++i_;
      more = false;
      return true;
    }
    more = true;
    return member_key(key);
  }
  bool next_member(std::string_view& key, bool& more) {
    char c = peek();
    if (c == '}') {
      ++i_;
      more = false;
      return true;
    }
    if (c != ',') return fail("expected ',' or '}'");
    ++i_;
    more = true;
    return member_key(key);
  }
  // Array elements, the same way.
  bool first_element(bool& more) {
    more = peek() != ']';
    if (!more) ++i_;
    return true;
  }
  bool next_element(bool& more) {
    char c = peek();
    if (c == ']') {
      ++i_;
      more = false;
      return true;
    }
    if (c != ',') return fail("expected ',' or ']'");
    ++i_;
    more = true;
    return true;
  }
  // A string: in place when it has no escapes, else decoded into scratch.
  bool string(std::string_view& out, std::string& scratch) {
    if (peek() != '"') return fail("expected a string");
    const size_t start = ++i_;
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        out = s_.substr(start, i_ - start);
        ++i_;
        return true;
      }
      if (c == '\\') return decode(start, out, scratch);
      if (c < 0x20) return fail("control character in a string");
      ++i_;
    }
    return fail("unterminated string");
  }
  bool skip_value(int depth = 0) {
    if (depth > 64) return fail("nested too deeply");
    std::string_view v;
    switch (peek()) {
      case '"':
        return string(v, skip_);
      case '{': {
        ++i_;
        bool more = false;
        if (!first_member(v, more)) return false;
        while (more)
          if (!skip_value(depth + 1) || !next_member(v, more)) return false;
        return true;
      }
      case '[': {
        ++i_;
        bool more = false;
        first_element(more);
        while (more)
          if (!skip_value(depth + 1) || !next_element(more)) return false;
        return true;
      }
      case 't':
        return word("true");
      case 'f':
        return word("false");
      case 'n':
        return word("null");
      default:
        return number();
    }
  }

 private:
  bool fail(const std::string& what) {
    if (error.empty()) error = what + " at byte " + std::to_string(i_);
    return false;
  }
  bool member_key(std::string_view& key) {
    if (!string(key, key_)) return false;
    return eat(':');
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return fail("invalid literal");
    i_ += w.size();
    return true;
  }
  // RFC 8259's number grammar.
  bool number() {
    const size_t start = i_;
    auto digits = [&] {
      size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ > d;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else if (!digits())
      return i_ = start, fail("expected a value");
    if (i_ < s_.size() && s_[i_] == '.' && (++i_, !digits())) return fail("invalid number");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) return fail("invalid number");
    }
    return true;
  }
  int hex4() {
    if (i_ + 4 > s_.size()) return -1;
    int v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_ + static_cast<size_t>(k)];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    i_ += 4;
    return v;
  }
  // The rest of a string with escapes, from `start` (after the quote).
  bool decode(size_t start, std::string_view& out, std::string& scratch) {
    scratch.assign(s_.substr(start, i_ - start));
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        out = scratch;
        return true;
      }
      if (c < 0x20) return fail("control character in a string");
      if (c != '\\') {
        scratch += static_cast<char>(c);
        ++i_;
        continue;
      }
      if (++i_ >= s_.size()) break;
      char e = s_[i_++];
      switch (e) {
        case '"':
          scratch += '"';
          break;
        case '\\':
          scratch += '\\';
          break;
        case '/':
          scratch += '/';
          break;
        case 'b':
          scratch += '\b';
          break;
        case 'f':
          scratch += '\f';
          break;
        case 'n':
          scratch += '\n';
          break;
        case 'r':
          scratch += '\r';
          break;
        case 't':
          scratch += '\t';
          break;
        case 'u': {
          int u = hex4();
          if (u < 0) return fail("invalid \\u escape");
          if (u >= 0xD800 && u <= 0xDBFF) {  // a high surrogate: its low half must follow
            if (i_ + 2 > s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u') return fail("lone surrogate");
            i_ += 2;
            int lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("lone surrogate");
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
          } else if (u >= 0xDC00 && u <= 0xDFFF) {
            return fail("lone surrogate");
          }
          go::append_utf8(scratch, u);
          break;
        }
        default:
          --i_;
          return fail("invalid escape");
      }
    }
    return fail("unterminated string");
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string key_, skip_;
};

// The series of data.result, one at a time, into the snapshot's families.
class VectorReader {
 public:
  VectorReader(std::string_view body, model::Snapshot& snap) : r_(body), snap_(snap) {}

  Status read() {
    if (!root()) return Status::error("not JSON: " + r_.error);
    if (!r_.at_end()) return Status::error("not JSON: trailing bytes");
    return Status::ok();
  }

 private:
  bool root() {
    if (!r_.eat('{')) return false;
    std::string_view key;
    bool more = false;
    if (!r_.first_member(key, more)) return false;
    while (more) {
      if (!(key == "data" && r_.peek() == '{' ? data() : r_.skip_value())) return false;
      if (!r_.next_member(key, more)) return false;
    }
    return true;
  }
  bool data() {
    r_.eat('{');
    std::string_view key;
    bool more = false;
    if (!r_.first_member(key, more)) return false;
    while (more) {
      if (!(key == "result" && r_.peek() == '[' ? result() : r_.skip_value())) return false;
      if (!r_.next_member(key, more)) return false;
    }
    return true;
  }
  bool result() {
    r_.eat('[');
    bool more = false;
    r_.first_element(more);
    while (more) {
      if (!(r_.peek() == '{' ? element() : r_.skip_value())) return false;
      if (!r_.next_element(more)) return false;
    }
    return true;
  }
  bool element() {
    r_.eat('{');
    name_.clear();
    labels_.clear();
    has_value_ = false;
    std::string_view key;
    bool more = false;
    if (!r_.first_member(key, more)) return false;
    while (more) {
      bool ok = key == "metric" && r_.peek() == '{'  ? metric()
                : key == "value" && r_.peek() == '[' ? value()
                                                     : r_.skip_value();
      if (!ok || !r_.next_member(key, more)) return false;
    }
    emit();
    return true;
  }
  bool metric() {
    r_.eat('{');
    std::string_view key;
    bool more = false;
    if (!r_.first_member(key, more)) return false;
    while (more) {
      if (r_.peek() == '"') {
        std::string k(key);  // the key's view dies with the next string
        std::string_view v;
        if (!r_.string(v, scratch_)) return false;
        if (k == "__name__")
          name_.assign(v);
        else
          labels_.emplace_back(std::move(k), std::string(v));
      } else if (!r_.skip_value()) {
        return false;
      }
      if (!r_.next_member(key, more)) return false;
    }
    return true;
  }
  bool value() {
    r_.eat('[');
    bool more = false;
    r_.first_element(more);
    for (int n = 0; more; ++n) {
      std::string_view v;
      if (n == 1 && r_.peek() == '"') {
        if (!r_.string(v, scratch_)) return false;
        value_text_.assign(v);
        value_ = std::strtod(value_text_.c_str(), nullptr);
        has_value_ = true;
      } else if (!r_.skip_value()) {
        return false;
      }
      if (!r_.next_element(more)) return false;
    }
    return true;
  }

  void emit() {
    if (name_.empty() || !has_value_) return;
    std::sort(labels_.begin(), labels_.end());
    family_key_ = name_;
    for (const auto& kv : labels_) (family_key_ += '\0') += kv.first;
    auto [it, fresh] = fam_.try_emplace(family_key_, snap_.families.size());
    if (fresh) {
      model::Family f;
      f.name = name_;
      f.type = name_.ends_with("_total") ? model::MetricType::kCounter : model::MetricType::kGauge;
      for (const auto& kv : labels_) f.label_names.push_back(kv.first);
      snap_.families.push_back(std::move(f));
    }
    std::vector<std::string> values;
    values.reserve(labels_.size());
    for (auto& kv : labels_) values.push_back(std::move(kv.second));
    snap_.families[it->second].series.push_back({std::move(values), value_});
  }

  Reader r_;
  model::Snapshot& snap_;
  std::string name_, scratch_, value_text_, family_key_;
  std::vector<std::pair<std::string, std::string>> labels_;
  std::unordered_map<std::string, size_t> fam_;
  double value_ = 0;
  bool has_value_ = false;
};

}  // namespace

Expected<model::SnapshotPtr> parse_vector_answer(std::string_view body, int64_t ts_ms) {
  auto snap = std::make_shared<model::Snapshot>();
  snap->timestamp_ms = ts_ms;
  if (Status st = VectorReader(body, *snap).read(); !st.is_ok()) return st;
  snap->order.resize(snap->families.size());
  for (uint32_t i = 0; i < snap->order.size(); ++i) snap->order[i] = i;
  std::stable_sort(snap->order.begin(), snap->order.end(),
                   [&](uint32_t a, uint32_t b) { return snap->families[a].name < snap->families[b].name; });
  return model::SnapshotPtr(std::move(snap));
}

}  // namespace llmon::app
