// The --explain request and answer (diagnose/explain.h).
#include "diagnose/explain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace llmon::diagnose {
namespace {

Diagnosis sample() {
  Diagnosis d;
  d.options.window_ms = 15 * 60 * 1000;
  d.summary.gpus = 8;
  d.summary.gpu_utilization_avg = 41.5;
  Finding f;
  f.kind = "input_bound_cpu";
  f.severity = Severity::kWarning;
  f.subject = {{"gpu", "0,1"}, {"pid", "4101"}};
  f.summary = "GPU 0,1 busy only 31 % over 15m while the job waits on the CPU";
  f.evidence = {{"rate(llmon_gpu_process_cpu_seconds_total[15m])", 0.99, "CPU of the GPU process, cores"}};
  f.advice = "raise num_workers";
  f.confidence = 0.7;
  d.findings.push_back(f);
  return d;
}

TEST(Explain, RequestCarriesEveryFindingWithItsEvidence) {
  auto j = nlohmann::json::parse(explain_request(sample(), "qwen2.5-7b"));
  EXPECT_EQ(j["model"], "qwen2.5-7b");
  ASSERT_EQ(j["messages"].size(), 2u);
  EXPECT_EQ(j["messages"][0]["role"], "system");
  EXPECT_NE(j["messages"][0]["content"].get<std::string>().find("Do not invent numbers"), std::string::npos);
  std::string user = j["messages"][1]["content"];
  auto data = nlohmann::json::parse(user.substr(user.find('{')));
  EXPECT_EQ(data["window"], "15m");
  EXPECT_EQ(data["node"]["gpus"], 8);
  const auto& f = data["findings"][0];
  EXPECT_EQ(f["kind"], "input_bound_cpu");
  EXPECT_EQ(f["severity"], "warning");
  EXPECT_EQ(f["subject"]["pid"], "4101");
  EXPECT_EQ(f["evidence"][0]["value"], 0.99);
  EXPECT_EQ(f["evidence"][0]["meaning"], "CPU of the GPU process, cores");
  EXPECT_EQ(f["playbook"], "raise num_workers");
  // A healthy node: an empty list, still a request.
  auto healthy = nlohmann::json::parse(explain_request(Diagnosis{}, "m"));
  std::string u = healthy["messages"][1]["content"];
  EXPECT_TRUE(nlohmann::json::parse(u.substr(u.find('{')))["findings"].empty());
}

TEST(Explain, AnswersAndErrors) {
  auto ok = explain_answer(R"({"choices":[{"message":{"role":"assistant","content":"Do X."}}]})");
  ASSERT_TRUE(ok.has_value()) << ok.error();
  EXPECT_EQ(*ok, "Do X.");
  auto err = explain_answer(R"({"error":{"message":"model overloaded","type":"server_error"}})");
  ASSERT_FALSE(err.has_value());
  EXPECT_EQ(err.error(), "the server says: model overloaded");
  EXPECT_FALSE(explain_answer("not json").has_value());
  EXPECT_FALSE(explain_answer(R"({"choices":[]})").has_value());
  EXPECT_FALSE(explain_answer(R"({"choices":[{"message":{"content":null}}]})").has_value());
}

TEST(Explain, Urls) {
  EXPECT_EQ(chat_completions_url("http://127.0.0.1:8000"), "http://127.0.0.1:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://127.0.0.1:8000/"), "http://127.0.0.1:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h:8080/v1"), "http://h:8080/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://h/openai/v1/chat/completions"), "https://h/openai/v1/chat/completions");
  EXPECT_EQ(models_url("http://h:8080/v1/chat/completions"), "http://h:8080/v1/models");
  EXPECT_EQ(models_url("http://h:8080"), "http://h:8080/v1/models");
  auto m = first_model(R"({"object":"list","data":[{"id":"llama-3.1-8b"},{"id":"other"}]})");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, "llama-3.1-8b");
  EXPECT_FALSE(first_model(R"({"data":[]})").has_value());
}

}  // namespace
}  // namespace llmon::diagnose
