import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, ApiError, alignSeries, seriesName, byLabel } from '../src/api.js';

function fakeFetch(routes) {
  const calls = [];
  const fn = async (url, init) => {
    calls.push({ url, init });
    const r = routes[url.split('?')[0]];
    if (!r) return { ok: false, status: 404, text: async () => '404 page not found\n' };
    const { status = 200, body } = typeof r === 'function' ? r(init) : r;
    return { ok: status < 400, status, text: async () => (typeof body === 'string' ? body : JSON.stringify(body)) };
  };
  fn.calls = calls;
  return fn;
}

test('instant queries are POSTed as forms and values become numbers', async () => {
  const fetch = fakeFetch({
    '/api/v1/query': { body: { status: 'success', data: { resultType: 'vector', result: [
      { metric: { __name__: 'up', job: 'llmon' }, value: [1700000000.5, '1'] },
      { metric: { __name__: 'x' }, value: [1700000000.5, 'NaN'] }] } } },
  });
  const api = new Api('', fetch);
  const r = await api.query('up or x', 1700000000.5);
  assert.equal(r.length, 2);
  assert.equal(r[0].value, 1);
  assert.ok(Number.isNaN(r[1].value));
  assert.equal(fetch.calls[0].init.method, 'POST');
  assert.equal(fetch.calls[0].init.body, 'query=up+or+x&time=1700000000.5');
});

test('scalar results and range queries', async () => {
  const fetch = fakeFetch({
    '/api/v1/query': { body: { status: 'success', data: { resultType: 'scalar', result: [10, '2.5'] } } },
    '/api/v1/query_range': { body: { status: 'success', data: { resultType: 'matrix', result: [
      { metric: { gpu: '0' }, values: [[100, '1'], [110, '2'], [130, '4']] }] } } },
  });
  const api = new Api('', fetch);
  assert.deepEqual(await api.query('2.5'), [{ metric: {}, value: 2.5, ts: 10 }]);
  const s = await api.queryRange('x', 100, 130, 10);
  assert.deepEqual(s, [{ metric: { gpu: '0' }, ts: [100, 110, 130], vs: [1, 2, 4] }]);
  assert.equal(fetch.calls[1].init.body, 'query=x&start=100&end=130&step=10');
});

test('errors carry the server message and type', async () => {
  const fetch = fakeFetch({
    '/api/v1/query': { status: 400, body: { status: 'error', errorType: 'bad_data', error: 'parse error at char 3' } },
  });
  const api = new Api('', fetch);
  await assert.rejects(api.query('a +'), (e) => e instanceof ApiError && e.errorType === 'bad_data' &&
    e.status === 400 && /parse error/.test(e.message));
  await assert.rejects(new Api('', fetch).labels(), (e) => /HTTP 404/.test(e.message));
  const down = new Api('', async () => { throw new Error('ECONNREFUSED'); });
  await assert.rejects(down.alerts(), /cannot reach the agent \(ECONNREFUSED\)/);
});

test('silences go to the v2 API as JSON; bare answers pass through', async () => {
  const fetch = fakeFetch({
    '/api/v2/silences': (init) => (init.method === 'POST' ? { body: { silenceID: 'abc' } } : { body: [] }),
    '/api/v2/silence/abc': { body: '' },
  });
  const api = new Api('', fetch);
  assert.deepEqual(await api.createSilence({ matchers: [] }), { silenceID: 'abc' });
  assert.equal(fetch.calls[0].init.headers['Content-Type'], 'application/json');
  assert.deepEqual(await api.silences(), []);
  assert.equal(await api.expireSilence('abc'), null);
  assert.equal(fetch.calls[2].init.method, 'DELETE');
});

test('alignSeries puts points on the step grid and leaves gaps as null', () => {
  const cols = alignSeries([{ ts: [100, 120], vs: [1, NaN] }, { ts: [110], vs: [5] }], 100, 130, 10);
  assert.deepEqual(cols, [[100, 110, 120, 130], [1, null, null, null], [null, 5, null, null]]);
});

test('series names and grouping by label', () => {
  assert.equal(seriesName({ __name__: 'up', job: 'a', instance: 'b' }), 'up{instance="b", job="a"}');
  assert.equal(seriesName({}), '{}');
  const m = byLabel([{ metric: { __name__: 'A', gpu: '1' }, value: 3 }, { metric: { __name__: 'B', gpu: '1' }, value: 4 },
    { metric: { __name__: 'A' }, value: 9 }], 'gpu');
  assert.deepEqual([...m.keys()], ['1']);
  assert.deepEqual(m.get('1').values, { A: 3, B: 4 });
});

test('fleet mode: data calls go through the proxy scoped to the node, the rest stay local', async () => {
  const ok = { body: { status: 'success', data: { resultType: 'vector', result: [] } } };
  const fetch = fakeFetch({
    '/ui/datasource/api/v1/query': ok,
    '/ui/datasource/api/v1/query_range': { body: { status: 'success', data: { resultType: 'matrix', result: [] } } },
    '/ui/datasource/api/v1/label/gpu/values': { body: { status: 'success', data: ['0'] } },
    '/ui/datasource/api/v1/labels': { body: { status: 'success', data: ['gpu'] } },
    '/ui/datasource/nodes': { body: { status: 'success', data: { label: 'instance', url: 'http://p', nodes: ['a:1', 'b:1'] } } },
    '/api/v1/alerts': { body: { status: 'success', data: { alerts: [] } } },
  });
  const api = new Api('', fetch);
  assert.deepEqual((await api.nodes()).nodes, ['a:1', 'b:1']);
  api.dataBase = '/ui/datasource';
  api.node = 'b:1';
  await api.query('up', 5);
  assert.equal(fetch.calls[1].url, '/ui/datasource/api/v1/query');
  assert.equal(fetch.calls[1].init.body, 'query=up&time=5&node=b%3A1');
  await api.queryRange('up', 1, 2, 1);
  assert.match(fetch.calls[2].init.body, /&node=b%3A1$/);
  await api.labelValues('gpu');
  assert.equal(fetch.calls[3].url, '/ui/datasource/api/v1/label/gpu/values?node=b%3A1');
  await api.labels();
  assert.equal(fetch.calls[4].url, '/ui/datasource/api/v1/labels?node=b%3A1');
  await api.alerts();
  assert.equal(fetch.calls[5].url, '/api/v1/alerts');
});
