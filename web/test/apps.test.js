import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as a from '../src/apps.js';

const inst = (metric, value) => ({ metric, value });
const V = { job: 'vllm', instance: '10.0.0.5:8000' };
const T = { job: 'train', instance: '10.0.0.5:9100' };

// What /api/v1/targets answers (docs/scrape.md): two scraped targets, one down.
const TARGETS = {
  activeTargets: [
    { labels: { ...V, pid: '4242', command: 'python3' }, scrapePool: 'vllm', scrapeUrl: 'http://10.0.0.5:8000/metrics',
      lastError: '', lastScrape: '2026-12-03T12:00:00.5Z', health: 'up' },
    { labels: T, scrapePool: 'train', scrapeUrl: 'http://10.0.0.5:9100/metrics', lastError: '', health: 'up',
      lastScrape: '2026-12-03T12:00:01Z' },
    { labels: { job: 'broken', instance: '10.0.0.6:8000' }, scrapePool: 'broken', scrapeUrl: 'http://10.0.0.6:8000/metrics',
      lastError: 'Get "http://10.0.0.6:8000/metrics": connection refused', lastScrape: '0001-01-01T00:00:00Z', health: 'down' },
  ],
  droppedTargets: [],
  discoveryNotes: ['pid 77 (python3) 127.0.0.1:33333: an ephemeral port, not probed'],
  discoveryErrors: [],
};

const METRICS = [
  inst({ __name__: 'llm:time_to_first_token_seconds:p50_rate5m', ...V, llm_engine: 'vllm', model_name: 'llama' }, 0.12),
  inst({ __name__: 'llm:time_to_first_token_seconds:p99_rate5m', ...V, llm_engine: 'vllm', model_name: 'llama' }, 1.5),
  inst({ __name__: 'llm:time_per_output_token_seconds:p50_rate5m', ...V, llm_engine: 'vllm', model_name: 'llama' }, 0.021),
  inst({ __name__: 'llm:generation_tokens:rate5m', ...V, llm_engine: 'vllm', model_name: 'llama' }, 900),
  inst({ __name__: 'llm:generation_tokens:rate5m', ...V, llm_engine: 'vllm', model_name: 'mistral' }, 300),
  inst({ __name__: 'llm:kv_cache_usage:ratio', ...V, llm_engine: 'vllm', model_name: 'llama' }, 0.42),
  inst({ __name__: 'llm:kv_cache_usage:ratio', ...V, llm_engine: 'vllm', model_name: 'mistral' }, 0.8),
  inst({ __name__: 'vllm:num_requests_running', ...V, model_name: 'llama' }, 24),
  inst({ __name__: 'vllm:num_requests_waiting', ...V, model_name: 'llama' }, 3),
  inst({ __name__: 'llm:train_step_duration_seconds:p50_10m', ...T, job_name: 'sft', rank: '0' }, 1.4),
  inst({ __name__: 'llm:train_step_duration_seconds:p90_10m', ...T, job_name: 'sft', rank: '0' }, 1.6),
  inst({ __name__: 'llm:train_step_duration_seconds:p99_10m', ...T, job_name: 'sft', rank: '0' }, 12),
  inst({ __name__: 'train_loss', ...T, job_name: 'sft', rank: '0' }, 1.8),
  inst({ __name__: 'train_loss', ...T, job_name: 'sft', rank: '1' }, 2.0),
  inst({ __name__: 'llm:train_tokens:rate5m', ...T, job_name: 'sft', rank: '0' }, NaN),
  inst({ __name__: 'llm:train_samples:rate5m', ...T, job_name: 'sft', rank: '0' }, 12.5),
  inst({ __name__: 'unrelated_metric', ...V }, 5),
];

const GPU = (gpu, uuid) => ({ gpu, UUID: uuid, modelName: 'NVIDIA H100 80GB HBM3', job: 'llmon', instance: 'node1' });
const GPUS = [
  inst({ __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU('0', 'GPU-a') }, 97),
  inst({ __name__: 'DCGM_FI_DEV_FB_USED', ...GPU('0', 'GPU-a') }, 72704),
  inst({ __name__: 'DCGM_FI_DEV_FB_FREE', ...GPU('0', 'GPU-a') }, 8855),
  inst({ __name__: 'DCGM_FI_DEV_GPU_UTIL', ...GPU('1', 'GPU-b') }, 50),
  inst({ __name__: 'DCGM_FI_DEV_FB_USED', ...GPU('1', 'GPU-b') }, 1024),
  inst({ __name__: 'DCGM_FI_DEV_FB_TOTAL', ...GPU('1', 'GPU-b') }, 81559),
  inst({ __name__: 'DCGM_FI_DEV_FB_USED', ...GPU('1', 'GPU-b'), GPU_I_ID: '3' }, 99),
];
const PROCS = [
  inst({ __name__: 'llmon_gpu_process_memory_bytes', ...GPU('0', 'GPU-a'), pid: '4242', pod: '', namespace: '' }, 12 * 2 ** 30),
  inst({ __name__: 'llmon_gpu_process_memory_bytes', ...GPU('1', 'GPU-b'), pid: '4242', pod: '', namespace: '' }, 2 ** 30),
  inst({ __name__: 'llmon_gpu_process_memory_bytes', ...GPU('1', 'GPU-b'), pid: '999', pod: 'trainer-0', namespace: 'ml' }, 2 ** 29),
];

