// Prometheus's template functions (template_funcs.h), following
// template/template.go of Prometheus 2.42. Regular expressions are RE2 as
// in Go (github.com/grafana/regexp is Go's regexp), with Go's error wording
// and ReplaceAllString/Expand semantics ($1, ${1}, $name, $$).
#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "go/regexp.h"
#include "go/strconv.h"
#include "promql/parser.h"
#include "go/strconv.h"
#include "go/strings.h"
#include "rules/humanize.h"
#include "rules/template_internal.h"

namespace llmon::rules::tmpl {

namespace {

// A nil pointer dereference inside the Go function, recovered by safeCall.
constexpr const char* kNilDeref = "runtime error: invalid memory address or nil pointer dereference";

// regexp.Compile: the compiled expression or Go's error text.
Expected<std::shared_ptr<const RE2>> compile(CallEnv& env, const std::string& pattern) {
  auto it = env.regex_cache.find(pattern);
  std::shared_ptr<const RE2> re;
  if (it != env.regex_cache.end()) {
    re = it->second;
  } else {
    RE2::Options opts;
    opts.set_log_errors(false);
    re = std::make_shared<const RE2>(pattern, opts);
    if (env.regex_cache.size() < 256) env.regex_cache.emplace(pattern, re);
  }
  if (!re->ok())
    return Status::error(go::regexp_error(re->error_code(), re->error_arg()));
  // RE2 knows \C (any byte); Go's syntax does not.
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    if (pattern[i + 1] == 'Q') {  // \Q...\E is literal text
      const size_t e = pattern.find("\\E", i + 2);
      if (e == std::string::npos) break;
      i = e + 1;
      continue;
    }
    if (pattern[i + 1] == 'C') return Status::error("error parsing regexp: invalid escape sequence: `\\C`");
    ++i;
  }
  return re;
}

// regexp's extract: a $name or ${name} reference at the start of str.
bool extract(std::string_view str, std::string& name, int& num, size_t& consumed) {
  if (str.empty()) return false;
  bool brace = false;
  size_t i = 0;
  if (str[0] == '{') {
    brace = true;
    i = 1;
  }
  const size_t start = i;
  while (i < str.size()) {
    const go::Rune r = go::decode_rune(str, i);
    if (!go::is_letter(r.r) && !go::is_digit(r.r) && r.r != '_') break;
    i += static_cast<size_t>(r.width);
  }
  if (i == start) return false;
  name = std::string(str.substr(start, i - start));
  if (brace) {
    if (i >= str.size() || str[i] != '}') return false;
    ++i;
  }
  num = 0;
  for (char c : name) {
    if (c < '0' || c > '9' || num >= 100000000) {
      num = -1;
      break;
    }
    num = num * 10 + (c - '0');
  }
  if (name[0] == '0' && name.size() > 1) num = -1;
  consumed = i;
  return true;
}

// Regexp.expand of a ReplaceAllString template for one match.
void expand(std::string& dst, std::string_view tmpl, const RE2& re, const std::vector<re2::StringPiece>& groups) {
  while (!tmpl.empty()) {
    const size_t dollar = tmpl.find('$');
    if (dollar == std::string_view::npos) break;
    dst.append(tmpl.substr(0, dollar));
    tmpl.remove_prefix(dollar + 1);
    if (!tmpl.empty() && tmpl[0] == '$') {
      dst += '$';
      tmpl.remove_prefix(1);
      continue;
    }
    std::string name;
    int num = 0;
    size_t consumed = 0;
    if (!extract(tmpl, name, num, consumed)) {
      dst += '$';
      continue;
    }
    tmpl.remove_prefix(consumed);
    if (num >= 0) {
      if (static_cast<size_t>(num) < groups.size() && groups[static_cast<size_t>(num)].data())
        dst.append(groups[static_cast<size_t>(num)].data(), groups[static_cast<size_t>(num)].size());
    } else {
      const auto& names = re.NamedCapturingGroups();
      auto it = names.find(name);
      if (it != names.end() && static_cast<size_t>(it->second) < groups.size() &&
          groups[static_cast<size_t>(it->second)].data())
        dst.append(groups[static_cast<size_t>(it->second)].data(), groups[static_cast<size_t>(it->second)].size());
    }
  }
  dst.append(tmpl);
}

// Regexp.ReplaceAllString.
std::string replace_all(const RE2& re, std::string_view src, std::string_view repl) {
  const int ngroups = 1 + re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(static_cast<size_t>(ngroups));
  std::string dst;
  size_t last_match_end = 0, search_pos = 0;
  const re2::StringPiece text(src.data(), src.size());
  while (search_pos <= src.size()) {
    if (!re.Match(text, search_pos, src.size(), RE2::UNANCHORED, groups.data(), ngroups)) break;
    const auto a0 = static_cast<size_t>(groups[0].data() - src.data());
    const size_t a1 = a0 + groups[0].size();
    dst.append(src.substr(last_match_end, a0 - last_match_end));
    if (a1 > last_match_end || a0 == 0) expand(dst, repl, re, groups);
    last_match_end = a1;
    const size_t width = search_pos < src.size() ? static_cast<size_t>(go::decode_rune(src, search_pos).width) : 0;
    if (search_pos + width > a1) {
      search_pos += width;
    } else if (search_pos + 1 > a1) {
      ++search_pos;
    } else {
      search_pos = a1;
    }
  }
  dst.append(src.substr(last_match_end));
  return dst;
}

Expected<Value> humanize_with(const Value& v, std::string (*f)(double)) {
  auto d = convert_to_float(v);
  if (!d) return d.status();
  return Value::string(f(*d));
}

Expected<Value> fn_query(CallEnv& env, std::vector<Value>& a) {
  if (!env.env->query) return Status::error(kNilDeref);
  auto r = env.env->query(a[0].as_string());
  if (!r) return r.status();
  auto result = std::make_shared<QueryResult>();
  result->reserve(r->size());
  for (auto& s : *r) result->push_back(std::make_shared<Sample>(std::move(s)));
  return Value::query_result(std::move(result));
}

Expected<Value> fn_first(CallEnv&, std::vector<Value>& a) {
  const auto& r = a[0].as_query_result();
  if (r && !r->empty()) return Value::sample((*r)[0]);
  return Status::error("first() called on vector with no elements");
}

Expected<Value> fn_label(CallEnv&, std::vector<Value>& a) {
  const auto& s = a[1].as_sample();
  if (!s) return Status::error(kNilDeref);
  auto it = s->labels.find(a[0].as_string());
  return Value::string(it == s->labels.end() ? "" : it->second);
}

Expected<Value> fn_value(CallEnv&, std::vector<Value>& a) {
  const auto& s = a[0].as_sample();
  if (!s) return Status::error(kNilDeref);
  return Value::number(s->value);
}

Expected<Value> fn_strvalue(CallEnv&, std::vector<Value>& a) {
  const auto& s = a[0].as_sample();
  if (!s) return Status::error(kNilDeref);
  auto it = s->labels.find("__value__");
  return Value::string(it == s->labels.end() ? "" : it->second);
}

Expected<Value> fn_args(CallEnv&, std::vector<Value>& a) {
  std::map<std::string, Value> m;
  for (size_t i = 0; i < a.size(); ++i) m.emplace("arg" + std::to_string(i), a[i]);
  return Value::iface_map(std::move(m));
}

// regexp's quote(): a raw string when strconv.CanBackquote, else strconv.Quote.
std::string regexp_quote(const std::string& s) {
  bool backquote = true;
  for (size_t i = 0; i < s.size() && backquote;) {
    const go::Rune r = go::decode_rune(s, i);
    if ((r.r == 0xFFFD && r.width == 1) || r.r == '`' || r.r == 0xFEFF || (r.r < ' ' && r.r != '\t') || r.r == 0x7F)
      backquote = false;
    i += static_cast<size_t>(r.width);
  }
  return backquote ? "`" + s + "`" : go::quote(s);
}

Expected<Value> fn_re_replace_all(CallEnv& env, std::vector<Value>& a) {
  auto re = compile(env, a[0].as_string());
  if (!re) {
    // regexp.MustCompile panics; safeCall turns the panic into the error.
    return Status::error("regexp: Compile(" + regexp_quote(a[0].as_string()) + "): " + re.error());
  }
  return Value::string(replace_all(**re, a[2].as_string(), a[1].as_string()));
}

Expected<Value> fn_safe_html(CallEnv&, std::vector<Value>& a) {
  return Value::html(a[0].as_string());
}

Expected<Value> fn_match(CallEnv& env, std::vector<Value>& a) {
  auto re = compile(env, a[0].as_string());
  if (!re) return re.status();
  const std::string& s = a[1].as_string();
  return Value::boolean(RE2::PartialMatch(s, **re));
}

Expected<Value> fn_title(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::title(a[0].as_string()));
}
Expected<Value> fn_to_upper(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::upper(a[0].as_string()));
}
Expected<Value> fn_to_lower(CallEnv&, std::vector<Value>& a) {
  return Value::string(go::lower(a[0].as_string()));
}

