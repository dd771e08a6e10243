#include "diagnose/explain.h"

#include <nlohmann/json.hpp>

#include "diagnose/detector.h"

namespace llmon::diagnose {
namespace {

constexpr std::string_view kSystem =
    "You are a site reliability engineer for GPU clusters that train and serve large language models. "
    "You are given the findings of llmon, a monitoring agent, for one node over a time window: each with "
    "its severity, subject (GPU, process, device), a one-line summary, the PromQL evidence with its value "
    "and meaning, and a playbook step. Explain to an ML engineer, in plain prose and at most 250 words: "
    "what is going on, which finding to act on first and why, and the concrete next steps. Cite the "
    "evidence values you rely on. Do not invent numbers, causes or metrics that are not in the findings; "
    "say so when the findings are not enough to decide.";

std::string strip_slash(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return std::string(s);
}

std::string under_v1(std::string_view base, std::string_view leaf) {
  std::string b = strip_slash(base);
  if (b.size() >= 3 && b.compare(b.size() - 3, 3, "/v1") == 0) return b + "/" + std::string(leaf);
  return b + "/v1/" + std::string(leaf);
}

}  // namespace

std::string explain_request(const Diagnosis& d, std::string_view model) {
  using nlohmann::json;
  json findings = json::array();
  for (const Finding& f : d.findings) {
    json evidence = json::array();
    for (const Evidence& e : f.evidence)
      evidence.push_back({{"query", e.expr}, {"value", e.value}, {"meaning", e.note}});
    findings.push_back({{"kind", f.kind},
                        {"severity", std::string(severity_name(f.severity))},
                        {"subject", f.subject},
                        {"summary", f.summary},
                        {"confidence", f.confidence},
                        {"evidence", evidence},
                        {"playbook", f.advice}});
  }
  json input = {{"window", prom_duration(d.options.window_ms)},
                {"node",
                 {{"gpus", d.summary.gpus},
                  {"gpu_utilization_avg_percent", d.summary.gpu_utilization_avg},
                  {"gpu_hours", d.summary.gpu_hours},
                  {"cost_usd", d.summary.cost},
                  {"idle_cost_usd", d.summary.idle_cost}}},
                {"findings", findings}};
  json req = {
      {"model", std::string(model)},
      {"temperature", 0.2},
      {"max_tokens", 800},
      {"messages", json::array({{{"role", "system"}, {"content", std::string(kSystem)}},
                                {{"role", "user"},
                                 {"content", "llmon's findings as JSON (no finding: the node looked healthy):\n" +
                                                 input.dump(2)}}})}};
  return req.dump();
}

Expected<std::string> explain_answer(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::error("the answer is not JSON");
  if (j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      return Status::error("the server says: " + e["message"].get<std::string>());
    return Status::error("the server answered an error: " + e.dump());
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return Status::error("the answer has no choices");
  const auto& c = j["choices"][0];
  if (!c.is_object() || !c.contains("message") || !c["message"].is_object() || !c["message"].contains("content") ||
      !c["message"]["content"].is_string())
    return Status::error("the answer's first choice has no message content");
  return c["message"]["content"].get<std::string>();
}

std::string chat_completions_url(std::string_view base) {
  std::string b = strip_slash(base);
  constexpr std::string_view kLeaf = "/chat/completions";
  if (b.size() >= kLeaf.size() && b.compare(b.size() - kLeaf.size(), kLeaf.size(), kLeaf) == 0) return b;
  return under_v1(b, "chat/completions");
}

std::string models_url(std::string_view base) {
  std::string b = strip_slash(base);
  constexpr std::string_view kLeaf = "/chat/completions";
  if (b.size() >= kLeaf.size() && b.compare(b.size() - kLeaf.size(), kLeaf.size(), kLeaf) == 0)
    b.resize(b.size() - kLeaf.size());
  return under_v1(b, "models");
}

Expected<std::string> first_model(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].empty() ||
      !j["data"][0].is_object() || !j["data"][0].contains("id") || !j["data"][0]["id"].is_string())
    return Status::error("/v1/models lists no model (set --diagnose.llm.model)");
  return j["data"][0]["id"].get<std::string>();
}

}  // namespace llmon::diagnose
