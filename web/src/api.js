// The dashboard's only way to the data: llmon's public HTTP API, the same
// Prometheus query API Grafana uses (docs/api.md). `fetch` is injected so the
// unit tests (web/test/api.test.js) drive it without a server.

export class ApiError extends Error {
  constructor(message, { status = 0, errorType = '' } = {}) {
    super(message);
    this.status = status;
    this.errorType = errorType;
  }
}

export class Api {
  constructor(base = '', fetchImpl = globalThis.fetch?.bind(globalThis)) {
    this.base = base;
    this.fetch = fetchImpl;
    // Fleet mode (--ui.datasource, docs/dashboard.md): the data calls (query,
    // query_range, labels, label values) go through the agent's proxy to the
    // fleet's server, scoped to `node`; alerts, diagnosis and health stay
    // this agent's.
    this.dataBase = '';
    this.node = null;
  }

  #data(path) {
    return this.dataBase + path;
  }
  #scoped(params) {
    if (this.node !== null && this.node !== undefined) params.node = this.node;
    return params;
  }

  async #call(path, { method = 'GET', form = null, json = null } = {}) {
    const init = { method, headers: {} };
    if (form) {
      init.body = new URLSearchParams(form).toString();
      init.headers['Content-Type'] = 'application/x-www-form-urlencoded';
    } else if (json) {
      init.body = JSON.stringify(json);
      init.headers['Content-Type'] = 'application/json';
    }
    let res;
    try {
      res = await this.fetch(this.base + path, init);
    } catch (e) {
      throw new ApiError(`cannot reach the agent (${e.message})`);
    }
    const text = await res.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new ApiError(`${path}: HTTP ${res.status}: ${text.slice(0, 200)}`, { status: res.status });
    }
    // Prometheus's envelope {status, data, errorType, error}; Alertmanager's
    // v2 answers are bare JSON.
    if (body && typeof body === 'object' && 'status' in body && (body.status === 'error' || body.error)) {
      throw new ApiError(body.error || 'error', { status: res.status, errorType: body.errorType || '' });
    }
    if (!res.ok) {
      const msg = typeof body === 'string' ? body : body?.message || text;
      throw new ApiError(`${path}: HTTP ${res.status}: ${msg}`, { status: res.status });
    }
    return body && typeof body === 'object' && 'data' in body && 'status' in body ? body.data : body;
  }

  // Instant query -> [{metric, value}] (numbers, NaN for "NaN").
  async query(expr, time = null) {
    const form = { query: expr };
    if (time !== null && time !== undefined) form.time = String(time);
    const data = await this.#call(this.#data('/api/v1/query'), { method: 'POST', form: this.#scoped(form) });
    return normaliseInstant(data);
  }

  // Range query -> {series: [{metric, ts: [], vs: []}]}.
  async queryRange(expr, start, end, step) {
    const form = { query: expr, start: String(start), end: String(end), step: String(step) };
    const data = await this.#call(this.#data('/api/v1/query_range'), { method: 'POST', form: this.#scoped(form) });
    if (data.resultType !== 'matrix') throw new ApiError(`query_range answered ${data.resultType}`);
    return data.result.map((s) => ({
      metric: s.metric,
      ts: s.values.map((p) => p[0]),
      vs: s.values.map((p) => Number(p[1])),
    }));
  }

  labels() {
    return this.#call(this.#data('/api/v1/labels') + this.#nodeQuery('?'));
  }
  labelValues(name) {
    return this.#call(this.#data(`/api/v1/label/${encodeURIComponent(name)}/values`) + this.#nodeQuery('?'));
  }
  #nodeQuery(sep) {
    return this.dataBase && this.node !== null ? `${sep}node=${encodeURIComponent(this.node)}` : '';
  }
  // Fleet mode: {label, url, nodes} of the data source.
  nodes() {
    return this.#call('/ui/datasource/nodes');
  }
  buildInfo() {
    return this.#call('/api/v1/status/buildinfo');
  }
  flags() {
    return this.#call('/api/v1/status/flags');
  }
  // Scrape targets (Prometheus's shape) with llmon's discoveryNotes and
  // discoveryErrors (docs/scrape.md).
  targets() {
    return this.#call('/api/v1/targets?state=active');
  }
  diagnosis(window, time = null) {
    const q = new URLSearchParams({ window, format: 'json' });
    if (time !== null && time !== undefined) q.set('time', String(time));
    return this.#call(`/api/v1/diagnosis?${q}`);
  }
  alerts() {
    return this.#call('/api/v1/alerts').then((d) => d.alerts);
  }
  rules(type = '') {
    return this.#call('/api/v1/rules' + (type ? `?type=${type}` : '')).then((d) => d.groups);
  }
  silences() {
    return this.#call('/api/v2/silences');
  }
  // The agent's trace captures, newest first (docs/trace.md).
  traceCaptures() {
    return this.#call('/api/v1/trace/captures');
  }
  createSilence(silence) {
    return this.#call('/api/v2/silences', { method: 'POST', json: silence });
  }
  expireSilence(id) {
    return this.#call(`/api/v2/silence/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }
}

export function normaliseInstant(data) {
  if (data.resultType === 'scalar' || data.resultType === 'string')
    return [{ metric: {}, value: Number(data.result[1]), ts: data.result[0] }];
  return data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]), ts: s.value[0] }));
}

// Range series -> uPlot's aligned columns: [xs, ys1, ys2, ...] on the query's
// step grid from start to end, null where a series has no point (a gap is
// drawn as a gap, never interpolated).
export function alignSeries(series, start, end, step) {
  const n = Math.max(0, Math.floor((end - start) / step + 1e-9) + 1);
  const xs = new Array(n);
  for (let i = 0; i < n; i++) xs[i] = start + i * step;
  const cols = [xs];
  for (const s of series) {
    const ys = new Array(n).fill(null);
    for (let i = 0; i < s.ts.length; i++) {
      const k = Math.round((s.ts[i] - start) / step);
      if (k >= 0 && k < n) ys[k] = Number.isFinite(s.vs[i]) ? s.vs[i] : null;
    }
    cols.push(ys);
  }
  return cols;
}

// {__name__="x", a="b"} as Prometheus prints a series.
export function seriesName(metric) {
  const { __name__: name = '', ...rest } = metric;
  const keys = Object.keys(rest).sort();
  if (keys.length === 0) return name || '{}';
  return `${name}{${keys.map((k) => `${k}="${rest[k]}"`).join(', ')}}`;
}

// Index instant results by a label (e.g. "gpu") and metric name:
// byLabel(results, 'gpu') -> Map("0" -> {DCGM_FI_DEV_GPU_UTIL: 97, ...}).
export function byLabel(results, label) {
  const out = new Map();
  for (const r of results) {
    const key = r.metric[label];
    if (key === undefined) continue;
    if (!out.has(key)) out.set(key, { labels: r.metric, values: {} });
    out.get(key).values[r.metric.__name__] = r.value;
  }
  return out;
}
