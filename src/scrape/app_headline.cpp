#include "scrape/app_headline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "base/strings.h"
#include "scrape/page_parser.h"

namespace llmon::scrape {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Row {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  double value = 0;
  std::string label(std::string_view n) const {
    for (const auto& [k, v] : labels)
      if (k == n) return v;
    return "";
  }
  // The series identity without `drop` (le for buckets).
  std::string key(std::string_view drop = "") const {
    std::string k = name;
    for (const auto& [n, v] : labels)
      if (n != drop) k += "\xff" + n + "\xfe" + v;
    return k;
  }
};

using Rows = std::vector<Row>;

bool wanted(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"vllm:",         "sglang:",     "tgi_",
                                                   "nv_inference_", "nv_trt_llm_", "train_"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view p) { return name.substr(0, p.size()) == p; });
}

Expected<Rows> read_rows(const AppPage& page, uint64_t* samples) {
  PageParser p(page.body, page_format(page.content_type), false);
  Rows rows;
  uint64_t n = 0;
  for (;;) {
    PageParser::Next next = p.next();
    if (next == PageParser::Next::kEnd) break;
    if (next == PageParser::Next::kError) return Status::error(p.error());
    ++n;
    std::string_view text = p.sample().series_text;
    if (!wanted(text.substr(0, text.find('{')))) continue;
    const exposition::TextSample* s = p.full_sample();
    if (!s) return Status::error(p.error());
    Row r;
    r.name = std::string(s->name);
    for (const auto& l : s->labels) r.labels.emplace_back(std::string(l.name), std::string(l.value));
    std::sort(r.labels.begin(), r.labels.end());
    r.value = s->value;
    rows.push_back(std::move(r));
  }
  if (samples) *samples = n;
  return rows;
}

// A family filter: the name, and optionally one label's value.
struct Sel {
  std::string_view name;
  std::string_view label = {};
  std::string_view value = {};
  bool match(const Row& r) const { return r.name == name && (label.empty() || r.label(label) == value); }
};

bool any(const Rows& rows, const Sel& s) {
  return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return s.match(r); });
}

// The first alternative the page has.
std::optional<Sel> first_present(const Rows& rows, std::initializer_list<Sel> alts) {
  for (const Sel& s : alts)
    if (any(rows, s)) return s;
  return std::nullopt;
}

std::optional<double> gauge(const Rows& rows, std::initializer_list<Sel> alts, std::string_view op) {
  auto s = first_present(rows, alts);
  if (!s) return std::nullopt;
  double sum = 0, mx = -std::numeric_limits<double>::infinity();
  int n = 0;
  for (const Row& r : rows) {
    if (!s->match(r) || std::isnan(r.value)) continue;
    sum += r.value;
    mx = std::max(mx, r.value);
    ++n;
  }
  if (n == 0) return op == "mean" ? std::optional<double>(kNaN) : std::nullopt;  // a NaN loss is news
  if (op == "max") return mx;
  if (op == "mean") return sum / n;
  return sum;
}

// Increase per second of the counters (summed over series); counters absent
// from the first page count from 0, a lower value is a reset.
std::optional<double> rate(const Rows* before, const Rows& after, std::initializer_list<Sel> alts, double dt) {
  if (!before || dt <= 0) return std::nullopt;
  auto s = first_present(after, alts);
  if (!s) return std::nullopt;
  std::unordered_map<std::string, double> prev;
  for (const Row& r : *before)
    if (s->match(r)) prev[r.key()] = r.value;
  double inc = 0;
  for (const Row& r : after) {
    if (!s->match(r)) continue;
    auto it = prev.find(r.key());
    double p = it == prev.end() ? 0 : it->second;
    inc += r.value >= p ? r.value - p : r.value;
  }
  return inc / dt;
}

