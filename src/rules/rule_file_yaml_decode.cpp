// The Go-yaml-style decoder over the document tree (rule_file_yaml.h): plain
// scalar resolution (yaml.v3/v2 resolve.go) and decoding into Go types with
// Go's type errors, known-field checks and alias budget (decode.go).
#include <cmath>
#include <limits>
#include <set>

#include "go/strconv.h"
#include "promql/parser.h"
#include "rules/rule_file_yaml.h"

namespace llmon::rules::yaml {

namespace {

bool is_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Go's strconv.ParseInt(s, 0, 64) / ParseUint syntax (value range ignored
// beyond overflow detection): sign, then 0x/0o/0b prefixes or a leading 0
// for octal, else decimal.
std::optional<long double> go_parse_int(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
    base = 8;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  long double v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : 99;
    if (d >= base) return std::nullopt;
    v = v * base + d;
  }
  if (v > 18446744073709551615.0L) return std::nullopt;  // beyond uint64
  if (neg && v > 9223372036854775808.0L) return std::nullopt;
  return neg ? -v : v;
}

// yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool is_yaml_float(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  bool int_digits = i > start;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t f = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (!int_digits && i == f) return false;
  } else if (!int_digits) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!is_digits(s.substr(i))) return false;
    return true;
  }
  return i == s.size();
}

// Go's parseTimestamp, reduced to its gate: "YYYY-M-D" optionally followed
// by a time part.
bool looks_like_timestamp(std::string_view s) {
  if (s.size() < 8 || !is_digits(s.substr(0, 4)) || s[4] != '-') return false;
  size_t i = 5;
  size_t m = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == m || i - m > 2 || i >= s.size() || s[i] != '-') return false;
  ++i;
  size_t d = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == d || i - d > 2) return false;
  return i == s.size() || s[i] == 'T' || s[i] == 't' || s[i] == ' ';
}

struct Resolved {
  std::string tag;
  std::optional<long double> number;  // for !!int and !!float
};

Resolved resolve_plain(std::string_view in, bool yaml11) {
  static const std::set<std::string_view> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string_view> kBool12 = {"true", "True", "TRUE", "false", "False", "FALSE"};
  static const std::set<std::string_view> kBool11 = {"y", "Y", "yes", "Yes", "YES", "on",  "On",  "ON",
                                                     "n", "N", "no",  "No",  "NO",  "off", "Off", "OFF"};
  if (kNull.count(in)) return {"!!null", std::nullopt};
  if (kBool12.count(in) || (yaml11 && kBool11.count(in))) return {"!!bool", std::nullopt};
  if (in == ".nan" || in == ".NaN" || in == ".NAN") return {"!!float", std::numeric_limits<long double>::quiet_NaN()};
  for (std::string_view p : {"", "+", "-"}) {
    for (std::string_view inf : {".inf", ".Inf", ".INF"}) {
      if (in.size() == p.size() + inf.size() && in.substr(0, p.size()) == p && in.substr(p.size()) == inf) {
        long double v = std::numeric_limits<long double>::infinity();
        return {"!!float", p == "-" ? -v : v};
      }
    }
  }
  if (in == "<<") return {"!!merge", std::nullopt};
  char c = in[0];
  if (c == '.') {
    auto v = go::parse_number(in);
    if (v && is_yaml_float(in)) return {"!!float", static_cast<long double>(*v)};
    return {"!!str", std::nullopt};
  }
  if ((c >= '0' && c <= '9') || c == '+' || c == '-') {
    if (looks_like_timestamp(in)) return {"!!timestamp", std::nullopt};
    std::string plain;
    for (char ch : in) {
      if (ch != '_') plain += ch;
    }
    if (auto v = go_parse_int(plain)) return {"!!int", v};
    if (is_yaml_float(plain)) {
      if (auto v = go::parse_number(plain)) return {"!!float", static_cast<long double>(*v)};
    }
  }
  return {"!!str", std::nullopt};
}

