// The dashboard's shell: navigation, the time range and live follow, the
// theme, and the refresh loop that asks each view for new data once per
// collection interval (charts only when a new point is due).
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { Api } from './api.js';
import { h, clear } from './dom.js';
import { parseHash, formatHash, stepFor, window as timeWindow, RANGES } from './state.js';
import { alignSeries } from './api.js';
import { parseDuration, formatDuration } from './format.js';
import { initTheme, toggleTheme } from './theme.js';
import { OverviewView } from './views/overview.js';
import { ProcessesView } from './views/processes.js';
import { HostView } from './views/host.js';
import { AlertsView } from './views/alerts.js';
import { ExploreView } from './views/explore.js';
import { HealthView, LaterView } from './views/health.js';
import { DiagnosisView } from './views/diagnosis.js';
import { ApplicationsView } from './views/applications.js';
import { TracesView } from './views/traces.js';

const NAV = [
  ['overview', 'Overview'], ['processes', 'GPU processes'], ['apps', 'Applications'], ['host', 'Host'], ['alerts', 'Alerts'],
  ['health', 'GPU health'], ['logs', 'Logs'], ['diagnosis', 'Diagnosis'], ['traces', 'Traces'],
  ['explore', 'Explore'],
];
const LATER = {
  logs: { title: 'Log events', text: 'Kernel, container and job log events (Xid, NCCL timeouts, CUDA OOM, tracebacks), parsed by the agent\'s log watcher, will be listed and charted here.' },
};

class App {
  constructor() {
    this.api = new Api('');
    this.state = parseHash(location.hash);
    this.interval = 1;
    this.retention = 15 * 86400;
    this.sel = 'job="llmon"';
    this.flags = {};
    this.fleet = null;  // fleet mode: {label, url, nodes} of --ui.datasource
    this.view = null;
    this.busy = false;
    this.lastCharts = 0;
    this.errors = h('div', { class: 'banner', id: 'banner', hidden: true });
    this.main = h('main', { id: 'view' });
    initTheme();
    document.body.append(this.#header(), this.errors, this.main);
    addEventListener('hashchange', () => this.#fromHash());
    document.addEventListener('visibilitychange', () => document.hidden || this.tick(true));
  }

  async start() {
    try {
      const flags = await this.api.flags();
      this.flags = flags;
      this.interval = Math.max(1, (parseDuration(flags['collect.interval']) || 1));
      this.retention = parseDuration(flags['storage.retention.time']) || this.retention;
      const job = flags['storage.self.job'] || 'llmon';
      const instance = flags['storage.self.instance'];
      this.sel = `job="${esc(job)}"${instance ? `,instance="${esc(instance)}"` : ''}`;
      if (flags['ui.datasource']) await this.#fleet();
      this.api.buildInfo().then((b) => (this.version.textContent = b.version ? `v${b.version}` : ''), () => {});
    } catch (e) {
      this.onError(`cannot read the agent's settings: ${e.message}`);
    }
    this.#render();
    setInterval(() => this.tick(false), this.interval * 1000);
  }

  // Fleet mode: the node picker over the data source's nodes; the views'
  // selector becomes that node's (the proxy scopes every query to it too).
  async #fleet() {
    const ds = await this.api.nodes();
    this.fleet = ds;
    this.api.dataBase = '/ui/datasource';
    const nodes = ds.nodes || [];
    const node = nodes.includes(this.state.node) ? this.state.node : nodes[0] ?? '';
    this.#useNode(node);
    clear(this.nodeSel);
    for (const n of nodes) this.nodeSel.append(h('option', { value: n }, n));
    this.nodeSel.value = node;
    this.nodeSel.hidden = false;
    this.fleetNote.textContent = `fleet: ${ds.url} (${nodes.length} node${nodes.length === 1 ? '' : 's'})`;
    this.fleetNote.hidden = false;
    if (!nodes.length) this.onError(`the data source ${ds.url} has no node with a ${ds.label} label`);
  }

  #useNode(node) {
    this.api.node = node;
    this.sel = `${this.fleet.label}="${esc(node)}"`;
    if (this.state.node !== node) this.setState({ node }, { quiet: true });
  }

  ctx() {
    const app = this;
    return {
      api: app.api,
      get state() { return app.state; },
      get sel() { return app.sel; },
      get flags() { return app.flags; },
      get rateWindow() { return formatDuration(Math.max(3 * app.interval, 2)); },
      now: () => Date.now() / 1000,
      setState: (patch, opts) => app.setState(patch, opts),
      onError: (msg) => app.onError(msg),
      zoomHandlers: {
        onZoom: (start, end) => app.setState({ end, range: Math.max(60, end - start) }),
        onReset: () => app.setState({ end: null }),
      },
      rangeQuery: (template) => app.rangeQueries([template]),
      rangeQueries: (templates) => app.rangeQueries(templates),
    };
  }

