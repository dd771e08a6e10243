// Applications beside their GPUs: the pure half of the applications view
// (views/applications.js) and of the overview's summary. It turns what the
// agent answers - /api/v1/targets, push_time_seconds, the LLM rule pack's
// recorded series (deploy/rules/llm_serving.yml, llm_training.yml), the
// engines' raw gauges, llmon_gpu_process_* and the GPU fields - into one
// record per application with its headline numbers and the GPUs its process
// uses. No DOM and no fetching: unit-tested in web/test/apps.test.js.
import * as fmt from './format.js';

// The headline fields. Each maps series (by name, optionally one label value)
// to a field; several series of one application (models, ranks) are combined
// with `agg`: rates and request counts add up, latencies and fill levels
// take the worst, loss is averaged.
export const FIELDS = [
  { key: 'ttft_p50', name: 'llm:time_to_first_token_seconds:p50_rate5m', agg: 'max', kind: 'serving' },
  { key: 'ttft_p99', name: 'llm:time_to_first_token_seconds:p99_rate5m', agg: 'max', kind: 'serving' },
  { key: 'tpot_p50', name: 'llm:time_per_output_token_seconds:p50_rate5m', agg: 'max', kind: 'serving' },
  { key: 'tpot_p99', name: 'llm:time_per_output_token_seconds:p99_rate5m', agg: 'max', kind: 'serving' },
  { key: 'gen_tps', name: 'llm:generation_tokens:rate5m', agg: 'sum', kind: 'serving' },
  { key: 'prompt_tps', name: 'llm:prompt_tokens:rate5m', agg: 'sum', kind: 'serving' },
  { key: 'kv_cache', name: 'llm:kv_cache_usage:ratio', agg: 'max', kind: 'serving' },
  { key: 'running', name: 'vllm:num_requests_running', agg: 'sum', kind: 'serving', engine: 'vllm' },
  { key: 'waiting', name: 'vllm:num_requests_waiting', agg: 'sum', kind: 'serving', engine: 'vllm' },
  { key: 'running', name: 'sglang:num_running_reqs', agg: 'sum', kind: 'serving', engine: 'sglang' },
  { key: 'waiting', name: 'sglang:num_queue_reqs', agg: 'sum', kind: 'serving', engine: 'sglang' },
  { key: 'running', name: 'tgi_batch_current_size', agg: 'sum', kind: 'serving', engine: 'tgi' },
  { key: 'waiting', name: 'tgi_queue_size', agg: 'sum', kind: 'serving', engine: 'tgi' },
  { key: 'running', name: 'nv_trt_llm_request_metrics', label: ['request_type', 'active'], agg: 'sum', kind: 'serving', engine: 'triton' },
  { key: 'waiting', name: 'nv_trt_llm_request_metrics', label: ['request_type', 'waiting'], agg: 'sum', kind: 'serving', engine: 'triton' },
  { key: 'step_p50', name: 'llm:train_step_duration_seconds:p50_10m', agg: 'max', kind: 'training' },
  { key: 'step_p90', name: 'llm:train_step_duration_seconds:p90_10m', agg: 'max', kind: 'training' },
  { key: 'step_p99', name: 'llm:train_step_duration_seconds:p99_10m', agg: 'max', kind: 'training' },
  { key: 'train_tps', name: 'llm:train_tokens:rate5m', agg: 'sum', kind: 'training' },
  { key: 'train_sps', name: 'llm:train_samples:rate5m', agg: 'sum', kind: 'training' },
  { key: 'loss', name: 'train_loss', agg: 'mean', kind: 'training', engine: 'training' },
];
// Triton reports the GPUs it uses by UUID (nv_gpu_utilization{gpu_uuid}).
const GPU_UUID_SERIES = 'nv_gpu_utilization';

const escRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// One instant query for every field of every application (and Triton's GPU
// list): the names as one __name__ regex.
export function appMetricsQuery() {
  const names = [...new Set([...FIELDS.map((f) => f.name), GPU_UUID_SERIES])];
  return `{__name__=~"${names.map(escRe).join('|')}"}`;
}

// The GPU series an application row shows (the agent's own, `sel`).
export function gpuQuery(sel) {
  return `{__name__=~"DCGM_FI_DEV_(GPU_UTIL|FB_USED|FB_FREE|FB_TOTAL)",GPU_I_ID="",${sel}}`;
}
export function processQuery(sel) {
  return `llmon_gpu_process_memory_bytes{${sel}}`;
}