Resolved resolve_node(const Node& n, bool yaml11) {
  switch (n.kind) {
    case Node::Kind::kNull:
      return {"!!null", std::nullopt};
    case Node::Kind::kSequence:
      return {"!!seq", std::nullopt};
    case Node::Kind::kMapping:
      return {"!!map", std::nullopt};
    case Node::Kind::kAlias:
      return resolve_node(*n.items[0], yaml11);
    case Node::Kind::kScalar:
      break;
  }
  if (!n.tag.empty()) {
    // An explicit core tag re-resolves the text as that type.
    Resolved r = n.quoted ? Resolved{"!!str", std::nullopt} : resolve_plain(n.value, yaml11);
    if (n.tag == "!!str") return {"!!str", std::nullopt};
    if (n.tag == r.tag || (n.tag == "!!float" && r.tag == "!!int")) return {n.tag, r.number};
    return {n.tag, std::nullopt};
  }
  if (n.quoted) return {"!!str", std::nullopt};
  return resolve_plain(n.value, yaml11);
}

}  // namespace

std::string resolved_tag(const Node& n, bool yaml11) {
  return resolve_node(n, yaml11).tag;
}

const Node& Decoder::deref(const Node& n) {
  const Node* p = &n;
  while (p->kind == Node::Kind::kAlias) p = p->items[0].get();
  return *p;
}

bool Decoder::is_null(const Node& n) const {
  return deref(n).kind == Node::Kind::kNull;
}