  // One grid for every series of a chart: the step from the chart width.
  async rangeQueries(templates) {
    const width = Math.max(300, this.main.clientWidth - 40);
    const step = stepFor(this.state.range, width, this.interval);
    const { start, end } = timeWindow(this.state, Date.now() / 1000, step);
    const st = formatDuration(step);
    const w = formatDuration(Math.max(step, 2 * this.interval));
    // One request per chart: the parts carry distinct labels (label_replace),
    // so `or` keeps them all; browsers open only six connections per host.
    const expr = templates.length === 1 ? templates[0](st, w) : templates.map((t) => `(${t(st, w)})`).join(' or ');
    const series = await this.api.queryRange(expr, start, end, step);
    return { series, cols: alignSeries(series, start, end, step), step };
  }

  setState(patch, { quiet = false } = {}) {
    const prevView = this.state.view;
    this.state = { ...this.state, ...patch };
    const hash = formatHash(this.state);
    if (hash !== location.hash) history.replaceState(null, '', hash);
    if (quiet) return;
    if (this.state.view !== prevView) this.#render();
    else {
      this.#syncControls();
      this.tick(true);
    }
  }

  #fromHash() {
    const next = parseHash(location.hash);
    const viewChanged = next.view !== this.state.view;
    this.state = next;
    if (this.fleet && next.node && next.node !== this.api.node) {
      this.#useNode(next.node);
      this.nodeSel.value = next.node;
    }
    if (viewChanged) this.#render();
    else {
      this.#syncControls();
      this.tick(true);
    }
  }

  #header() {
    this.nav = h('nav', {}, NAV.map(([id, title]) => h('a', { href: `#/${id}`, dataset: { view: id } }, title)));
    this.rangeSel = h('select', { id: 'range', 'aria-label': 'time range', onchange: () => {
      const v = this.rangeSel.value;
      this.setState({ range: v === 'all' ? this.retention : parseDuration(v) });
    } }, [...RANGES.map((r) => h('option', { value: r }, r)), h('option', { value: 'all' }, 'all retention')]);
    this.liveBtn = h('button', { id: 'live', onclick: () => this.setState({ end: null }) }, 'Live');
    this.version = h('span', { class: 'dim' });
    this.nodeSel = h('select', { id: 'node', 'aria-label': 'node', hidden: true, onchange: () => {
      this.#useNode(this.nodeSel.value);
      this.#render();
    } });
    this.fleetNote = h('span', { class: 'dim', id: 'fleet', hidden: true });
    return h('header', { class: 'top' },
      h('a', { class: 'brand', href: '#/overview' }, 'llmon'), this.nav,
      h('div', { class: 'controls' }, this.fleetNote, this.nodeSel, this.rangeSel, this.liveBtn,
        h('button', { id: 'theme', title: 'dark / light', onclick: () => {
          toggleTheme();
          this.#render();
        } }, '◐'), this.version));
  }

  #syncControls() {
    for (const a of this.nav.children) a.classList.toggle('active', a.dataset.view === this.state.view);
    const r = formatDuration(this.state.range);
    this.rangeSel.value = RANGES.includes(r) ? r : 'all';
    if (!RANGES.includes(r) && this.state.range !== this.retention) {
      if (![...this.rangeSel.options].some((o) => o.value === r)) this.rangeSel.append(h('option', { value: r }, r));
      this.rangeSel.value = r;
    }
    this.liveBtn.classList.toggle('on', this.state.end === null);
    this.liveBtn.textContent = this.state.end === null ? '● Live' : 'Back to live';
  }

  #render() {
    this.view?.destroy();
    clear(this.main);
    const ctx = this.ctx();
    const v = this.state.view;
    const root = h('div', { class: `view view-${v}` });
    this.main.append(root);
    this.view = v === 'overview' ? new OverviewView(ctx, root)
      : v === 'processes' ? new ProcessesView(ctx, root)
      : v === 'host' ? new HostView(ctx, root)
      : v === 'alerts' ? new AlertsView(ctx, root)
      : v === 'explore' ? new ExploreView(ctx, root)
      : v === 'health' ? new HealthView(ctx, root)
      : v === 'diagnosis' ? new DiagnosisView(ctx, root)
      : v === 'apps' ? new ApplicationsView(ctx, root)
      : v === 'traces' ? new TracesView(ctx, root)
      : new LaterView(ctx, root, LATER[v]);
    this.#syncControls();
    this.tick(true);
  }

  // force: the view or range changed (redraw charts now). Otherwise: cards
  // every interval while live, charts when a new point is due.
  async tick(force) {
    if (this.busy || document.hidden) return;
    if (!force && this.state.end !== null) return;
    const step = stepFor(this.state.range, Math.max(300, this.main.clientWidth - 40), this.interval);
    const now = Date.now() / 1000;
    const charts = force || now - this.lastCharts >= step;
    this.busy = true;
    const view = this.view;
    try {
      await view.refresh({ charts });
      if (charts) {
        this.lastCharts = now;
        performance.mark('llmon:charts-drawn');
      }
      this.errors.hidden = true;
      document.body.dataset.ready = '1';
    } catch (e) {
      if (view === this.view) this.onError(e.message);
    } finally {
      this.busy = false;
    }
  }

  onError(msg) {
    this.errors.textContent = msg;
    this.errors.hidden = false;
    console.warn('llmon:', msg);
  }
}

function esc(s) {
  return String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

new App().start();
