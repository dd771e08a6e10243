// The dashboard's fleet mode (`--ui.datasource URL`, docs/dashboard.md):
// the dashboard's data calls forwarded to another server that speaks the
// Prometheus query API (the fleet's Prometheus, VictoriaMetrics, Thanos,
// another llmon), so one dashboard shows every node's GPUs with the same
// labels. Routes, read-only (the read role of websec/roles.h):
//   GET|POST /ui/datasource/api/v1/query, /query_range, /series, /labels
//   GET      /ui/datasource/api/v1/label/<name>/values
//   GET      /ui/datasource/nodes   {"status":"success","data":{"label":L,
//            "nodes":[values of L on node_uname_info, DCGM_FI_DEV_GPU_UTIL
//            and llmon_gpu_up series]}}
// The node picker: a `node=V` parameter scopes the call to one node: every
// selector of `query` (and of each match[]) also requires {L="V"}
// (scope_query: the query parsed and printed back by promql, so nothing
// outside the node leaks in through a function or a subquery); /labels and
// label values without match[] get match[]={L="V"}. The answer (status,
// Content-Type, body) is the server's, unchanged; a server that cannot be
// reached gives 502 in the API's error envelope naming it.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "http/server.h"
#include "net/http_request.h"

namespace llmon::api {

struct DatasourceOptions {
  std::string url;  // "http://prometheus:9090" (a path prefix allowed)
  std::string node_label = "instance";
  net::http::ClientOptions client;  // auth and TLS (--ui.datasource.http-config-file); timeouts set here
};

// `query` with {label="value"} added to every vector selector (an existing
// matcher on `label` replaced); the parse error in Prometheus's wording.
Expected<std::string> scope_query(std::string_view query, std::string_view label, std::string_view value);

Status register_datasource_routes(http::Server& server, DatasourceOptions opts);

}  // namespace llmon::api
