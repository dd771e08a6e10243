// Relabelling cost (src/scrape/relabel.h) on one typical target:
//   relabel_bench [benchmark flags]
// A Kubernetes pod target of 10 labels through the 5 rules of the usual
// "kubernetes-pods" job: keep on the scrape annotation, rewrite __address__
// with the port annotation, labelmap the pod labels, copy namespace and pod
// name. The input vector is copied every iteration (as a scrape loop does
// with each target's discovered labels). items_per_second = label sets.
#include <benchmark/benchmark.h>

#include <vector>

#include "scrape/relabel.h"

using llmon::model::Label;
using llmon::scrape::RelabelAction;
using llmon::scrape::RelabelConfig;
using llmon::scrape::Relabeler;

namespace {

std::vector<Label> target() {
  return {{"__address__", "10.1.2.3:8080"},
          {"__meta_kubernetes_namespace", "inference"},
          {"__meta_kubernetes_pod_name", "vllm-7d9f8c6b5-x2x9q"},
          {"__meta_kubernetes_pod_label_app", "vllm"},
          {"__meta_kubernetes_pod_label_model", "llama-3-70b"},
          {"__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true"},
          {"__meta_kubernetes_pod_annotation_prometheus_io_port", "8000"},
          {"__meta_kubernetes_pod_node_name", "gpu-node-17"},
          {"__scheme__", "http"},
          {"job", "kubernetes-pods"}};
}

Relabeler rules() {
  std::vector<RelabelConfig> rs(5);
  rs[0].action = RelabelAction::kKeep;
  rs[0].source_labels = {"__meta_kubernetes_pod_annotation_prometheus_io_scrape"};
  rs[0].regex = "true";
  rs[1].source_labels = {"__address__", "__meta_kubernetes_pod_annotation_prometheus_io_port"};
  rs[1].regex = R"(([^:]+)(?::\d+)?;(\d+))";
  rs[1].replacement = "$1:$2";
  rs[1].target_label = "__address__";
  rs[2].action = RelabelAction::kLabelMap;
  rs[2].regex = "__meta_kubernetes_pod_label_(.+)";
  rs[3].source_labels = {"__meta_kubernetes_namespace"};
  rs[3].target_label = "namespace";
  rs[4].source_labels = {"__meta_kubernetes_pod_name"};
  rs[4].target_label = "pod";
  for (auto& r : rs) r.set_regex = r.regex != "(.*)";
  auto c = Relabeler::compile(rs);
  if (!c) std::abort();
  return std::move(*c);
}

void BM_RelabelKubernetesPod(benchmark::State& state) {
  const Relabeler r = rules();
  const std::vector<Label> in = target();
  for (auto _ : state) {
    std::vector<Label> ls = in;
    bool keep = r.process(ls);
    benchmark::DoNotOptimize(keep);
    benchmark::DoNotOptimize(ls.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RelabelKubernetesPod);

// The copy alone, to subtract.
void BM_CopyLabels(benchmark::State& state) {
  const std::vector<Label> in = target();
  for (auto _ : state) {
    std::vector<Label> ls = in;
    benchmark::DoNotOptimize(ls.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CopyLabels);

}  // namespace

BENCHMARK_MAIN();
