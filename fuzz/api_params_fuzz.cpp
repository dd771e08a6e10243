// Fuzz target: the HTTP query API's parameter parsers (app/api_params.h).
// The input's first byte picks the method and Content-Type of parse_form;
// the rest is split at the first '\n' into the URL query and the body; every
// parser also sees the whole input. Checked besides "no crash, no
// sanitizer report":
//   * parse_url_query: re-encoding the pairs and parsing again gives them back;
//   * parse_form: a form POST's values are the body's pairs, then the URL's;
//   * parse_time_ms: a time within +-1e11 s prints and parses back to itself;
//   * go_atoi: a parsed integer prints and parses back to itself;
//   * every parser gives the same answer twice (no hidden state).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/params.h"

using namespace llmon;

namespace {

std::string escape(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void check_query_round_trip(std::string_view q) {
  auto p = api::parse_url_query(q);
  auto again = api::parse_url_query(q);
  if (p.has_value() != again.has_value()) std::abort();
  if (!p) {
    if (p.error().empty() || p.error() != again.error()) std::abort();
    return;
  }
  if (*p != *again) std::abort();
  std::string encoded;
  for (const auto& [k, v] : *p) encoded += (encoded.empty() ? "" : "&") + escape(k) + "=" + escape(v);
  auto back = api::parse_url_query(encoded);
  if (!back || *back != *p) std::abort();
}

void check_time(std::string_view in) {
  auto t = api::parse_time_ms(in);
  auto again = api::parse_time_ms(in);
  if (t.has_value() != again.has_value() || (t && *t != *again)) std::abort();
  if (!t || *t > 100'000'000'000'000 || *t < -100'000'000'000'000) return;
  const int64_t ms = *t;
  const uint64_t mag = ms < 0 ? static_cast<uint64_t>(-ms) : static_cast<uint64_t>(ms);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ms < 0 ? "-" : "", static_cast<unsigned long long>(mag / 1000),
                static_cast<unsigned long long>(mag % 1000));
  auto back = api::parse_time_ms(buf);
  if (!back || *back != ms) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);

  check_query_round_trip(in);
  check_time(in);
  auto d = api::parse_duration_ns(in);
  auto d2 = api::parse_duration_ns(in);
  if (d.has_value() != d2.has_value() || (d && *d != *d2)) std::abort();
  (void)api::parse_limit(in);
  if (auto n = api::go_atoi(in)) {
    auto back = api::go_atoi(std::to_string(*n));
    if (!back || *back != *n) std::abort();
  }
  (void)api::parse_label_name_segment(in);

  if (in.empty()) return 0;
  const unsigned sel = static_cast<unsigned char>(in[0]);
  std::string_view rest = in.substr(1);
  const size_t nl = rest.find('\n');
  std::string_view url = rest.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  const bool post = sel & 1;
  const std::string_view ctype = (sel & 6) == 0   ? "application/x-www-form-urlencoded"
                                 : (sel & 6) == 2 ? "application/x-www-form-urlencoded; charset=utf-8"
                                 : (sel & 6) == 4 ? "text/plain"
                                                  : url;
  auto form = api::parse_form(post ? "POST" : "GET", ctype, url, body);
  if (!form) {
    if (form.error().empty()) std::abort();
    return 0;
  }
  if (post && (sel & 6) == 0) {
    auto b = api::parse_url_query(body);
    auto u = api::parse_url_query(url);
    if (b && u) {
      api::Pairs want = *b;
      want.insert(want.end(), u->begin(), u->end());
      if (form->values != want) std::abort();
    }
  }
  for (const auto& [k, v] : form->values) {
    if (!form->has(k)) std::abort();
    (void)form->get(k);
    (void)api::parse_time_param(*form, k, 0);
  }
  return 0;
}