// Buckets of a histogram family summed over series by le: the increase
// between the pages, or (none / no observation) the counts of `after`.
std::vector<std::pair<double, double>> buckets(const Rows* before, const Rows& after, const std::string& bucket_name,
                                               bool& since_start) {
  auto sum_by_le = [&](const Rows& rows, std::unordered_map<std::string, double>* per_series) {
    std::map<double, double> by_le;
    for (const Row& r : rows) {
      if (r.name != bucket_name) continue;
      auto le = base::parse_double(r.label("le"));
      if (!le) continue;
      by_le[*le] += r.value;
      if (per_series) (*per_series)[r.key()] = r.value;
    }
    return by_le;
  };
  std::map<double, double> total = sum_by_le(after, nullptr);
  if (before) {
    std::unordered_map<std::string, double> prev;
    (void)sum_by_le(*before, &prev);
    std::map<double, double> inc;
    for (const Row& r : after) {
      if (r.name != bucket_name) continue;
      auto le = base::parse_double(r.label("le"));
      if (!le) continue;
      auto it = prev.find(r.key());
      double p = it == prev.end() ? 0 : it->second;
      inc[*le] += r.value >= p ? r.value - p : r.value;
    }
    if (!inc.empty() && inc.rbegin()->second > 0) {
      return {inc.begin(), inc.end()};
    }
  }
  if (!total.empty()) since_start = true;
  return {total.begin(), total.end()};
}

struct Quantiles {
  std::string_view family;  // the histogram's name (without _bucket)
  double scale = 1;
};

void add_quantiles(AppHeadline& h, const Rows* before, const Rows& after, std::initializer_list<Quantiles> alts,
                   std::initializer_list<std::pair<std::string_view, double>> keys) {
  for (const Quantiles& q : alts) {
    const std::string bucket = std::string(q.family) + "_bucket";
    if (!any(after, {bucket})) continue;
    bool since = false;
    auto b = buckets(before, after, bucket, since);
    for (const auto& [key, quantile] : keys) {
      double v = bucket_quantile(quantile, b);
      if (!std::isnan(v)) h.values[std::string(key)] = v * q.scale;
    }
    if (since) h.quantiles_since_start = true;
    return;
  }
}

void put(AppHeadline& h, std::string_view key, std::optional<double> v) {
  if (v) h.values[std::string(key)] = *v;
}

}  // namespace

double bucket_quantile(double q, const std::vector<std::pair<double, double>>& b) {
  if (b.empty() || !std::isinf(b.back().first)) return kNaN;
  const double total = b.back().second;
  if (total <= 0 || std::isnan(q)) return kNaN;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  const double rank = q * total;
  size_t i = 0;
  while (i + 1 < b.size() && b[i].second < rank) ++i;
  if (i == b.size() - 1) return b.size() >= 2 ? b[b.size() - 2].first : kNaN;  // in the +Inf bucket
  double lo = 0, lo_count = 0;
  if (i > 0) {
    lo = b[i - 1].first;
    lo_count = b[i - 1].second;
  } else if (b[0].first <= 0) {
    return b[0].first;
  }
  const double in_bucket = b[i].second - lo_count;
  if (in_bucket <= 0) return b[i].first;
  return lo + (b[i].first - lo) * ((rank - lo_count) / in_bucket);
}