// strutil.GraphLinkForExpression / TableLinkForExpression.
Expected<Value> fn_graph_link(CallEnv&, std::vector<Value>& a) {
  return Value::string("/graph?g0.expr=" + go::query_escape(a[0].as_string()) + "&g0.tab=0");
}
Expected<Value> fn_table_link(CallEnv&, std::vector<Value>& a) {
  return Value::string("/graph?g0.expr=" + go::query_escape(a[0].as_string()) + "&g0.tab=1");
}

Expected<Value> fn_sort_by_label(CallEnv&, std::vector<Value>& a) {
  const std::string& label = a[0].as_string();
  const auto& r = a[1].as_query_result();
  if (r) {
    auto key = [&label](const SamplePtr& s) -> std::string_view {
      if (!s) return {};
      auto it = s->labels.find(label);
      return it == s->labels.end() ? std::string_view() : std::string_view(it->second);
    };
    std::stable_sort(r->begin(), r->end(), [&](const SamplePtr& x, const SamplePtr& y) { return key(x) < key(y); });
  }
  return a[1];
}

Expected<Value> fn_strip_port(CallEnv&, std::vector<Value>& a) {
  const std::string& hp = a[0].as_string();
  auto split = go::split_host_port(hp);
  return Value::string(split ? split->first : hp);
}