namespace {
// Go's allowedAliasRatio (yaml.v3 decode.go).
double allowed_alias_ratio(int64_t decode_count) {
  constexpr double kLow = 400000, kHigh = 4000000;
  if (decode_count <= kLow) return 0.99;
  if (decode_count >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((static_cast<double>(decode_count) - kLow) / (kHigh - kLow));
}
}  // namespace

bool Decoder::visit(const Node& n) {
  if (aborted_) return false;
  ++decode_count_;
  if (alias_depth_ > 0 || n.kind == Node::Kind::kAlias) ++alias_count_;
  if ((alias_count_ > 100 && decode_count_ > 1000 &&
       static_cast<double>(alias_count_) / static_cast<double>(decode_count_) > allowed_alias_ratio(decode_count_)) ||
      decode_count_ > 50'000'000) {
    fatal(n, "yaml: document contains excessive aliasing");
    aborted_ = true;
    return false;
  }
  return true;
}

void Decoder::type_error(const Node& at, std::string_view go_type) {
  const Node& n = deref(at);
  std::string tag = resolve_node(n, dialect_ == Dialect::kV2).tag;
  std::string value;
  if (tag != "!!seq" && tag != "!!map") {
    value = n.value.size() > 10 ? " `" + n.value.substr(0, 7) + "...`" : " `" + n.value + "`";
  }
  // Go reports the node an alias names, where the anchor is.
  type_errors_.push_back(line_col(n) + ": cannot unmarshal " + tag + value + " into " + std::string(go_type));
}

void Decoder::fatal(const Node& at, std::string_view message) {
  const Node& n = deref(at);
  fatal_errors_.push_back(std::to_string(n.line) + ":" + std::to_string(n.column) + ": " + std::string(message));
}

bool Decoder::str(const Node& at, std::string& out) {
  if (!visit(at)) return false;
  const Node& n = deref(at);
  switch (n.kind) {
    case Node::Kind::kNull:
      if (dialect_ == Dialect::kV2) {
        out.clear();
        return true;
      }
      return false;
    case Node::Kind::kScalar:
      out = n.value;
      return true;
    default:
      type_error(at, "string");
      return false;
  }
}

// integer() and float64() alike: a null is Go's zero value under v2 and
// leaves the target unset under v3; any other node must resolve to !!int or
// !!float and pass `convert(node, is_float, number, out)`, else it is a
// type error naming go_type.
template <typename T, typename Convert>
bool Decoder::number(const Node& at, T& out, std::string_view go_type, Convert convert) {
  if (!visit(at)) return false;
  const Node& n = deref(at);
  if (n.kind == Node::Kind::kNull) {
    if (dialect_ == Dialect::kV2) out = 0;
    return dialect_ == Dialect::kV2;
  }
  Resolved r = resolve_node(n, dialect_ == Dialect::kV2);
  if ((r.tag == "!!int" || r.tag == "!!float") && r.number && convert(n, r.tag == "!!float", *r.number, out))
    return true;
  type_error(at, go_type);
  return false;
}

bool Decoder::integer(const Node& at, int64_t& out) {
  return number(at, out, "int", [](const Node&, bool, long double v, int64_t& o) {
    if (std::isnan(v) || v > 9223372036854775807.0L || v < -9223372036854775808.0L) return false;
    o = static_cast<int64_t>(v);
    return true;
  });
}

bool Decoder::float64(const Node& at, double& out) {
  return number(at, out, "float64", [](const Node& n, bool is_float, long double v, double& o) {
    o = static_cast<double>(v);
    if (is_float && !std::isinf(v) && !std::isnan(v)) {
      // Parse the text again as a double: long double rounding must not leak in.
      std::string plain;
      for (char ch : n.value) {
        if (ch != '_') plain += ch;
      }
      if (auto parsed = go::parse_number(plain)) o = *parsed;
    }
    return true;
  });
}

bool Decoder::duration(const Node& at, int64_t& out_ms) {
  if (aborted_) return false;
  if (is_null(at)) {
    if (!visit(at)) return false;
    return false;  // Go does not call the unmarshaler for a null: the zero duration
  }
  std::string s;
  if (!str(at, s)) return false;
  auto d = promql::parse_duration_ms(s);
  if (!d) {
    fatal(at, d.error());
    return false;
  }
  out_ms = *d;
  return true;
}

bool Decoder::unique_keys(const Node& map) {
  size_t before = type_errors_.size();
  for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
    const Node& ni = *map.items[i];
    for (size_t j = i + 2; j + 1 < map.items.size(); j += 2) {
      const Node& nj = *map.items[j];
      bool ki_scalar = ni.kind == Node::Kind::kScalar || ni.kind == Node::Kind::kNull;
      bool kj_scalar = nj.kind == Node::Kind::kScalar || nj.kind == Node::Kind::kNull;
      bool same_kind = ki_scalar ? kj_scalar : ni.kind == nj.kind;
      if (same_kind && ni.value == nj.value) {
        type_errors_.push_back(line_col(nj) + ": mapping key " + go::quote(nj.value) +
                               " already defined at line " + std::to_string(ni.line));
      }
    }
  }
  return type_errors_.size() == before;
}

bool Decoder::pairs(const Node& map, std::vector<Pair>& out) {
  std::set<std::string> seen;
  std::vector<const Node*> merges;
  for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
    const Node& k = *map.items[i];
    if (k.kind == Node::Kind::kScalar && !k.quoted && k.tag.empty() && k.value == "<<") {
      merges.push_back(map.items[i + 1].get());
      continue;
    }
    out.push_back({&k, map.items[i + 1].get()});
    seen.insert(deref(k).value);
  }
  for (const Node* m : merges) {
    std::vector<const Node*> sources;
    const Node& mv = deref(*m);
    if (mv.kind == Node::Kind::kMapping) {
      sources.push_back(&mv);
    } else if (mv.kind == Node::Kind::kSequence && m->kind != Node::Kind::kAlias) {
      for (const auto& item : mv.items) {
        const Node& d = deref(*item);
        if (d.kind != Node::Kind::kMapping) {
          fatal(*m, "map merge requires map or sequence of maps as the value");
          return false;
        }
        sources.push_back(&d);
      }
    } else {
      fatal(*m, "map merge requires map or sequence of maps as the value");
      return false;
    }
    for (const Node* src : sources) {
      if (!visit(*src)) return false;
      std::vector<Pair> inner;
      if (!pairs(*src, inner)) return false;
      for (const Pair& p : inner) {
        if (seen.insert(deref(*p.key).value).second) out.push_back(p);
      }
    }
  }
  return true;
}

