// Pushed families (push_family.h): expfmt's text reading and writing and
// client_golang's metric order, as Pushgateway 1.5 uses them.
#include "scrape/push_family.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "exposition/text_writer.h"
#include "go/strconv.h"

namespace llmon::scrape {

namespace {

using exposition::TextFamily;

void sort_labels(std::vector<model::Label>& ls) {
  std::sort(ls.begin(), ls.end(), [](const model::Label& a, const model::Label& b) { return a.name < b.name; });
}

uint64_t to_count(double v) {
  if (!(v >= 0)) return 0;
  if (v >= 18446744073709551616.0) return UINT64_MAX;
  return static_cast<uint64_t>(v);
}

// expfmt's parseFloat: no hex mantissa exponents or underscores.
Expected<double> parse_bound(std::string_view s) {
  if (s.find_first_of("pP_") != std::string_view::npos) return Status::error("unsupported character in float");
  return go::parse_float(s);
}

// A summary or histogram: samples gathered per label set without `special`.
Expected<PushedFamily> complex_family(TextFamily& t, std::string_view special) {
  PushedFamily f{t.name, std::move(t.help), t.type, {}};
  const bool histogram = t.type == PushedType::kHistogram;
  std::map<std::vector<std::pair<std::string, std::string>>, size_t> index;  // label set -> metric
  for (auto& s : t.samples) {
    std::vector<model::Label> labels;
    std::optional<std::string> point;
    for (auto& [n, v] : s.labels) {
      if (n == special) {
        point = v;
      } else {
        labels.push_back({n, v});
      }
    }
    sort_labels(labels);
    std::vector<std::pair<std::string, std::string>> key;
    for (const auto& l : labels) key.emplace_back(l.name, l.value);
    auto [it, fresh] = index.try_emplace(std::move(key), f.metrics.size());
    if (fresh) f.metrics.push_back(PushedMetric{std::move(labels), 0, {}, 0, 0});
    PushedMetric& m = f.metrics[it->second];
    const std::string_view rest = std::string_view(s.name).substr(f.name.size());
    if (rest == "_sum") {
      m.sum = s.value;
    } else if (rest == "_count") {
      m.count = to_count(s.value);
    } else if (point && (histogram ? rest == "_bucket" : rest.empty())) {
      auto p = parse_bound(*point);
      if (!p) {
        return Status::error("expected float as value for '" + std::string(special) + "' label, got " +
                             go::quote(*point));
      }
      m.points.emplace_back(*p, histogram ? static_cast<double>(to_count(s.value)) : s.value);
    }
  }
  return f;
}

void append_labels(std::string& out, const std::vector<model::Label>& labels, std::string_view extra_name = {},
                   double extra_value = 0) {
  if (labels.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& l : labels) {
    if (!first) out += ',';
    first = false;
    out += l.name;
    out += "=\"";
    exposition::append_escaped_label_value(out, l.value);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out += ',';
    out += extra_name;
    out += "=\"";
    exposition::append_value(out, extra_value);
    out += '"';
  }
  out += '}';
}

void append_sample(std::string& out, std::string_view name, std::string_view suffix, const PushedMetric& m,
                   double value, std::string_view extra_name = {}, double extra_value = 0) {
  out += name;
  out += suffix;
  append_labels(out, m.labels, extra_name, extra_value);
  out += ' ';
  exposition::append_value(out, value);
  out += '\n';
}

bool has_inf_bucket(const PushedMetric& m) {
  for (const auto& [b, c] : m.points)
    if (std::isinf(b) && b > 0) return true;
  return false;
}

// Protobuf text format string escaping (golang/protobuf's writeString):
// \n \r \t \" \' \\ escaped, other bytes outside printable ASCII as \ooo.
void append_proto_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out += '\\';
          out += static_cast<char>('0' + ((c >> 6) & 7));
          out += static_cast<char>('0' + ((c >> 3) & 7));
          out += static_cast<char>('0' + (c & 7));
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void append_proto_float(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
  } else if (std::isinf(v)) {
    out += v > 0 ? "inf" : "-inf";
  } else {
    out += go::format_float(v, 'g', -1);
  }
}

}  // namespace

