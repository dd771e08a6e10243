#include "scrape/kubelet_pods.h"

#include <unistd.h>

#include <climits>
#include <nlohmann/json.hpp>

#include "base/file_reader.h"
#include "base/strings.h"
#include "net/http_client.h"

namespace llmon::scrape {
namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Port {
  std::string container;
  int port = 0;
  std::string name;
};

}  // namespace

Expected<std::vector<TargetGroup>> parse_kubelet_pods(std::string_view text, std::string_view source) {
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::error(std::string(source) + ": not a JSON PodList");
  std::vector<TargetGroup> out;
  auto items = doc.find("items");
  if (items == doc.end() || items->is_null()) return out;
  if (!items->is_array()) return Status::error(std::string(source) + ": items is not a list");
  for (const json& pod : *items) {
    if (!pod.is_object()) continue;
    const json meta = pod.value("metadata", json::object());
    const json spec = pod.value("spec", json::object());
    const json status = pod.value("status", json::object());
    const json ann = meta.value("annotations", json::object());
    if (!ann.is_object() || str(ann, "prometheus.io/scrape") != "true") continue;
    if (str(status, "phase") != "Running") continue;
    const std::string ip = str(status, "podIP");
    if (ip.empty()) continue;
    std::vector<Port> ports;
    for (const json& c : spec.value("containers", json::array())) {
      if (!c.is_object()) continue;
      for (const json& p : c.value("ports", json::array())) {
        if (!p.is_object() || !p.contains("containerPort") || !p["containerPort"].is_number_integer()) continue;
        const std::string proto = str(p, "protocol");
        if (!proto.empty() && proto != "TCP") continue;
        ports.push_back({str(c, "name"), p["containerPort"].get<int>(), str(p, "name")});
      }
    }
    std::vector<Port> chosen;
    const std::string want = str(ann, "prometheus.io/port");
    if (!want.empty()) {
      auto n = base::parse_i64(want);
      if (!n || *n <= 0 || *n > 65535) continue;
      Port p{"", static_cast<int>(*n), ""};
      for (const Port& q : ports)
        if (q.port == p.port) p.container = q.container;
      chosen.push_back(p);
    } else {
      for (const Port& q : ports)
        if (q.name == "metrics") chosen.push_back(q);
      if (chosen.empty() && !ports.empty()) chosen.push_back(ports.front());
    }
    const std::string ns = str(meta, "namespace"), name = str(meta, "name"), node = str(spec, "nodeName");
    std::string path = str(ann, "prometheus.io/path");
    if (path.empty()) path = "/metrics";
    if (path.front() != '/') path.insert(path.begin(), '/');
    std::string scheme = str(ann, "prometheus.io/scheme");
    if (scheme != "https") scheme = "http";
    for (const Port& p : chosen) {
      TargetGroup g;
      const bool v6 = ip.find(':') != std::string::npos;
      g.targets.push_back((v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(p.port));
      g.labels = {{"namespace", ns},
                  {"pod", name},
                  {"container", p.container},
                  {"node", node},
                  {"__metrics_path__", path},
                  {"__scheme__", scheme},
                  {"__meta_kubernetes_pod_uid", str(meta, "uid")}};
      std::erase_if(g.labels, [](const model::Label& l) { return l.value.empty(); });
      g.source = std::string(source) + ":" + ns + "/" + name;
      out.push_back(std::move(g));
    }
  }
  return out;
}

bool KubeletDiscovery::refresh(int64_t now_ms) {
  if (last_ms_ != INT64_MIN && now_ms - last_ms_ < opts_.refresh_ms) return false;
  last_ms_ = now_ms;
  net::http::ClientOptions o;
  o.timeout_ms = static_cast<int>(opts_.timeout_ms);
  o.connect_timeout_ms = static_cast<int>(opts_.timeout_ms);
  o.max_response_body_bytes = 64u << 20;
  o.tls_insecure_skip_verify = opts_.insecure_skip_verify;
  o.only_configured_families = false;
  if (!opts_.ca_file.empty() && ::access(opts_.ca_file.c_str(), R_OK) == 0) o.tls_ca_file = opts_.ca_file;
  if (!opts_.token_file.empty()) {
    if (auto tok = base::read_file(opts_.token_file)) o.bearer_token = std::string(base::trim(*tok));
  }
  std::string err;
  std::vector<TargetGroup> groups;
  auto url = net::http::parse_url(opts_.url);
  if (!url) {
    err = opts_.url + ": " + url.error();
  } else {
    net::http::Client client(std::move(o));
    auto resp = client.get(*url);
    if (!resp) {
      err = resp.error();
    } else if (resp->status != 200) {
      err = "GET " + opts_.url + ": HTTP " + std::to_string(resp->status) + " " + resp->reason;
    } else if (resp->body_truncated) {
      err = "GET " + opts_.url + ": pod list over 64 MiB";
    } else {
      auto parsed = parse_kubelet_pods(resp->body, opts_.url);
      if (parsed)
        groups = std::move(*parsed);
      else
        err = parsed.error();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  error_ = err;
  if (!err.empty()) return false;  // the last good list stays
  bool changed = groups.size() != groups_.size();
  for (size_t i = 0; !changed && i < groups.size(); ++i)
    changed = groups[i].targets != groups_[i].targets || groups[i].labels != groups_[i].labels;
  groups_ = std::move(groups);
  return changed;
}

std::vector<TargetGroup> KubeletDiscovery::groups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return groups_;
}

std::vector<std::string> KubeletDiscovery::errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_.empty() ? std::vector<std::string>() : std::vector<std::string>{error_};
}

}  // namespace llmon::scrape
