// parse_vector_answer: the query API's vector answers as `llmon top --url`
// reads them (no DOM).
#include "app/top_vector_answer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "base/utf8.h"

namespace llmon::app {
namespace {

TEST(TopVectorAnswer, SeriesBecomeFamiliesWithSortedLabels) {
  const std::string body = R"({"status":"success","data":{"resultType":"vector","result":[
    {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1","UUID":"GPU-b"},"value":[1733.5,"87"]},
    {"metric":{"UUID":"GPU-a","__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"value":[1733.5,"12.5"]},
    {"metric":{"__name__":"node_cpu_seconds_total","cpu":"0","mode":"idle"},"value":[1733.5,"1e3"]},
    {"metric":{"__name__":"node_load1"},"value":[1733.5,"NaN"]},
    {"metric":{"mode":"no name"},"value":[1733.5,"1"]},
    {"metric":{"__name__":"no_value"}}
  ]},"warnings":["x"]})";
  auto snap = parse_vector_answer(body, 42);
  ASSERT_TRUE(snap) << snap.error();
  const model::Snapshot& s = **snap;
  EXPECT_EQ(s.timestamp_ms, 42);
  ASSERT_EQ(s.families.size(), 3u);  // the nameless and valueless series left out
  const model::Family* util = s.find("DCGM_FI_DEV_GPU_UTIL");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->label_names, (std::vector<std::string>{"UUID", "gpu"}));
  ASSERT_EQ(util->series.size(), 2u);
  EXPECT_EQ(util->series[1].label_values, (std::vector<std::string>{"GPU-a", "0"}));
  EXPECT_EQ(util->series[1].value, 12.5);
  EXPECT_EQ(util->type, model::MetricType::kGauge);
  const model::Family* cpu = s.find("node_cpu_seconds_total");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->type, model::MetricType::kCounter);
  EXPECT_EQ(cpu->series[0].value, 1000);
  EXPECT_TRUE(std::isnan(s.find("node_load1")->series[0].value));
  // order sorts by name.
  ASSERT_EQ(s.order.size(), 3u);
  EXPECT_EQ(s.families[s.order[0]].name, "DCGM_FI_DEV_GPU_UTIL");
  EXPECT_EQ(s.families[s.order[2]].name, "node_load1");
}

TEST(TopVectorAnswer, KeysNamedLikeTheOnesReadElsewhereAreIgnored) {
  // "metric" and "value" outside data.result, and nested inside a label-less
  // extra field, are not series.
  const std::string body = R"({"metric":{"__name__":"x"},"value":[1,"2"],"data":{"resultType":"vector",
    "stats":{"metric":{"__name__":"y"},"value":[1,"3"]},"result":[]}})";
  auto snap = parse_vector_answer(body, 0);
  ASSERT_TRUE(snap) << snap.error();
  EXPECT_TRUE((*snap)->families.empty());
}

TEST(TopVectorAnswer, InvalidJsonIsAnError) {
  EXPECT_FALSE(parse_vector_answer(R"({"data":{"result":[{"metric":)", 0));
  EXPECT_FALSE(parse_vector_answer("not json", 0));
  EXPECT_FALSE(parse_vector_answer("", 0));
  auto e = parse_vector_answer(R"({"data":{"result":[1,]}})", 0);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("at byte 21"), std::string::npos) << e.error();
  EXPECT_FALSE(parse_vector_answer("[]", 0));  // not an object
  EXPECT_FALSE(parse_vector_answer(std::string(100, '[') + std::string(100, ']'), 0));
  EXPECT_FALSE(parse_vector_answer(R"({"data":{"result":[]}} x)", 0));
}

TEST(TopVectorAnswer, EscapesAreDecoded) {
  const std::string body =
      R"({"data":{"result":[{"metric":{"__name__":"m","l\u0061bel":"q\"b\\c\/\u00e9\ud83d\ude00\n\t"},)"
      R"("value":[1,"4\u0032"]}]}})";
  auto snap = parse_vector_answer(body, 0);
  ASSERT_TRUE(snap) << snap.error();
  const model::Family* f = (*snap)->find("m");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->label_names, (std::vector<std::string>{"label"}));
  EXPECT_EQ(f->series[0].label_values[0], "q\"b\\c/\xc3\xa9\xf0\x9f\x98\x80\n\t");
  EXPECT_EQ(f->series[0].value, 42);
  EXPECT_FALSE(parse_vector_answer(R"({"data":{"result":[{"metric":{"__name__":"\ud83d"}}]}})", 0));
  EXPECT_FALSE(parse_vector_answer(R"({"data":{"result":[{"metric":{"__name__":"\x"}}]}})", 0));
  EXPECT_FALSE(parse_vector_answer("{\"data\":\"a\tb\"}", 0));  // a raw control character
}