test('targets: labels, health, last error, Go zero time as never, discovery notes', () => {
  const { targets, notes } = a.parseTargets(TARGETS);
  assert.equal(targets.length, 3);
  assert.equal(targets[0].job, 'vllm');
  assert.equal(targets[0].instance, '10.0.0.5:8000');
  assert.equal(targets[0].labels.pid, '4242');
  assert.equal(targets[0].lastScrape, Date.parse('2026-12-03T12:00:00.5Z') / 1000);
  assert.equal(targets[2].lastScrape, null);
  assert.match(targets[2].lastError, /connection refused/);
  assert.equal(notes.length, 1);
  assert.deepEqual(a.parseTargets(null).targets, []);
});

test('the metrics query names every field once and escapes nothing it should not', () => {
  const q = a.appMetricsQuery();
  assert.ok(q.startsWith('{__name__=~"'));
  for (const f of a.FIELDS) assert.ok(q.includes(f.name), f.name);
  assert.equal(q.split('nv_trt_llm_request_metrics').length, 2, 'a name listed once');
  assert.ok(!q.includes('\\:'), 'colons are not escaped');
});

test('series are grouped by job and instance, combined per field', () => {
  const m = a.appMetrics(METRICS);
  const v = m.get(a.appKey(V.job, V.instance));
  assert.equal(v.engine, 'vllm');
  assert.equal(v.kind, 'serving');
  assert.equal(v.values.gen_tps, 1200, 'rates add up over models');
  assert.equal(v.values.kv_cache, 0.8, 'the fullest cache');
  assert.equal(v.values.running, 24);
  assert.deepEqual(v.models, ['llama', 'mistral']);
  const t = m.get(a.appKey(T.job, T.instance));
  assert.equal(t.kind, 'training');
  assert.equal(t.values.loss, 1.9, 'loss averaged over ranks');
  assert.ok(Number.isNaN(t.values.train_tps));
  assert.equal(t.values.train_sps, 12.5);
});

test('Triton: active and waiting requests by request_type, GPUs by UUID', () => {
  const X = { job: 'triton', instance: 'h:8002' };
  const m = a.appMetrics([
    inst({ __name__: 'nv_trt_llm_request_metrics', ...X, request_type: 'active', model: 'tensorrt_llm' }, 26),
    inst({ __name__: 'nv_trt_llm_request_metrics', ...X, request_type: 'waiting', model: 'tensorrt_llm' }, 6),
    inst({ __name__: 'nv_trt_llm_request_metrics', ...X, request_type: 'max', model: 'tensorrt_llm' }, 64),
    inst({ __name__: 'nv_gpu_utilization', ...X, gpu_uuid: 'GPU-b' }, 0.9),
  ]).get(a.appKey(X.job, X.instance));
  assert.equal(m.values.running, 26);
  assert.equal(m.values.waiting, 6);
  assert.equal(m.engine, 'triton');
  assert.deepEqual(m.gpuUuids, ['GPU-b']);
  const [app] = a.buildApps({ targets: [{ key: a.appKey(X.job, X.instance), ...X, labels: X, health: 'up' }],
    metrics: [inst({ __name__: 'nv_gpu_utilization', ...X, gpu_uuid: 'GPU-b' }, 0.9)], processes: PROCS, gpus: GPUS });
  assert.deepEqual(app.gpus.map((g) => [g.gpu, g.via, g.util]), [['1', 'uuid', 50]]);
});

test('GPUs of a target: by pid, by pod and namespace, none otherwise', () => {
  assert.deepEqual(a.gpusOf({ labels: { pid: '4242' } }, PROCS).map((g) => [g.gpu, g.processBytes]),
    [['0', 12 * 2 ** 30], ['1', 2 ** 30]]);
  assert.deepEqual(a.gpusOf({ labels: { pod: 'trainer-0', namespace: 'ml' } }, PROCS).map((g) => g.gpu), ['1']);
  assert.deepEqual(a.gpusOf({ labels: { pod: 'trainer-0', namespace: 'other' } }, PROCS), []);
  assert.deepEqual(a.gpusOf({ labels: { job: 'x' } }, PROCS), []);
});