// The key an application's series share with its target: job and instance
// (a pushed group without an instance has none).
export const appKey = (job, instance) => `${job ?? ''}\u0000${instance ?? ''}`;

const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

// /api/v1/targets' data -> [{key, job, instance, labels, health, lastError,
// lastScrape (Unix seconds or null), scrapeUrl, source}], with llmon's
// discovery notes and errors.
export function parseTargets(data) {
  const targets = (data?.activeTargets || []).map((t) => {
    const labels = t.labels || {};
    const last = t.lastScrape && t.lastScrape !== GO_ZERO_TIME ? Date.parse(t.lastScrape) / 1000 : null;
    return {
      key: appKey(labels.job, labels.instance), job: labels.job || t.scrapePool || '', instance: labels.instance || '',
      labels, health: t.health || 'unknown', lastError: t.lastError || '', lastScrape: Number.isFinite(last) ? last : null,
      scrapeUrl: t.scrapeUrl || '', source: 'scrape',
    };
  });
  return { targets, notes: data?.discoveryNotes || [], errors: data?.discoveryErrors || [] };
}

// push_time_seconds (one series per pushed group, Pushgateway semantics) ->
// one application per group; a group that failed last has
// push_failure_time_seconds later than its push time.
export function pushGroups(results) {
  const groups = new Map();
  for (const r of results) {
    const { __name__: name, ...labels } = r.metric;
    const key = appKey(labels.job, labels.instance);
    if (!groups.has(key)) {
      groups.set(key, { key, job: labels.job || '', instance: labels.instance || '', labels, health: 'up',
        lastError: '', lastScrape: null, scrapeUrl: '', source: 'push' });
    }
    const g = groups.get(key);
    if (name === 'push_time_seconds') g.lastScrape = r.value > 0 ? r.value : null;
    else if (name === 'push_failure_time_seconds') g.failedAt = r.value > 0 ? r.value : null;
  }
  for (const g of groups.values()) {
    if (g.failedAt && (!g.lastScrape || g.failedAt > g.lastScrape)) {
      g.health = 'down';
      g.lastError = 'the last push was refused';
    }
    delete g.failedAt;
  }
  return [...groups.values()];
}

function fieldFor(metric) {
  return FIELDS.filter((f) => f.name === metric.__name__ && (!f.label || metric[f.label[0]] === f.label[1]));
}

function combine(values, agg) {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return NaN;
  if (agg === 'sum') return finite.reduce((a, b) => a + b, 0);
  if (agg === 'mean') return finite.reduce((a, b) => a + b, 0) / finite.length;
  return Math.max(...finite);
}

// Instant results of appMetricsQuery() -> Map(appKey -> {values: {field:
// number}, engine, kind, models: [], gpuUuids: []}).
export function appMetrics(results) {
  const raw = new Map();
  const get = (m) => {
    const key = appKey(m.job, m.instance);
    if (!raw.has(key)) raw.set(key, { fields: {}, engines: new Set(), kinds: new Set(), models: new Set(), gpuUuids: new Set() });
    return raw.get(key);
  };
  for (const r of results) {
    const m = r.metric;
    if (m.__name__ === GPU_UUID_SERIES) {
      if (m.gpu_uuid) get(m).gpuUuids.add(m.gpu_uuid);
      continue;
    }
    const fields = fieldFor(m);
    if (fields.length === 0) continue;
    const a = get(m);
    for (const f of fields) {
      (a.fields[f.key] ||= { agg: f.agg, values: [] }).values.push(r.value);
      a.kinds.add(f.kind);
      if (m.llm_engine) a.engines.add(m.llm_engine);
      else if (f.engine) a.engines.add(f.engine);
    }
    for (const l of ['model_name', 'model', 'job_name']) if (m[l] && !/^(ensemble|preprocessing|postprocessing)$/.test(m[l])) a.models.add(m[l]);
  }
  const out = new Map();
  for (const [key, a] of raw) {
    const values = {};
    for (const [k, f] of Object.entries(a.fields)) values[k] = combine(f.values, f.agg);
    const engines = [...a.engines].filter((e) => e !== 'training').sort();
    out.set(key, {
      values, engine: engines.join(', ') || (a.engines.has('training') ? 'training' : ''),
      kind: a.kinds.has('serving') ? 'serving' : a.kinds.has('training') ? 'training' : '',
      models: [...a.models].sort(), gpuUuids: [...a.gpuUuids].sort(),
    });
  }
  return out;
}

