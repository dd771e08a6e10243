#include "scrape/push_protobuf.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>

#include "base/proto_wire.h"

namespace llmon::scrape {
namespace {

using base::ProtoReader;

// dto.MetricType numbers.
enum DtoType : uint64_t {
  kDtoCounter = 0,
  kDtoGauge = 1,
  kDtoSummary = 2,
  kDtoUntyped = 3,
  kDtoHistogram = 4,
  kDtoGaugeHistogram = 5
};

std::optional<PushedType> from_dto(uint64_t t) {
  switch (t) {
    case kDtoCounter:
      return PushedType::kCounter;
    case kDtoGauge:
      return PushedType::kGauge;
    case kDtoSummary:
      return PushedType::kSummary;
    case kDtoUntyped:
      return PushedType::kUntyped;
    case kDtoHistogram:
    case kDtoGaugeHistogram:
      return PushedType::kHistogram;
  }
  return std::nullopt;
}

uint64_t to_dto(PushedType t) {
  switch (t) {
    case PushedType::kCounter:
      return kDtoCounter;
    case PushedType::kGauge:
      return kDtoGauge;
    case PushedType::kSummary:
      return kDtoSummary;
    case PushedType::kUntyped:
      return kDtoUntyped;
    case PushedType::kHistogram:
      return kDtoHistogram;
  }
  return kDtoUntyped;
}

// Reads the one double field (number 1) of Gauge, Counter, Untyped.
Status read_value(std::string_view msg, size_t at, double& value) {
  ProtoReader r(msg, at);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (f == 1) {
      if (Status st = r.expect(w, 1, "value"); !st) return st;
      if (Status st = r.dbl(value); !st) return st;
    } else if (Status st = r.skip(w); !st) {
      return st;
    }
  }
  return Status::ok();
}

// A Quantile or Bucket: (field 1 as uint64 or double, field 2 as double / uint64).
Status read_point(std::string_view msg, size_t at, bool bucket, std::pair<double, double>& p) {
  ProtoReader r(msg, at);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (bucket && f == 1) {  // cumulative_count uint64
      uint64_t c = 0;
      if (Status st = r.expect(w, 0, "cumulative_count"); !st) return st;
      if (Status st = r.varint(c); !st) return st;
      p.second = static_cast<double>(c);
    } else if (bucket && f == 2) {  // upper_bound double
      if (Status st = r.expect(w, 1, "upper_bound"); !st) return st;
      if (Status st = r.dbl(p.first); !st) return st;
    } else if (!bucket && (f == 1 || f == 2)) {  // quantile, value
      if (Status st = r.expect(w, 1, f == 1 ? "quantile" : "value"); !st) return st;
      if (Status st = r.dbl(f == 1 ? p.first : p.second); !st) return st;
    } else if (Status st = r.skip(w); !st) {
      return st;
    }
  }
  return Status::ok();
}

// Summary / Histogram: sample_count(1) sample_sum(2) points(3).
Status read_distribution(std::string_view msg, size_t at, bool histogram, PushedMetric& m) {
  ProtoReader r(msg, at);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (f == 1) {
      if (Status st = r.expect(w, 0, "sample_count"); !st) return st;
      if (Status st = r.varint(m.count); !st) return st;
    } else if (f == 2) {
      if (Status st = r.expect(w, 1, "sample_sum"); !st) return st;
      if (Status st = r.dbl(m.sum); !st) return st;
    } else if (f == 3) {
      std::string_view sub;
      size_t sub_at = 0;
      if (Status st = r.expect(w, 2, histogram ? "bucket" : "quantile"); !st) return st;
      if (Status st = r.bytes(sub, sub_at); !st) return st;
      std::pair<double, double> p{0, 0};
      if (Status st = read_point(sub, sub_at, histogram, p); !st) return st;
      m.points.push_back(p);
    } else if (Status st = r.skip(w); !st) {
      return st;
    }
  }
  return Status::ok();
}

Status read_label(std::string_view msg, size_t at, model::Label& l) {
  ProtoReader r(msg, at);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (f == 1 || f == 2) {
      if (Status st = r.string_field(w, f == 1 ? "label name" : "label value", f == 1 ? l.name : l.value); !st)
        return st;
    } else if (Status st = r.skip(w); !st) {
      return st;
    }
  }
  return Status::ok();
}

