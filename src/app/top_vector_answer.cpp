#include "app/top_vector_answer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace llmon::app {
namespace {

using nlohmann::json;

class VectorSax : public nlohmann::json_sax<json> {
 public:
  explicit VectorSax(model::Snapshot& snap) : snap_(snap) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool string(string_t& v) override {
    if (in_metric()) {
      if (key_ == "__name__")
        name_ = v;
      else
        labels_.emplace_back(key_, v);
    } else if (in_value() && value_index_ == 1) {
      value_ = std::strtod(v.c_str(), nullptr);
      has_value_ = true;
    }
    return scalar();
  }
  bool start_object(std::size_t) override {
    stack_.push_back({'o', key_});
    if (in_element()) {  // a new series
      name_.clear();
      labels_.clear();
      has_value_ = false;
    }
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override {
    if (in_element()) emit();
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    stack_.push_back({'a', key_});
    value_index_ = 0;
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    if (in_value_array_parent()) value_index_ = 0;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  size_t series() const { return series_; }

 private:
  struct Level {
    char kind;        // 'o' object, 'a' array
    std::string key;  // the key this container is the value of
  };
  // root{ data{ result[ element{ metric{...} value[...] } ] } }
  bool at(size_t depth, char kind, std::string_view key) const {
    return stack_.size() > depth && stack_[depth].kind == kind && stack_[depth].key == key;
  }
  bool in_result() const { return stack_.size() >= 3 && at(1, 'o', "data") && at(2, 'a', "result"); }
  bool in_element() const { return stack_.size() == 4 && in_result() && stack_[3].kind == 'o'; }
  bool in_metric() const { return stack_.size() == 5 && in_result() && at(4, 'o', "metric"); }
  bool in_value() const { return stack_.size() == 5 && in_result() && at(4, 'a', "value"); }
  bool in_value_array_parent() const { return stack_.size() == 4 && in_result(); }
  bool scalar() {
    if (in_value()) ++value_index_;
    return true;
  }

  void emit() {
    if (name_.empty() || !has_value_) return;
    std::sort(labels_.begin(), labels_.end());
    names_.clear();
    values_.clear();
    for (auto& [k, v] : labels_) {
      names_.push_back(k);
      values_.push_back(v);
    }
    auto [it, fresh] = fam_.try_emplace({name_, names_}, snap_.families.size());
    if (fresh) {
      model::Family f;
      f.name = name_;
      f.type = name_.ends_with("_total") ? model::MetricType::kCounter : model::MetricType::kGauge;
      f.label_names = names_;
      snap_.families.push_back(std::move(f));
    }
    snap_.families[it->second].series.push_back({values_, value_});
    ++series_;
  }

  model::Snapshot& snap_;
  std::vector<Level> stack_;
  std::string key_, name_;
  std::vector<std::pair<std::string, std::string>> labels_;
  std::vector<std::string> names_, values_;
  std::map<std::pair<std::string, std::vector<std::string>>, size_t> fam_;
  double value_ = 0;
  bool has_value_ = false;
  int value_index_ = 0;
  size_t series_ = 0;
};

}  // namespace

Expected<model::SnapshotPtr> parse_vector_answer(std::string_view body, int64_t ts_ms) {
  auto snap = std::make_shared<model::Snapshot>();
  snap->timestamp_ms = ts_ms;
  VectorSax sax(*snap);
  if (!json::sax_parse(body, &sax, json::input_format_t::json, /*strict=*/true)) return Status::error("not JSON");
  snap->order.resize(snap->families.size());
  for (uint32_t i = 0; i < snap->order.size(); ++i) snap->order[i] = i;
  std::stable_sort(snap->order.begin(), snap->order.end(),
                   [&](uint32_t a, uint32_t b) { return snap->families[a].name < snap->families[b].name; });
  return model::SnapshotPtr(std::move(snap));
}

}  // namespace llmon::app