// DCGM instant results -> Map(gpu index -> {gpu, uuid, model, util (0..100),
// used, total (bytes)}).
export function gpuIndex(results) {
  const out = new Map();
  for (const r of results) {
    const m = r.metric;
    if (m.gpu === undefined || (m.GPU_I_ID !== undefined && m.GPU_I_ID !== '')) continue;
    if (!out.has(m.gpu)) out.set(m.gpu, { gpu: m.gpu, uuid: m.UUID || '', model: m.modelName || '', values: {} });
    out.get(m.gpu).values[m.__name__.replace('DCGM_FI_DEV_', '')] = r.value;
  }
  for (const g of out.values()) {
    const v = g.values;
    const MIB = 1024 * 1024;
    g.util = v.GPU_UTIL;
    g.used = v.FB_USED * MIB;
    g.total = (v.FB_TOTAL ?? v.FB_USED + v.FB_FREE) * MIB;
    delete g.values;
  }
  return out;
}

// The GPUs an application uses, from llmon_gpu_process_memory_bytes: its
// target's pid (gpu-process discovery, or a static target labelled pid), else
// its pod and namespace (kubelet discovery), else the GPU UUIDs it reports
// itself (Triton). -> [{gpu, uuid, processBytes, via}] ordered by GPU index.
export function gpusOf(app, processes, uuids = []) {
  const l = app.labels || {};
  const seen = new Map();
  const add = (gpu, uuid, bytes, via) => {
    const k = String(gpu);
    const cur = seen.get(k);
    if (cur) cur.processBytes = (Number.isFinite(cur.processBytes) ? cur.processBytes : 0) + (Number.isFinite(bytes) ? bytes : 0);
    else seen.set(k, { gpu: k, uuid: uuid || '', processBytes: bytes, via });
  };
  if (l.pid) {
    const pids = new Set(String(l.pid).split(',').map((p) => p.trim()));
    for (const p of processes) if (pids.has(p.metric.pid)) add(p.metric.gpu, p.metric.UUID, p.value, 'pid');
  } else if (l.pod) {
    for (const p of processes) {
      if (p.metric.pod !== l.pod) continue;
      if (l.namespace && p.metric.namespace && p.metric.namespace !== l.namespace) continue;
      if (l.container && p.metric.container && p.metric.container !== l.container) continue;
      add(p.metric.gpu, p.metric.UUID, p.value, 'pod');
    }
  }
  if (seen.size === 0 && uuids.length) {
    for (const u of uuids) {
      const p = processes.find((x) => x.metric.UUID === u);
      add(p ? p.metric.gpu : u, u, NaN, 'uuid');
    }
  }
  return [...seen.values()].sort((a, b) => Number(a.gpu) - Number(b.gpu) || a.gpu.localeCompare(b.gpu));
}

// Everything joined: one record per application (targets first, then pushed
// groups not already a target), down ones first, then by job and instance.
export function buildApps({ targets = [], pushed = [], metrics = [], processes = [], gpus = [] }) {
  const byApp = appMetrics(metrics);
  const gpuMap = gpuIndex(gpus);
  const byUuid = new Map([...gpuMap.values()].map((g) => [g.uuid, g]));
  const keys = new Set(targets.map((t) => t.key));
  const all = [...targets, ...pushed.filter((p) => !keys.has(p.key))];
  const apps = all.map((t) => {
    const m = byApp.get(t.key) || { values: {}, engine: '', kind: '', models: [], gpuUuids: [] };
    const used = gpusOf(t, processes, m.gpuUuids).map((u) => {
      const g = gpuMap.get(u.gpu) || byUuid.get(u.uuid);
      return { ...u, gpu: g ? g.gpu : u.gpu, model: g?.model || '', util: g?.util, used: g?.used, total: g?.total };
    });
    return { ...t, values: m.values, engine: m.engine || engineFromLabels(t.labels), kind: m.kind, models: m.models, gpus: used };
  });
  const rank = (a) => (a.health === 'down' ? 0 : a.health === 'unknown' ? 1 : 2);
  return apps.sort((a, b) => rank(a) - rank(b) || a.job.localeCompare(b.job) || a.instance.localeCompare(b.instance));
}