// Metric sub-message numbers by family type.
int value_field(PushedType t) {
  switch (t) {
    case PushedType::kGauge:
      return 2;
    case PushedType::kCounter:
      return 3;
    case PushedType::kSummary:
      return 4;
    case PushedType::kUntyped:
      return 5;
    case PushedType::kHistogram:
      return 7;
  }
  return 5;
}

PushedType type_of_field(uint64_t f) {
  switch (f) {
    case 2:
      return PushedType::kGauge;
    case 3:
      return PushedType::kCounter;
    case 4:
      return PushedType::kSummary;
    case 7:
      return PushedType::kHistogram;
  }
  return PushedType::kUntyped;
}

Status read_metric(std::string_view msg, size_t at, PushedFamily& fam, ProtoPush& push) {
  ProtoReader r(msg, at);
  PushedMetric m;
  std::optional<PushedType> held;  // the kind of value the metric holds (the last one given)
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (f == 1) {
      std::string_view sub;
      size_t sub_at = 0;
      if (Status st = r.expect(w, 2, "label"); !st) return st;
      if (Status st = r.bytes(sub, sub_at); !st) return st;
      model::Label l;
      if (Status st = read_label(sub, sub_at, l); !st) return st;
      m.labels.push_back(std::move(l));
    } else if (f == 6) {
      uint64_t ts = 0;
      if (Status st = r.expect(w, 0, "timestamp_ms"); !st) return st;
      if (Status st = r.varint(ts); !st) return st;
      push.had_timestamps = true;
    } else if (f == 2 || f == 3 || f == 4 || f == 5 || f == 7) {
      std::string_view sub;
      size_t sub_at = 0;
      if (Status st = r.expect(w, 2, "metric value"); !st) return st;
      if (Status st = r.bytes(sub, sub_at); !st) return st;
      held = type_of_field(f);
      m.points.clear();
      Status st = (f == 4 || f == 7) ? read_distribution(sub, sub_at, f == 7, m) : read_value(sub, sub_at, m.value);
      if (!st) return st;
    } else if (Status st = r.skip(w); !st) {
      return st;
    }
  }
  std::stable_sort(m.labels.begin(), m.labels.end(),
                   [](const model::Label& a, const model::Label& b) { return a.name < b.name; });
  std::string reason;
  for (size_t i = 1; i < m.labels.size() && reason.empty(); ++i)
    if (m.labels[i].name == m.labels[i - 1].name)
      reason = " has two or more labels with the same name: " + m.labels[i].name;
  if (reason.empty() && held != fam.type) reason = " is not a " + std::string(dto_type_name(fam.type));
  if (!reason.empty()) {
    if (!push.problem) {
      ProtoProblem p;
      p.family.name = fam.name;
      p.family.type = held.value_or(fam.type);
      if (!held) m.value = 0;
      p.family.metrics.push_back(std::move(m));
      p.reason = std::move(reason);
      push.problem = std::move(p);
    }
    return Status::ok();
  }
  fam.metrics.push_back(std::move(m));
  return Status::ok();
}

Status read_family(std::string_view msg, size_t at, PushedFamily& fam, ProtoPush& push) {
  // The type may follow the metrics on the wire: read the scalars first.
  {
    ProtoReader r(msg, at);
    while (!r.done()) {
      uint64_t f = 0;
      int w = 0;
      if (Status st = r.tag(f, w); !st) return st;
      if (f == 1) {
        if (Status st = r.string_field(w, "name", fam.name); !st) return st;
      } else if (f == 2) {
        std::string help;
        if (Status st = r.string_field(w, "help", help); !st) return st;
        fam.help = std::move(help);
      } else if (f == 3) {
        uint64_t t = 0;
        if (Status st = r.expect(w, 0, "type"); !st) return st;
        if (Status st = r.varint(t); !st) return st;
        auto type = from_dto(t);
        if (!type) return r.fail("unknown metric type " + std::to_string(t));
        fam.type = *type;
      } else if (Status st = r.skip(w); !st) {
        return st;
      }
    }
  }
  if (fam.name.empty())
    return Status::error("protobuf body: metric family without a name at byte " + std::to_string(at));
  ProtoReader r(msg, at);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (f != 4) {
      if (Status st = r.skip(w); !st) return st;
      continue;
    }
    std::string_view sub;
    size_t sub_at = 0;
    if (Status st = r.expect(w, 2, "metric"); !st) return st;
    if (Status st = r.bytes(sub, sub_at); !st) return st;
    if (Status st = read_metric(sub, sub_at, fam, push); !st) return st;
  }
  return Status::ok();
}