// The answer as a DOM reads it: the reference for the differential below.
std::map<std::string, double> dom_series(const nlohmann::json& j) {
  std::map<std::string, double> out;
  if (!j.is_object() || !j.contains("data") || !j["data"].is_object()) return out;
  const auto& d = j["data"];
  if (!d.contains("result") || !d["result"].is_array()) return out;
  for (const auto& r : d["result"]) {
    if (!r.is_object()) continue;
    std::string name;
    std::map<std::string, std::string> labels;
    if (r.contains("metric") && r["metric"].is_object())
      for (const auto& [k, v] : r["metric"].items())
        if (v.is_string()) (k == "__name__" ? name : labels[k]) = v.get<std::string>();
    if (name.empty() || !r.contains("value") || !r["value"].is_array() || r["value"].size() < 2 ||
        !r["value"][1].is_string())
      continue;
    std::string key = name;
    for (const auto& [k, v] : labels) key += "," + k + "=" + v;
    out[key] = std::strtod(r["value"][1].get<std::string>().c_str(), nullptr);
  }
  return out;
}

std::map<std::string, double> our_series(const model::Snapshot& s) {
  std::map<std::string, double> out;
  for (const auto& f : s.families)
    for (const auto& x : f.series) {
      std::string key = f.name;
      for (size_t i = 0; i < f.label_names.size(); ++i) key += "," + f.label_names[i] + "=" + x.label_values[i];
      out[key] = x.value;
    }
  return out;
}

TEST(TopVectorAnswer, AgreesWithADomOnMutatedAnswers) {
  // Mutations of a real-shaped answer: whatever nlohmann's strict parser
  // accepts (an object at the top, valid UTF-8, duplicate keys aside) we
  // accept with the same series, whatever it refuses we refuse.
  const std::string base =
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","UUID":"GPU-a\u00e9"},"value":[1733.5,"87"]},)"
      R"({"metric":{"__name__":"node_load1"},"value":[1733.5,"-1.5e3"]},)"
      R"({"metric":{"__name__":"x","a":"1","b":"2"},"value":[1e2,"NaN"],"extra":[true,false,null,{}]}]},)"
      R"("warnings":["w"],"n":-0.5E+2})";
  std::mt19937 rng(20261204);
  const std::string alphabet = "{}[],:\"\\ 0123456789.eE+-tfnulrsabx\n\t\x01\xc3\xa9";
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string doc = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !doc.empty(); ++e) {
      size_t at = rng() % doc.size();
      switch (rng() % 3) {
        case 0:
          doc[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          doc.erase(at, 1 + rng() % 3);
          break;
        default:
          doc.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    if (!base::is_valid_utf8(doc)) continue;
    auto dom = nlohmann::json::parse(doc, nullptr, false);
    auto ours = parse_vector_answer(doc, 0);
    const bool dom_ok = !dom.is_discarded() && dom.is_object();
    ASSERT_EQ(bool(ours), dom_ok) << doc << "\n" << (ours ? "" : ours.error());
    if (!dom_ok) {
      ++refused;
      continue;
    }
    ++accepted;
    // nlohmann keeps the last of duplicate keys, we see every one: compare
    // only documents without duplicate labels.
    bool dup = false;
    for (const auto& f : (*ours)->families)
      dup |= std::adjacent_find(f.label_names.begin(), f.label_names.end()) != f.label_names.end();
    if (dup) continue;
    auto a = dom_series(dom), b = our_series(**ours);
    EXPECT_EQ(a.size(), b.size()) << doc;
    if (a.size() == b.size()) {
      for (const auto& [k, v] : a) {
        ASSERT_TRUE(b.count(k)) << doc << "\nmissing " << k;
        if (!(std::isnan(v) && std::isnan(b[k]))) {
          EXPECT_EQ(b[k], v) << doc;
        }
      }
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace llmon::app