Expected<Value> fn_strip_domain(CallEnv&, std::vector<Value>& a) {
  const std::string& hp = a[0].as_string();
  std::string host = hp, port;
  if (auto split = go::split_host_port(hp)) {
    host = split->first;
    port = split->second;
  }
  if (go::parse_ip(host)) return Value::string(hp);
  host = host.substr(0, host.find('.'));
  if (!port.empty()) return Value::string(go::join_host_port(host, port));
  return Value::string(host);
}

Expected<Value> fn_humanize(CallEnv&, std::vector<Value>& a) {
  return humanize_with(a[0], humanize);
}
Expected<Value> fn_humanize_1024(CallEnv&, std::vector<Value>& a) {
  return humanize_with(a[0], humanize_1024);
}
Expected<Value> fn_humanize_duration(CallEnv&, std::vector<Value>& a) {
  return humanize_with(a[0], humanize_duration);
}
Expected<Value> fn_humanize_percentage(CallEnv&, std::vector<Value>& a) {
  return humanize_with(a[0], humanize_percentage);
}
Expected<Value> fn_humanize_timestamp(CallEnv&, std::vector<Value>& a) {
  auto d = convert_to_float(a[0]);
  if (!d) return d.status();
  auto s = humanize_timestamp(*d);
  if (!s) return s.status();
  return Value::string(*s);
}

