import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHash, formatHash, stepFor, window } from '../src/state.js';

test('the URL round-trips the state', () => {
  const s = parseHash('#/explore?range=1h&end=1733100000&expr=rate(x%5B1m%5D)');
  assert.equal(s.view, 'explore');
  assert.equal(s.range, 3600);
  assert.equal(s.end, 1733100000);
  assert.equal(s.expr, 'rate(x[1m])');
  assert.deepEqual(parseHash(formatHash(s)), s);
  assert.equal(formatHash(parseHash('')), '#/overview');
  assert.equal(formatHash({ ...parseHash(''), view: 'processes', sort: '-cpu' }), '#/processes?sort=-cpu');
  const f = parseHash('#/overview?node=gpu07%3A8747');  // fleet mode's node picker
  assert.equal(f.node, 'gpu07:8747');
  assert.equal(formatHash(f), '#/overview?node=gpu07%3A8747');
  assert.equal(parseHash('#/traces').view, 'traces');  // the trace captures (views/traces.js)
});

test('bad hashes fall back to defaults', () => {
  const s = parseHash('#/nope?range=banana&end=-3');
  assert.equal(s.view, 'overview');
  assert.equal(s.range, 300);
  assert.equal(s.end, null);
  assert.equal(parseHash('#/host?range=10s').range, 300, 'ranges under a minute are refused');
});

test('one point per pixel column, never finer than the interval', () => {
  assert.equal(stepFor(300, 1000, 1), 1);
  assert.equal(stepFor(86400, 1000, 1), 87);
  assert.equal(stepFor(300, 1000, 15), 15);
  assert.equal(stepFor(86400, 0, 1), 86400);
});

test('windows end on the step grid', () => {
  const w = window({ range: 300, end: null }, 1000.7, 10);
  assert.deepEqual(w, { start: 700, end: 1000 });
  assert.deepEqual(window({ range: 60, end: 555 }, 9999, 7), { start: 490, end: 553 });
});