function engineFromLabels(labels = {}) {
  const m = /(vllm|sglang|tgi|text-generation|triton|trtllm)/i.exec(`${labels.job || ''} ${labels.command || ''} ${labels.container || ''}`);
  return m ? m[1].toLowerCase().replace('text-generation', 'tgi') : '';
}

const count = (x) => (Number.isFinite(x) ? String(Math.round(x)) : '–');
const tokensPerSecond = (x) => (Number.isFinite(x) ? `${fmt.sig3(x)} tok/s` : '–');
const per = (unit) => (x) => (Number.isFinite(x) ? `${fmt.sig3(x)} ${unit}` : '–');

// The headline numbers of an application: [{key, label, value, title}], the
// serving set or the training set (both when it reports both); none when it
// reports no field at all.
export function headline(app) {
  const v = app.values || {};
  const out = [];
  if (Object.keys(v).length === 0) return out;
  const add = (key, label, f, title) => out.push({ key, label, value: f(v[key]), title });
  const serving = app.kind === 'serving' || Object.keys(v).some((k) => FIELDS.find((f) => f.key === k)?.kind === 'serving');
  const training = app.kind === 'training' || ['step_p50', 'loss', 'train_tps', 'train_sps'].some((k) => k in v);
  if (serving) {
    add('ttft_p50', 'TTFT p50', fmt.seconds, 'time to first token, median over 5 minutes');
    add('ttft_p99', 'TTFT p99', fmt.seconds, 'time to first token, 99th percentile over 5 minutes');
    add('tpot_p50', 'TPOT p50', fmt.seconds, 'time per output token, median over 5 minutes');
    add('gen_tps', 'tokens/s', tokensPerSecond, 'generated tokens per second over 5 minutes');
    add('running', 'running', count, 'requests being processed');
    add('waiting', 'waiting', count, 'requests queued');
    add('kv_cache', 'KV cache', fmt.ratio, 'share of the KV cache in use');
  }
  if (training) {
    add('step_p50', 'step p50', fmt.seconds, 'optimizer step time, median over 10 minutes');
    add('step_p90', 'step p90', fmt.seconds, 'optimizer step time, 90th percentile over 10 minutes');
    add('step_p99', 'step p99', fmt.seconds, 'optimizer step time, 99th percentile over 10 minutes');
    add('loss', 'loss', (x) => (Number.isFinite(x) ? fmt.sig3(x) : '–'), 'training loss of the last step');
    if (Number.isFinite(v.train_tps) || !Number.isFinite(v.train_sps)) add('train_tps', 'tokens/s', tokensPerSecond, 'tokens per second over 5 minutes');
    else add('train_sps', 'samples/s', per('samples/s'), 'samples per second over 5 minutes');
  }
  return out;
}

// "GPU 3 · 97 % · 71 / 79.6 GiB (this process 12 GiB)".
export function gpuLine(g, { id = true } = {}) {
  const parts = id ? [`GPU ${g.gpu}`] : [];
  if (Number.isFinite(g.util)) parts.push(fmt.percent(g.util));
  if (Number.isFinite(g.used) && Number.isFinite(g.total)) parts.push(fmt.bytesPair(g.used, g.total));
  let s = parts.join(' · ');
  if (Number.isFinite(g.processBytes)) s += ` (process ${fmt.bytes(g.processBytes)})`;
  return s;
}

// The overview's line: counts by health and kind, total tokens/s.
export function summary(apps) {
  const s = { total: apps.length, up: 0, down: 0, unknown: 0, serving: 0, training: 0, servingTps: 0, trainingTps: 0 };
  for (const a of apps) {
    s[a.health === 'up' ? 'up' : a.health === 'down' ? 'down' : 'unknown']++;
    if (a.kind === 'serving') s.serving++;
    if (a.kind === 'training') s.training++;
    if (Number.isFinite(a.values?.gen_tps)) s.servingTps += a.values.gen_tps;
    if (Number.isFinite(a.values?.train_tps)) s.trainingTps += a.values.train_tps;
  }
  return s;
}

// "since 12s ago" for a Unix time.
export function ago(t, now) {
  if (!Number.isFinite(t)) return 'never';
  return `${fmt.duration(Math.max(0, now - t))} ago`;
}
