// A detector looks for one family of problems (one or a few kinds) and adds
// findings. Detectors are independent: each reads only through the Context,
// so a new source of evidence (log events, application metrics) is a new
// query in a detector or a new detector, never a change to the engine.
// One file per detector under detectors/, one line in detectors.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/finding.h"
#include "diagnose/source.h"

namespace llmon::diagnose {

struct Options {
  int64_t t_ms = 0;                         // end of the window
  int64_t window_ms = 15 * 60 * 1000;       // --window
  std::string selector;                     // matchers added to every selector, e.g. job="llmon",instance="n1:8747"
  std::map<std::string, double> gpu_price;  // $ per GPU-hour by model-name substring ("H100" -> 2.5)
  double default_gpu_price = 2.0;
};

// $ per GPU-hour for a modelName label: the longest key of `prices` it contains.
double gpu_price_for(const Options& o, std::string_view model_name);

// The documented default prices (docs/diagnosis.md).
std::map<std::string, double> default_gpu_prices();

// --diagnose.gpu-price: "H100=2.5,A100=1.8" over the defaults. Errors name the bad item.
Expected<std::map<std::string, double>> parse_gpu_prices(std::string_view text);

// Milliseconds as the PromQL duration a selector takes ("15m", "1h", "90s").
std::string prom_duration(int64_t ms);

class Context {
 public:
  Context(QuerySource& source, const Options& options) : source_(source), options_(options) {}
  const Options& options() const { return options_; }
  // `name{<selector>,<extra>}`: a selector with the diagnosis' matchers.
  std::string sel(std::string_view name, std::string_view extra = "") const;
  // The window as a PromQL duration ("15m").
  std::string window() const;
  // The window as a subquery range, "[15m:15s]": a step of 15 s, coarser for
  // long windows (at most 480 steps), for the share of time a condition holds
  // or statistics across the GPUs over time.
  std::string sub() const;
  // The subquery's step in ms.
  int64_t sub_step_ms() const;
  double window_hours() const { return static_cast<double>(options_.window_ms) / 3'600'000.0; }
  // Evaluates at the window's end; an error is remembered (errors()) and
  // answers an empty vector, so one missing family never stops a diagnosis.
  promql::Vector query(const std::string& expr);
  const std::vector<std::string>& errors() const { return errors_; }
  // A finding with the window, kind and severity filled in.
  Finding finding(std::string_view kind, Severity severity) const;

 private:
  QuerySource& source_;
  const Options& options_;
  std::vector<std::string> errors_;
};

class Detector {
 public:
  virtual ~Detector() = default;
  virtual std::string_view name() const = 0;
  // The kinds it can report (docs/diagnosis.md lists each).
  virtual std::vector<std::string_view> kinds() const = 0;
  virtual void run(Context& ctx, std::vector<Finding>& out) = 0;
};

// Every built-in detector, in a fixed order.
std::vector<std::unique_ptr<Detector>> builtin_detectors();

// Helpers for detectors: a sample's labels as a subject, one label's value.
std::map<std::string, std::string> subject_of(const promql::VectorSample& s,
                                              std::initializer_list<std::string_view> names);
// The value of `v`'s first sample (an aggregate's only one), or `fallback`.
double first_value(const promql::Vector& v, double fallback = -1);
// The mountpoint of the first filesystem of `filesystems` (node_filesystem_*
// samples) on block device `disk` ("nvme1n1": /dev/nvme1n1, /dev/nvme1n1p2),
// or "".
std::string mountpoint_of(const promql::Vector& filesystems, std::string_view disk);
// The sample of `v` whose `label` equals `value`, or nullptr.
const promql::VectorSample* find_by(const promql::Vector& v, std::string_view label, std::string_view value);

}  // namespace llmon::diagnose