Expected<AppHeadline> app_headline(const AppPage* before, const AppPage& after, double dt) {
  AppHeadline h;
  auto rows = read_rows(after, &h.samples);
  if (!rows) return rows.status();
  std::optional<Rows> prev;
  if (before) {
    auto p = read_rows(*before, nullptr);
    if (p) prev = std::move(*p);
  }
  const Rows& a = *rows;
  const Rows* b = prev ? &*prev : nullptr;
  auto has_prefix = [&](std::string_view p) {
    return std::any_of(a.begin(), a.end(), [&](const Row& r) { return r.name.rfind(p, 0) == 0; });
  };
  std::set<std::string> models;
  for (const Row& r : a) {
    std::string m = r.label("model_name");
    if (m.empty() && r.name.rfind("nv_", 0) == 0) m = r.label("model");
    if (!m.empty()) models.insert(m);
  }
  h.models.assign(models.begin(), models.end());

  if (has_prefix("vllm:")) {
    h.engine = "vllm";
    put(h, "running", gauge(a, {{"vllm:num_requests_running"}}, "sum"));
    put(h, "waiting", gauge(a, {{"vllm:num_requests_waiting"}}, "sum"));
    put(h, "kv_cache", gauge(a, {{"vllm:gpu_cache_usage_perc"}, {"vllm:kv_cache_usage_perc"}}, "max"));
    add_quantiles(h, b, a, {{"vllm:time_to_first_token_seconds"}}, {{"ttft_p50", 0.5}, {"ttft_p99", 0.99}});
    add_quantiles(h, b, a, {{"vllm:time_per_output_token_seconds"}, {"vllm:inter_token_latency_seconds"}},
                  {{"tpot_p50", 0.5}});
    put(h, "gen_tps", rate(b, a, {{"vllm:generation_tokens_total"}}, dt));
    put(h, "prompt_tps", rate(b, a, {{"vllm:prompt_tokens_total"}}, dt));
  } else if (has_prefix("sglang:")) {
    h.engine = "sglang";
    put(h, "running", gauge(a, {{"sglang:num_running_reqs"}}, "sum"));
    put(h, "waiting", gauge(a, {{"sglang:num_queue_reqs"}}, "sum"));
    put(h, "kv_cache", gauge(a, {{"sglang:token_usage"}}, "max"));
    add_quantiles(h, b, a, {{"sglang:time_to_first_token_seconds"}}, {{"ttft_p50", 0.5}, {"ttft_p99", 0.99}});
    add_quantiles(h, b, a, {{"sglang:time_per_output_token_seconds"}, {"sglang:inter_token_latency_seconds"}},
                  {{"tpot_p50", 0.5}});
    put(h, "gen_tps", rate(b, a, {{"sglang:generation_tokens_total"}}, dt));
    put(h, "prompt_tps", rate(b, a, {{"sglang:prompt_tokens_total"}}, dt));
  } else if (has_prefix("tgi_")) {
    h.engine = "tgi";
    put(h, "running", gauge(a, {{"tgi_batch_current_size"}}, "sum"));
    put(h, "waiting", gauge(a, {{"tgi_queue_size"}}, "sum"));
    add_quantiles(h, b, a, {{"tgi_request_mean_time_per_token_duration"}}, {{"tpot_p50", 0.5}});
    put(h, "gen_tps", rate(b, a, {{"tgi_request_generated_tokens_sum"}}, dt));
    put(h, "prompt_tps", rate(b, a, {{"tgi_request_input_length_sum"}}, dt));
  } else if (has_prefix("nv_inference_") || has_prefix("nv_trt_llm_")) {
    h.engine = "triton";
    put(h, "running", gauge(a, {{"nv_trt_llm_request_metrics", "request_type", "scheduled"}}, "sum"));
    put(h, "waiting",
        gauge(a, {{"nv_trt_llm_request_metrics", "request_type", "waiting"}, {"nv_inference_pending_request_count"}},
              "sum"));
    auto used = gauge(a, {{"nv_trt_llm_kv_cache_block_metrics", "kv_cache_block_type", "used"}}, "sum");
    auto max = gauge(a, {{"nv_trt_llm_kv_cache_block_metrics", "kv_cache_block_type", "max"}}, "sum");
    if (used && max && *max > 0) h.values["kv_cache"] = *used / *max;
    add_quantiles(h, b, a, {{"nv_inference_first_response_histogram_ms", 0.001}},
                  {{"ttft_p50", 0.5}, {"ttft_p99", 0.99}});
  } else if (has_prefix("train_")) {
    h.engine = "training";
    add_quantiles(h, b, a, {{"train_step_duration_seconds"}},
                  {{"step_p50", 0.5}, {"step_p90", 0.9}, {"step_p99", 0.99}});
    put(h, "loss", gauge(a, {{"train_loss"}}, "mean"));
    put(h, "step", gauge(a, {{"train_step"}, {"train_iteration"}}, "max"));
    put(h, "train_tps", rate(b, a, {{"train_tokens_total"}}, dt));
    put(h, "train_sps", rate(b, a, {{"train_samples_total"}}, dt));
  }
  if (h.engine == "training")
    h.kind = "training";
  else if (!h.engine.empty())
    h.kind = "serving";
  return h;
}

}  // namespace llmon::scrape