std::string_view dto_type_name(PushedType t) {
  switch (t) {
    case PushedType::kCounter:
      return "COUNTER";
    case PushedType::kGauge:
      return "GAUGE";
    case PushedType::kSummary:
      return "SUMMARY";
    case PushedType::kHistogram:
      return "HISTOGRAM";
    case PushedType::kUntyped:
      break;
  }
  return "UNTYPED";
}

Expected<std::vector<PushedFamily>> pushed_families(std::vector<TextFamily> text) {
  std::vector<PushedFamily> out;
  out.reserve(text.size());
  for (auto& t : text) {
    if (t.type == PushedType::kSummary || t.type == PushedType::kHistogram) {
      auto f = complex_family(t, t.type == PushedType::kSummary ? "quantile" : "le");
      if (!f) return f.status();
      out.push_back(std::move(*f));
      continue;
    }
    PushedFamily f{t.name, std::move(t.help), t.type, {}};
    f.metrics.reserve(t.samples.size());
    for (auto& s : t.samples) {
      PushedMetric m;
      m.labels.reserve(s.labels.size());
      for (auto& [n, v] : s.labels) m.labels.push_back({std::move(n), std::move(v)});
      sort_labels(m.labels);
      m.value = s.value;
      f.metrics.push_back(std::move(m));
    }
    out.push_back(std::move(f));
  }
  return out;
}

void apply_grouping_labels(PushedFamily& f, const std::vector<model::Label>& grouping) {
  for (auto& m : f.metrics) {
    for (const auto& g : grouping) {
      auto it = std::find_if(m.labels.begin(), m.labels.end(), [&](const model::Label& l) { return l.name == g.name; });
      if (it != m.labels.end()) {
        it->value = g.value;
      } else {
        m.labels.push_back(g);
      }
    }
    if (std::none_of(m.labels.begin(), m.labels.end(), [](const model::Label& l) { return l.name == "instance"; })) {
      m.labels.push_back({"instance", ""});
    }
    sort_labels(m.labels);
  }
}

std::string describe_metric(const PushedFamily& f, const PushedMetric& m) {
  std::string out = "{ ";
  for (const auto& l : m.labels) {
    out += "label:<name:";
    append_proto_string(out, l.name);
    out += " value:";
    append_proto_string(out, l.value);
    out += " > ";
  }
  switch (f.type) {
    case PushedType::kCounter:
    case PushedType::kGauge:
    case PushedType::kUntyped:
      out += f.type == PushedType::kCounter ? "counter" : f.type == PushedType::kGauge ? "gauge" : "untyped";
      out += ":<value:";
      append_proto_float(out, m.value);
      out += " > ";
      break;
    case PushedType::kSummary:
    case PushedType::kHistogram: {
      const bool h = f.type == PushedType::kHistogram;
      out += h ? "histogram:<sample_count:" : "summary:<sample_count:";
      out += std::to_string(m.count);
      out += " sample_sum:";
      append_proto_float(out, m.sum);
      out += ' ';
      for (const auto& [p, v] : m.points) {
        if (h) {
          out += "bucket:<cumulative_count:" + std::to_string(to_count(v)) + " upper_bound:";
          append_proto_float(out, p);
        } else {
          out += "quantile:<quantile:";
          append_proto_float(out, p);
          out += " value:";
          append_proto_float(out, v);
        }
        out += " > ";
      }
      out += "> ";
      break;
    }
  }
  out += '}';
  return out;
}

bool metric_less(const PushedMetric& a, const PushedMetric& b) {
  if (a.labels.size() != b.labels.size()) return a.labels.size() < b.labels.size();
  for (size_t i = 0; i < a.labels.size(); ++i) {
    if (a.labels[i].value != b.labels[i].value) return a.labels[i].value < b.labels[i].value;
  }
  return false;
}