using base::put_bytes;
using base::put_double;
using base::put_tag;
using base::put_varint;

std::string encode_metric(const PushedFamily& f, const PushedMetric& m) {
  std::string out;
  for (const model::Label& l : m.labels) {
    std::string lp;
    put_bytes(lp, 1, l.name);
    put_bytes(lp, 2, l.value);
    put_bytes(out, 1, lp);
  }
  std::string v;
  if (f.type == PushedType::kSummary || f.type == PushedType::kHistogram) {
    const bool h = f.type == PushedType::kHistogram;
    put_tag(v, 1, 0);
    put_varint(v, m.count);
    put_double(v, 2, m.sum);
    for (const auto& [a, b] : m.points) {
      std::string p;
      if (h) {
        put_tag(p, 1, 0);
        put_varint(p, static_cast<uint64_t>(b));
        put_double(p, 2, a);
      } else {
        put_double(p, 1, a);
        put_double(p, 2, b);
      }
      put_bytes(v, 3, p);
    }
  } else {
    put_double(v, 1, m.value);
  }
  put_bytes(out, value_field(f.type), v);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool is_protobuf_push(std::string_view content_type) {
  size_t semi = content_type.find(';');
  if (lower(trim(content_type.substr(0, semi))) != "application/vnd.google.protobuf") return false;
  std::string encoding, proto;
  while (semi != std::string_view::npos) {
    content_type.remove_prefix(semi + 1);
    semi = content_type.find(';');
    std::string_view param = trim(content_type.substr(0, semi));
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    std::string name = lower(trim(param.substr(0, eq)));
    std::string_view value = trim(param.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (name == "encoding") encoding = std::string(value);
    if (name == "proto") proto = std::string(value);
  }
  return encoding == "delimited" && proto == "io.prometheus.client.MetricFamily";
}

Expected<ProtoPush> parse_protobuf_push(std::string_view body) {
  ProtoPush out;
  std::map<std::string, size_t, std::less<>> index;  // name -> position in out.families
  ProtoReader r(body, 0);
  while (!r.done()) {
    std::string_view msg;
    size_t at = 0;
    if (Status st = r.bytes(msg, at); !st) return st;
    PushedFamily fam;
    if (Status st = read_family(msg, at, fam, out); !st) return st;
    if (auto it = index.find(fam.name); it != index.end()) {
      out.families[it->second] = std::move(fam);
    } else {
      index.emplace(fam.name, out.families.size());
      out.families.push_back(std::move(fam));
    }
  }
  return out;
}

std::string protobuf_refusal(const ProtoPush& push, const std::vector<model::Label>& grouping) {
  if (push.had_timestamps) return "pushed metrics must not have timestamps";
  if (!push.problem) return "";
  PushedFamily f = push.problem->family;
  apply_grouping_labels(f, grouping);
  return "collected metric \"" + f.name + "\" " + describe_metric(f, f.metrics.front()) + push.problem->reason;
}

std::string encode_protobuf_push(const std::vector<PushedFamily>& families) {
  std::string out;
  for (const PushedFamily& f : families) {
    std::string msg;
    put_bytes(msg, 1, f.name);
    if (f.help) put_bytes(msg, 2, *f.help);
    put_tag(msg, 3, 0);
    put_varint(msg, to_dto(f.type));
    for (const PushedMetric& m : f.metrics) put_bytes(msg, 4, encode_metric(f, m));
    put_varint(out, msg.size());
    out += msg;
  }
  return out;
}

}  // namespace llmon::scrape