test('GPU index: whole GPUs only, total from used + free when FB_TOTAL is absent', () => {
  const g = a.gpuIndex(GPUS);
  assert.equal(g.size, 2);
  assert.equal(g.get('0').total, (72704 + 8855) * 2 ** 20);
  assert.equal(g.get('1').used, 1024 * 2 ** 20, 'the MIG instance is not the GPU');
  assert.equal(g.get('1').total, 81559 * 2 ** 20);
});

test('the whole join: down first, every target, its GPUs with util and memory', () => {
  const { targets } = a.parseTargets(TARGETS);
  const apps = a.buildApps({ targets, metrics: METRICS, processes: PROCS, gpus: GPUS });
  assert.deepEqual(apps.map((x) => x.job), ['broken', 'train', 'vllm']);
  const v = apps[2];
  assert.equal(v.engine, 'vllm');
  assert.deepEqual(v.gpus.map((g) => [g.gpu, g.util, g.model]), [['0', 97, 'NVIDIA H100 80GB HBM3'], ['1', 50, 'NVIDIA H100 80GB HBM3']]);
  assert.equal(a.gpuLine(v.gpus[0]), 'GPU 0 · 97 % · 71 / 79.6 GiB (process 12 GiB)');
  assert.equal(apps[0].engine, '');
  assert.deepEqual(apps[0].gpus, []);
});

test('headline numbers: the serving set, the training set, none without series', () => {
  const { targets } = a.parseTargets(TARGETS);
  const apps = a.buildApps({ targets, metrics: METRICS, processes: PROCS, gpus: GPUS });
  const show = (app) => Object.fromEntries(a.headline(app).map((x) => [x.label, x.value]));
  assert.deepEqual(show(apps[2]), {
    'TTFT p50': '120 ms', 'TTFT p99': '1.5 s', 'TPOT p50': '21 ms', 'tokens/s': '1200 tok/s', running: '24', waiting: '3',
    'KV cache': '80 %',
  });
  assert.deepEqual(show(apps[1]), {
    'step p50': '1.4 s', 'step p90': '1.6 s', 'step p99': '12 s', loss: '1.9', 'samples/s': '12.5 samples/s',
  });
  assert.deepEqual(a.headline(apps[0]), []);
  // A static page: rates of an unchanging counter are 0, quantiles NaN.
  const idle = a.buildApps({ targets: [targets[0]], metrics: [
    inst({ __name__: 'llm:time_to_first_token_seconds:p50_rate5m', ...V, llm_engine: 'vllm' }, NaN),
    inst({ __name__: 'llm:generation_tokens:rate5m', ...V, llm_engine: 'vllm' }, 0)] })[0];
  assert.equal(show(idle)['TTFT p50'], '–');
  assert.equal(show(idle)['tokens/s'], '0 tok/s');
});

test('pushed groups: one application each, down when the last push failed', () => {
  const groups = a.pushGroups([
    inst({ __name__: 'push_time_seconds', job: 'batch', instance: 'n1' }, 1796000000),
    inst({ __name__: 'push_failure_time_seconds', job: 'batch', instance: 'n1' }, 0),
    inst({ __name__: 'push_time_seconds', job: 'eval' }, 1796000000),
    inst({ __name__: 'push_failure_time_seconds', job: 'eval' }, 1796000100),
  ]);
  assert.deepEqual(groups.map((g) => [g.job, g.instance, g.health, g.source]),
    [['batch', 'n1', 'up', 'push'], ['eval', '', 'down', 'push']]);
  assert.equal(groups[0].lastScrape, 1796000000);
  const { targets } = a.parseTargets(TARGETS);
  const dup = a.pushGroups([inst({ __name__: 'push_time_seconds', ...V }, 1)]);
  assert.equal(a.buildApps({ targets, pushed: dup }).length, 3, 'a pushed group that is also a target is listed once');
});

test('summary and ages', () => {
  const { targets } = a.parseTargets(TARGETS);
  const s = a.summary(a.buildApps({ targets, metrics: METRICS }));
  assert.deepEqual([s.total, s.up, s.down, s.serving, s.training, s.servingTps], [3, 2, 1, 1, 1, 1200]);
  assert.equal(a.ago(100, 112), '12s ago');
  assert.equal(a.ago(null, 112), 'never');
});