// The key/value pairs of a mapping node, for string_map() and structure():
// nullopt when ps holds pairs to decode, else the decoder's result (a null
// decodes to nothing, which v2 counts as set; a non-mapping is a type error).
std::optional<bool> Decoder::mapping(const Node& at, std::string_view go_type, std::vector<Pair>& ps) {
  if (!visit(at)) return false;
  const Node& n = deref(at);
  if (n.kind == Node::Kind::kNull) return dialect_ == Dialect::kV2;
  if (n.kind != Node::Kind::kMapping) {
    type_error(at, go_type);
    return false;
  }
  if (dialect_ == Dialect::kV3 && !unique_keys(n)) return false;
  if (!pairs(n, ps)) return false;
  return std::nullopt;
}

bool Decoder::string_map(const Node& at, std::string_view go_type, std::vector<MapEntry>& out) {
  AliasScope scope(*this, at);
  std::vector<Pair> ps;
  if (auto result = mapping(at, go_type, ps)) return *result;
  for (const Pair& p : ps) {
    MapEntry e;
    if (!str(*p.key, e.key)) continue;
    bool set = str(*p.value, e.value);
    if (!set && !is_null(*p.value)) continue;
    if (!set) e.value.clear();
    e.key_node = p.key;
    e.value_node = p.value;
    bool dup = false;
    for (MapEntry& prev : out) {
      if (prev.key == e.key) {
        dup = true;
        if (dialect_ == Dialect::kV2) {
          type_errors_.push_back(line_col(deref(*p.value)) + ": key " + go::quote(e.key) +
                                 " already set in map");
        } else {
          prev = e;  // a merged duplicate: Go's later assignment wins
        }
        break;
      }
    }
    if (!dup) out.push_back(std::move(e));
  }
  return true;
}

bool Decoder::string_list(const Node& at, std::vector<std::string>& out, std::vector<const Node*>* nodes) {
  return sequence(at, "[]string", dialect_ == Dialect::kV3, [&](const Node& item) {
    std::string s;
    if (str(item, s)) {
      out.push_back(std::move(s));
      if (nodes) nodes->push_back(&item);
    }
  });
}

bool Decoder::structure(const Node& at, std::string_view go_type, const std::vector<std::string_view>& fields,
                        const std::function<void(size_t, const Node&, const Node&)>& fn) {
  AliasScope scope(*this, at);
  std::vector<Pair> ps;
  if (auto result = mapping(at, go_type, ps)) return *result;
  std::vector<bool> done(fields.size());
  for (const Pair& p : ps) {
    std::string name;
    if (!str(*p.key, name)) continue;
    size_t f = 0;
    while (f < fields.size() && fields[f] != name) ++f;
    if (f == fields.size()) {
      type_errors_.push_back(line_col(deref(*p.key)) + ": field " + name + " not found in type " +
                             std::string(go_type));
      continue;
    }
    if (dialect_ == Dialect::kV2 && done[f]) {
      type_errors_.push_back(line_col(deref(*p.key)) + ": field " + name + " already set in type " +
                             std::string(go_type));
      continue;
    }
    done[f] = true;
    fn(f, *p.key, *p.value);
    if (aborted_) return false;
  }
  return true;
}

bool Decoder::sequence(const Node& at, std::string_view go_type, bool drop_null_items,
                       const std::function<void(const Node&)>& fn) {
  AliasScope scope(*this, at);
  if (!visit(at)) return false;
  const Node& n = deref(at);
  if (n.kind == Node::Kind::kNull) return dialect_ == Dialect::kV2;
  if (n.kind != Node::Kind::kSequence) {
    type_error(at, go_type);
    return false;
  }
  for (const auto& item : n.items) {
    if (drop_null_items && dialect_ == Dialect::kV3 && is_null(*item)) continue;
    fn(*item);
    if (aborted_) return false;
  }
  return true;
}

}  // namespace llmon::rules::yaml