Expected<Value> fn_to_time(CallEnv&, std::vector<Value>& a) {
  auto d = convert_to_float(a[0]);
  if (!d) return d.status();
  auto t = time_from_seconds(*d);
  if (!t) return t.status();
  return Value::time(*t);
}

// url.URL.Path of the external URL: the path after the authority, before
// any query or fragment, percent-decoded.
std::string url_path(std::string_view u) {
  const size_t scheme = u.find("://");
  size_t start = 0;
  if (scheme != std::string_view::npos) {
    start = u.find('/', scheme + 3);
    if (start == std::string_view::npos) return "";
  }
  std::string_view path = u.substr(start);
  path = path.substr(0, path.find_first_of("?#"));
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    auto hex = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
    };
    if (path[i] == '%' && i + 2 < path.size() + 0 && hex(path[i + 1]) >= 0 && hex(path[i + 2]) >= 0) {
      out += static_cast<char>(hex(path[i + 1]) * 16 + hex(path[i + 2]));
      i += 2;
    } else {
      out += path[i];
    }
  }
  return out;
}

Expected<Value> fn_path_prefix(CallEnv& env, std::vector<Value>&) {
  if (!env.env->external_url) return Status::error(kNilDeref);
  return Value::string(url_path(*env.env->external_url));
}

Expected<Value> fn_external_url(CallEnv& env, std::vector<Value>&) {
  if (!env.env->external_url) return Status::error(kNilDeref);
  return Value::string(*env.env->external_url);
}

Expected<Value> fn_parse_duration(CallEnv&, std::vector<Value>& a) {
  auto ms = promql::parse_duration_ms(a[0].as_string());
  if (!ms) return ms.status();
  // float64(time.Duration(v)) / float64(time.Second)
  return Value::number(static_cast<double>(*ms * 1000000) / 1e9);
}

}  // namespace

std::vector<Function> prometheus_functions() {
  using A = ArgType;
  return {
      {"query", {A::kString}, false, false, fn_query},
      {"first", {A::kQueryResult}, false, false, fn_first},
      {"label", {A::kString, A::kSample}, false, false, fn_label},
      {"value", {A::kSample}, false, false, fn_value},
      {"strvalue", {A::kSample}, false, false, fn_strvalue},
      {"args", {A::kAny}, true, false, fn_args},
      {"reReplaceAll", {A::kString, A::kString, A::kString}, false, false, fn_re_replace_all},
      {"safeHtml", {A::kString}, false, false, fn_safe_html},
      {"match", {A::kString, A::kString}, false, false, fn_match},
      {"title", {A::kString}, false, false, fn_title},
      {"toUpper", {A::kString}, false, false, fn_to_upper},
      {"toLower", {A::kString}, false, false, fn_to_lower},
      {"graphLink", {A::kString}, false, false, fn_graph_link},
      {"tableLink", {A::kString}, false, false, fn_table_link},
      {"sortByLabel", {A::kString, A::kQueryResult}, false, false, fn_sort_by_label},
      {"stripPort", {A::kString}, false, false, fn_strip_port},
      {"stripDomain", {A::kString}, false, false, fn_strip_domain},
      {"humanize", {A::kAny}, false, false, fn_humanize},
      {"humanize1024", {A::kAny}, false, false, fn_humanize_1024},
      {"humanizeDuration", {A::kAny}, false, false, fn_humanize_duration},
      {"humanizePercentage", {A::kAny}, false, false, fn_humanize_percentage},
      {"humanizeTimestamp", {A::kAny}, false, false, fn_humanize_timestamp},
      {"toTime", {A::kAny}, false, false, fn_to_time},
      {"pathPrefix", {}, false, false, fn_path_prefix},
      {"externalURL", {}, false, false, fn_external_url},
      {"parseDuration", {A::kString}, false, false, fn_parse_duration},
  };
}

}  // namespace llmon::rules::tmpl
