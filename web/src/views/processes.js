// GPU processes: every process holding a GPU context, with who runs it
// (user, container, pod, namespace), its GPU memory and SM share and its host
// CPU and RSS; sortable by any column, filterable, refreshed every cycle.
import { h, clear, section } from '../dom.js';
import * as fmt from '../format.js';

const COLUMNS = [
  { key: 'gpu', title: 'GPU', num: true },
  { key: 'pid', title: 'PID', num: true },
  { key: 'user', title: 'User' },
  { key: 'command', title: 'Command' },
  { key: 'container', title: 'Container' },
  { key: 'pod', title: 'Pod' },
  { key: 'namespace', title: 'Namespace' },
  { key: 'mem', title: 'GPU memory', num: true, fmt: fmt.bytes },
  { key: 'sm', title: 'SM', num: true, fmt: fmt.ratio },
  { key: 'cpu', title: 'Host CPU', num: true, fmt: fmt.ratio },
  { key: 'rss', title: 'RSS', num: true, fmt: fmt.bytes },
];

export class ProcessesView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.filter = h('input', {
      type: 'search', placeholder: 'filter: command, user, container, pod…', id: 'proc-filter', value: ctx.state.filter,
      oninput: () => {
        this.ctx.setState({ filter: this.filter.value }, { quiet: true });
        this.#render();
      },
    });
    this.table = h('table', { class: 'table', id: 'proc-table' });
    this.count = h('span', { class: 'dim' });
    root.append(section('GPU processes', h('div', { class: 'toolbar' }, this.filter, this.count), this.table));
    this.rows = [];
  }

  async refresh() {
    const sel = this.ctx.sel;
    const [gauges, cpu] = await Promise.all([
      this.ctx.api.query(`{__name__=~"llmon_gpu_process_(memory_bytes|sm_utilization_ratio|resident_memory_bytes)",${sel}}`, this.ctx.state.end ?? null),
      this.ctx.api.query(`rate(llmon_gpu_process_cpu_seconds_total{${sel}}[${this.ctx.rateWindow}])`, this.ctx.state.end ?? null),
    ]);
    const procs = new Map();
    const get = (m) => {
      const key = `${m.gpu}/${m.pid}`;
      if (!procs.has(key)) {
        procs.set(key, {
          gpu: m.gpu, pid: m.pid, user: m.user || '', command: m.command || '', container: m.container || '',
          pod: m.pod || '', namespace: m.namespace || '', mem: NaN, sm: NaN, cpu: NaN, rss: NaN,
        });
      }
      return procs.get(key);
    };
    for (const r of gauges) {
      const p = get(r.metric);
      if (r.metric.__name__ === 'llmon_gpu_process_memory_bytes') p.mem = r.value;
      else if (r.metric.__name__ === 'llmon_gpu_process_sm_utilization_ratio') p.sm = r.value;
      else p.rss = r.value;
    }
    for (const r of cpu) get(r.metric).cpu = r.value;
    this.rows = [...procs.values()];
    this.#render();
  }

  #render() {
    const { sort } = this.ctx.state;
    const desc = sort.startsWith('-');
    const key = sort.replace(/^-/, '') || 'mem';
    const col = COLUMNS.find((c) => c.key === key) || COLUMNS[7];
    const needle = this.filter.value.trim().toLowerCase();
    const rows = this.rows
      .filter((r) => !needle || ['command', 'user', 'container', 'pod', 'namespace', 'pid']
        .some((k) => String(r[k]).toLowerCase().includes(needle)))
      .sort((a, b) => compare(a[col.key], b[col.key], col.num) * (sort ? (desc ? -1 : 1) : -1));
    this.count.textContent = `${rows.length} of ${this.rows.length} processes`;
    clear(this.table).append(
      h('thead', {}, h('tr', {}, COLUMNS.map((c) => h('th', {
        class: c.num ? 'num sortable' : 'sortable', dataset: { key: c.key },
        'aria-sort': c.key === col.key ? (sort && !desc ? 'ascending' : 'descending') : null,
        onclick: () => {
          const next = col.key === c.key && (!sort || desc) ? c.key : `-${c.key}`;
          this.ctx.setState({ sort: next === '-mem' ? '' : next }, { quiet: true });
          this.#render();
        },
      }, c.title)))),
      h('tbody', {}, rows.length ? rows.map((r) => h('tr', {}, COLUMNS.map((c) =>
        h('td', { class: c.num ? 'num' : '' }, c.fmt ? c.fmt(r[c.key]) : r[c.key] || '–'))))
        : h('tr', {}, h('td', { colspan: COLUMNS.length, class: 'empty' }, 'No process holds a GPU context.'))));
  }

  destroy() {}
}

function compare(a, b, num) {
  if (num) {
    const x = Number(a);
    const y = Number(b);
    return (Number.isNaN(x) ? -Infinity : x) - (Number.isNaN(y) ? -Infinity : y);
  }
  return String(a).localeCompare(String(b));
}
