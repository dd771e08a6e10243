// The push store's persistence file (push_store.h save/load; the format is
// docs/scrape.md "Persistence file"): one JSON document, floats as Go-'g'
// strings so NaN and infinities survive.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/file_reader.h"
#include "exposition/text_writer.h"
#include "go/strconv.h"
#include "scrape/push_store.h"

namespace llmon::scrape {

namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "llmon-push-store";
constexpr int kVersion = 1;

std::string float_text(double v) {
  std::string s;
  exposition::append_value(s, v);
  return s;
}

std::string_view type_word(PushedType t) {
  switch (t) {
    case PushedType::kCounter:
      return "counter";
    case PushedType::kGauge:
      return "gauge";
    case PushedType::kSummary:
      return "summary";
    case PushedType::kHistogram:
      return "histogram";
    case PushedType::kUntyped:
      break;
  }
  return "untyped";
}

json labels_json(const std::vector<model::Label>& labels) {
  json out = json::object();
  for (const auto& l : labels) out[l.name] = l.value;
  return out;
}

json family_json(const PushedFamily& f, int64_t pushed_ms) {
  json j{{"name", f.name}, {"type", type_word(f.type)}, {"pushed_ms", pushed_ms}};
  if (f.help) j["help"] = *f.help;
  json metrics = json::array();
  for (const auto& m : f.metrics) {
    json jm{{"labels", labels_json(m.labels)}};
    if (f.type == PushedType::kSummary || f.type == PushedType::kHistogram) {
      json points = json::array();
      for (const auto& [p, v] : m.points) points.push_back(json::array({float_text(p), float_text(v)}));
      jm["points"] = std::move(points);
      jm["sum"] = float_text(m.sum);
      jm["count"] = m.count;
    } else {
      jm["value"] = float_text(m.value);
    }
    metrics.push_back(std::move(jm));
  }
  j["metrics"] = std::move(metrics);
  return j;
}

// Reading: every accessor checks the JSON type; the first problem is the error.
struct Reader {
  std::string error;

  bool fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
    return false;
  }
  bool str(const json& j, const char* key, std::string& out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return fail(std::string("missing or non-string \"") + key + "\"");
    out = it->get<std::string>();
    return true;
  }
  bool num(const json& j, const char* key, double& out) {
    std::string s;
    if (!str(j, key, s)) return false;
    auto v = go::parse_float(s);
    if (!v) return fail(std::string("bad number in \"") + key + "\": " + v.error());
    out = *v;
    return true;
  }
  bool labels(const json& j, std::vector<model::Label>& out) {
    auto it = j.find("labels");
    if (it == j.end() || !it->is_object()) return fail("missing or non-object \"labels\"");
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) return fail("non-string label value of \"" + k + "\"");
      out.push_back({k, v.get<std::string>()});  // object keys come sorted
    }
    return true;
  }
  bool family(const json& j, PushGroup::Stored& out) {
    PushedFamily& f = out.family;
    std::string type;
    if (!str(j, "name", f.name) || !str(j, "type", type)) return false;
    if (type == "counter") {
      f.type = PushedType::kCounter;
    } else if (type == "gauge") {
      f.type = PushedType::kGauge;
    } else if (type == "summary") {
      f.type = PushedType::kSummary;
    } else if (type == "histogram") {
      f.type = PushedType::kHistogram;
    } else if (type == "untyped") {
      f.type = PushedType::kUntyped;
    } else {
      return fail("unknown type \"" + type + "\"");
    }
    if (auto h = j.find("help"); h != j.end()) {
      if (!h->is_string()) return fail("non-string \"help\"");
      f.help = h->get<std::string>();
    }
    if (auto t = j.find("pushed_ms"); t != j.end() && t->is_number_integer()) out.pushed_ms = t->get<int64_t>();
    auto ms = j.find("metrics");
    if (ms == j.end() || !ms->is_array()) return fail("missing or non-array \"metrics\"");
    for (const auto& jm : *ms) {
      if (!jm.is_object()) return fail("non-object metric");
      PushedMetric m;
      if (!labels(jm, m.labels)) return false;
      if (f.type == PushedType::kSummary || f.type == PushedType::kHistogram) {
        auto ps = jm.find("points");
        if (ps == jm.end() || !ps->is_array()) return fail("missing or non-array \"points\"");
        for (const auto& p : *ps) {
          if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string()) return fail("bad point");
          auto a = go::parse_float(p[0].get<std::string>());
          auto b = go::parse_float(p[1].get<std::string>());
          if (!a || !b) return fail("bad number in a point");
          m.points.emplace_back(*a, *b);
        }
        if (!num(jm, "sum", m.sum)) return false;
        auto c = jm.find("count");
        if (c == jm.end() || !c->is_number_unsigned()) return fail("missing or non-integer \"count\"");
        m.count = c->get<uint64_t>();
      } else if (!num(jm, "value", m.value)) {
        return false;
      }
      f.metrics.push_back(std::move(m));
    }
    return true;
  }
};

}  // namespace