void write_push_page(const std::vector<PushedFamily>& families, std::string& out) {
  for (const auto& f : families) {
    if (f.metrics.empty()) continue;
    if (f.help) {
      out += "# HELP ";
      out += f.name;
      out += ' ';
      exposition::append_escaped_help(out, *f.help);
      out += '\n';
    }
    out += "# TYPE ";
    out += f.name;
    out += ' ';
    std::string type(dto_type_name(f.type));
    std::transform(type.begin(), type.end(), type.begin(), [](char c) { return static_cast<char>(c - 'A' + 'a'); });
    out += type;
    out += '\n';
    for (const auto& m : f.metrics) {
      switch (f.type) {
        case PushedType::kCounter:
        case PushedType::kGauge:
        case PushedType::kUntyped:
          append_sample(out, f.name, "", m, m.value);
          break;
        case PushedType::kSummary:
          for (const auto& [q, v] : m.points) append_sample(out, f.name, "", m, v, "quantile", q);
          append_sample(out, f.name, "_sum", m, m.sum);
          append_sample(out, f.name, "_count", m, static_cast<double>(m.count));
          break;
        case PushedType::kHistogram:
          for (const auto& [b, c] : m.points) append_sample(out, f.name, "_bucket", m, c, "le", b);
          if (!has_inf_bucket(m)) {
            append_sample(out, f.name, "_bucket", m, static_cast<double>(m.count), "le", INFINITY);
          }
          append_sample(out, f.name, "_sum", m, m.sum);
          append_sample(out, f.name, "_count", m, static_cast<double>(m.count));
          break;
      }
    }
  }
}

namespace {

model::MetricType model_type(PushedType t) {
  switch (t) {
    case PushedType::kCounter:
      return model::MetricType::kCounter;
    case PushedType::kGauge:
      return model::MetricType::kGauge;
    default:
      return model::MetricType::kUntyped;
  }
}

// Series of one model family name, grouped by their label names.
class SnapshotFamilies {
 public:
  void add(const PushedMetric& m, double value, std::string_view extra_name = {}, std::string extra_value = {}) {
    std::vector<std::string> names;
    std::vector<std::string> values;
    for (const auto& l : m.labels) {
      names.push_back(l.name);
      values.push_back(l.value);
    }
    if (!extra_name.empty()) {
      // le / quantile sorted in among the others (model families are by name).
      auto pos = std::lower_bound(names.begin(), names.end(), extra_name);
      values.insert(values.begin() + (pos - names.begin()), std::move(extra_value));
      names.insert(pos, std::string(extra_name));
    }
    auto [it, fresh] = index_.try_emplace(names, groups_.size());
    if (fresh) groups_.push_back({std::move(names), {}});
    groups_[it->second].series.emplace_back(std::move(values), value);
  }
  void emit(model::SnapshotBuilder& out, std::string_view name, std::string_view help, model::MetricType type) {
    for (const auto& g : groups_) {
      auto w = out.family(name, help, type, g.names);
      for (const auto& [values, v] : g.series) w.add(values, v);
    }
  }

 private:
  struct Group {
    std::vector<std::string> names;
    std::vector<std::pair<std::vector<std::string>, double>> series;
  };
  std::map<std::vector<std::string>, size_t> index_;
  std::vector<Group> groups_;
};

std::string label_float(double v) {
  std::string s;
  exposition::append_value(s, v);
  return s;
}

}  // namespace

void add_to_snapshot(const std::vector<PushedFamily>& families, model::SnapshotBuilder& out,
                     std::string_view help_default) {
  for (const auto& f : families) {
    if (f.metrics.empty()) continue;
    const std::string_view help = f.help ? std::string_view(*f.help) : help_default;
    if (f.type != PushedType::kSummary && f.type != PushedType::kHistogram) {
      SnapshotFamilies fam;
      for (const auto& m : f.metrics) fam.add(m, m.value);
      fam.emit(out, f.name, help, model_type(f.type));
      continue;
    }
    const bool h = f.type == PushedType::kHistogram;
    SnapshotFamilies points, sums, counts;
    for (const auto& m : f.metrics) {
      for (const auto& [p, v] : m.points) points.add(m, v, h ? "le" : "quantile", label_float(p));
      if (h && !has_inf_bucket(m)) points.add(m, static_cast<double>(m.count), "le", "+Inf");
      sums.add(m, m.sum);
      counts.add(m, static_cast<double>(m.count));
    }
    points.emit(out, h ? f.name + "_bucket" : f.name, help, model::MetricType::kUntyped);
    sums.emit(out, f.name + "_sum", help, model::MetricType::kUntyped);
    counts.emit(out, f.name + "_count", help, model::MetricType::kUntyped);
  }
}

}  // namespace llmon::scrape
