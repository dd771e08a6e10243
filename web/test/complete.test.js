import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, rank } from '../src/complete.js';
import { parseMatchers } from '../src/views/alerts.js';

test('completion context from the text before the cursor', () => {
  assert.deepEqual(context('rate(node_net'), { kind: 'metric', prefix: 'node_net' });
  assert.deepEqual(context('DCGM_FI_DEV_GPU_UTIL{gp'), { kind: 'label', prefix: 'gp', metric: 'DCGM_FI_DEV_GPU_UTIL' });
  assert.deepEqual(context('up{job="a", '), { kind: 'label', prefix: '', metric: 'up' });
  assert.deepEqual(context('up{job="ll'), { kind: 'value', label: 'job', prefix: 'll', metric: 'up' });
  assert.deepEqual(context('up{job=~"a\\"b'), { kind: 'value', label: 'job', prefix: 'a\\"b', metric: 'up' });
  assert.deepEqual(context('up{job="a"} + on'), { kind: 'metric', prefix: 'on' });
  assert.equal(context('label_replace(x, "a').kind, 'none');
});

test('ranking puts prefix matches first', () => {
  assert.deepEqual(rank(['node_load1', 'DCGM_FI_DEV_GPU_UTIL', 'llmon_gpu_up', 'node_cpu_seconds_total'], 'node'),
    ['node_cpu_seconds_total', 'node_load1']);
  assert.deepEqual(rank(['a_gpu', 'gpu_b', 'c'], 'gpu'), ['gpu_b', 'a_gpu']);
  assert.equal(rank(Array.from({ length: 50 }, (_, i) => `m${i}`), 'm', 5).length, 5);
});

test('silence matchers as Alertmanager v2 takes them', () => {
  assert.deepEqual(parseMatchers('alertname="GPUHot", gpu=~"1|2",  job!="x"'), [
    { name: 'alertname', value: 'GPUHot', isRegex: false, isEqual: true },
    { name: 'gpu', value: '1|2', isRegex: true, isEqual: true },
    { name: 'job', value: 'x', isRegex: false, isEqual: false },
  ]);
  assert.deepEqual(parseMatchers('a="q\\"uote"'), [{ name: 'a', value: 'q"uote', isRegex: false, isEqual: true }]);
  assert.equal(parseMatchers('alertname=GPUHot'), null);
  assert.equal(parseMatchers(''), null);
  assert.equal(parseMatchers('a="b" c="d"'), null);
});