Status PushStore::save(const std::string& path) const {
  json doc{{"format", kFormat}, {"version", kVersion}};
  json groups = json::array();
  {
    std::lock_guard lock(mu_);
    for (const auto& [k, g] : groups_) {
      json jg{{"labels", labels_json(g.key.labels)}};
      json fams = json::array();
      for (const auto& [name, st] : g.families) fams.push_back(family_json(st.family, st.pushed_ms));
      jg["families"] = std::move(fams);
      groups.push_back(std::move(jg));
    }
  }
  doc["groups"] = std::move(groups);
  // The store holds valid UTF-8 only (the check refuses other label values);
  // replace keeps a stray byte in help text from failing the save.
  std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace);
  text += '\n';
  return base::write_file_atomic(path, text, 0644);
}

Status PushStore::load(const std::string& path) {
  std::string text;
  if (Status s = base::read_file(path, text); !s) {
    if (::access(path.c_str(), F_OK) != 0) {  // no file yet: an empty store
      std::lock_guard lock(mu_);
      groups_.clear();
      index_ = Index{};
      ++generation_;
      return Status::ok();
    }
    return s;
  }
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::error(path + ": not a JSON object");
  if (doc.value("format", std::string()) != kFormat) return Status::error(path + ": not a push store file");
  if (doc.value("version", 0) != kVersion) return Status::error(path + ": unsupported version");
  auto jgroups = doc.find("groups");
  if (jgroups == doc.end() || !jgroups->is_array()) return Status::error(path + ": missing \"groups\"");
  Reader r;
  std::map<std::string, PushGroup> loaded;
  size_t gi = 0;
  for (const auto& jg : *jgroups) {
    PushGroup g;
    if (!jg.is_object() || !r.labels(jg, g.key.labels)) {
      return Status::error(path + ": group " + std::to_string(gi) + ": " +
                           (r.error.empty() ? "not an object" : r.error));
    }
    auto fams = jg.find("families");
    if (fams == jg.end() || !fams->is_array()) {
      return Status::error(path + ": group " + std::to_string(gi) + ": missing \"families\"");
    }
    for (const auto& jf : *fams) {
      PushGroup::Stored st;
      if (!jf.is_object() || !r.family(jf, st)) {
        return Status::error(path + ": group " + std::to_string(gi) + ": " +
                             (r.error.empty() ? "family not an object" : r.error));
      }
      std::string name = st.family.name;
      g.families[name] = std::move(st);
    }
    std::string k = encode_grouping_key(g.key);
    loaded[k] = std::move(g);
    ++gi;
  }
  std::lock_guard lock(mu_);
  groups_.clear();
  index_ = Index{};
  for (auto& [k, g] : loaded) put_group(k, std::move(g));
  ++generation_;
  return Status::ok();
}

}  // namespace llmon::scrape
