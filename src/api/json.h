// JSON encoding of the Prometheus HTTP query API, byte for byte as
// Prometheus 2.42 writes it (web/api/v1/api.go, util/jsonutil, promql/value.go,
// Go's encoding/json); checked against the real server (docs/api.md):
//   * envelope {"status":"success","data":...,"warnings":[...],"infos":[...]}
//     (warnings/infos only when non-empty), errors
//     {"status":"error","errorType":"bad_data","error":"..."};
//   * vector and matrix points [t,"v"]: t in seconds with the milliseconds
//     written as three digits ("1030.500", "1030"), v as Go's
//     strconv.FormatFloat 'f' -1, or 'e' below 1e-6 and from 1e21
//     ("1e-07", "1e+22"), "+Inf", "-Inf", "NaN";
//   * scalar and string results [t,"v"]: t as encoding/json writes a float
//     ("1030.5"), a scalar's v always in 'f' form ("0.0000001");
//   * strings escaped as encoding/json does (HTML-safe: < > & as \u003c...,
//     invalid UTF-8 as \ufffd, U+2028/2029 escaped); label sets as objects
//     with sorted keys.
// Pure functions, no I/O, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "promql/engine.h"
#include "promql/value.h"
#include "storage/storage.h"

namespace llmon::api {

// strconv.FormatFloat(v, 'f', -1, 64), with "+Inf", "-Inf", "NaN".
std::string format_float_f(double v);
// jsonutil.MarshalFloat's text (without the quotes).
std::string format_sample_value(double v);
// jsonutil.MarshalTimestamp: "1435781451.781", "4", "-1030.050".
void append_sample_timestamp(std::string& out, int64_t t_ms);
// encoding/json's float64: shortest 'f' form, 'e' outside [1e-6, 1e21) ("1e-7").
void append_go_json_float(std::string& out, double v);
// encoding/json's string encoding, quotes included.
void append_json_string(std::string& out, std::string_view s);
// {"name":"value",...} in label order (sorted by name).
void append_labels(std::string& out, const model::Labels& labels);

// {"resultType":"...","result":...} of a query result.
std::string encode_query_data(const promql::Value& value);
// The same, appended to `out` (the envelope is then written around it in place).
void append_query_data(std::string& out, const promql::Value& value);
// ["a","b"]
std::string encode_string_array(const std::vector<std::string>& items);
// [{"__name__":"up",...},...]
std::string encode_label_sets(const std::vector<model::Labels>& sets);

std::string success_envelope(std::string_view data_json, const std::vector<std::string>& warnings = {},
                             const std::vector<std::string>& infos = {});
// Building a large answer in place: start `out` with kSuccessPrefix, append
// the data, then finish_success_envelope() adds the warnings, infos and the
// closing brace. The result equals success_envelope(data, warnings, infos).
inline constexpr std::string_view kSuccessPrefix = R"({"status":"success","data":)";
void finish_success_envelope(std::string& out, const std::vector<std::string>& warnings = {},
                             const std::vector<std::string>& infos = {});
std::string error_envelope(promql::ErrorType type, std::string_view message,
                           const std::vector<std::string>& warnings = {}, const std::vector<std::string>& infos = {});

}  // namespace llmon::api
