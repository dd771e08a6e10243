// The headline numbers of an application's /metrics page, from two scrapes
// some seconds apart: what `llmon snapshot` shows of a serving or training
// job next to its GPUs. Pure: pages in, numbers out.
//
// The engine is recognised by its families (the names the built-in rule
// packs deploy/rules/llm_serving.yml and llm_training.yml read; fixtures in
// tests/fixtures/apps/):
//   vllm      vllm:*         sglang  sglang:*     tgi  tgi_*
//   triton    nv_inference_* / nv_trt_llm_*       training  train_*
// Numbers (keys of AppHeadline::values; absent when the page lacks them):
//   running, waiting          requests in the batch / queued (sum over series)
//   kv_cache                  share of the KV cache in use, 0..1 (max)
//   ttft_p50, ttft_p99        time to first token, seconds
//   tpot_p50                  time per output token, seconds
//   gen_tps, prompt_tps       generated / prompt tokens per second
//   step_p50, step_p90, step_p99   training step time, seconds
//   loss (mean over series), step (max), train_tps, train_sps (tokens,
//   samples per second)
// Per engine the same families as the rule packs (TGI has no TTFT nor KV
// cache; Triton's first-response histogram, ms, stands in for TTFT; vLLM
// V1 and newer SGLang names are read too). Rates are the counters' increase
// between the pages over their distance (a reset counts from 0);
// quantiles interpolate like histogram_quantile over the buckets' increase
// summed over series; with no observation between the pages they are taken
// over the counts since the process started (`quantiles_since_start`).
// Without a first page no rates are given and quantiles are since start.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::scrape {

struct AppPage {
  std::string_view body;
  std::string_view content_type;
};

struct AppHeadline {
  std::string engine;  // vllm, sglang, tgi, triton, training; "" when not recognised
  std::string kind;    // serving, training, ""
  std::map<std::string, double, std::less<>> values;
  bool quantiles_since_start = false;
  std::vector<std::string> models;  // model_name / model label values, sorted, unique
  uint64_t samples = 0;             // on the second page
};

// `before` may be null. The error is the second page's parse error ("line 3: ...").
Expected<AppHeadline> app_headline(const AppPage* before, const AppPage& after, double seconds_apart);

// Prometheus's histogram_quantile over cumulative (upper bound, count)
// pairs sorted by bound, the last +Inf; NaN without observations.
double bucket_quantile(double q, const std::vector<std::pair<double, double>>& buckets);

}  // namespace llmon::scrape
