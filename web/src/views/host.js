// Host: per-core CPU as a heatmap (readable with 192 cores), memory, swap,
// PSI, per-interface network, per-disk throughput, latency and utilisation,
// and every filesystem's fill as a table sorted fullest first (a full
// partition is never averaged away).
import { h, clear, meter, section } from '../dom.js';
import * as fmt from '../format.js';
import { hostCharts } from './host_charts.js';
import { Heatmap } from '../heatmap.js';

export class HostView {
  constructor(ctx, root) {
    this.ctx = ctx;
    const heat = h('div', { class: 'heatmap', id: 'cpu-heatmap' });
    const charts = h('div', { class: 'charts' });
    this.fsTable = h('table', { class: 'table', id: 'fs-table' });
    root.append(
      section('CPU per core (busy share)', heat),
      section('Memory, pressure, network, disks', charts),
      section('Filesystems', this.fsTable),
    );
    this.heatmap = new Heatmap(heat, { format: fmt.ratio });
    this.charts = hostCharts(ctx, charts, ['cpu', 'memory', 'swap', 'psi', 'network', 'disk', 'disk_latency', 'disk_util', 'filesystem']);
  }

  async refresh({ charts }) {
    const sel = this.ctx.sel;
    // One selector for the five families (`or` would match them on their
    // labels and keep only the first).
    const fs = await this.ctx.api.query(
      `{__name__=~"node_filesystem_(size_bytes|avail_bytes|files|files_free|readonly)",${sel}}`, this.ctx.state.end ?? null);
    this.#fs(fs);
    if (!charts) return;
    const cores = await this.ctx.rangeQuery((step, w) =>
      `sum by (cpu) (rate(node_cpu_seconds_total{mode!="idle",mode!="iowait",${sel}}[${w}]))`);
    const order = cores.series.map((s, i) => [Number(s.metric.cpu), i]).sort((a, b) => a[0] - b[0]);
    this.heatmap.set(cores.cols[0], order.map(([, i]) => cores.cols[i + 1]), order.map(([c]) => `cpu${c}`));
    await this.charts.refresh();
  }

  #fs(results) {
    const mounts = new Map();
    for (const r of results) {
      const key = `${r.metric.device}\u0000${r.metric.mountpoint}`;
      if (!mounts.has(key)) mounts.set(key, { m: r.metric, v: {} });
      mounts.get(key).v[r.metric.__name__.replace('node_filesystem_', '')] = r.value;
    }
    const rows = [...mounts.values()].map(({ m, v }) => ({
      m, v, fill: v.size_bytes > 0 ? 1 - v.avail_bytes / v.size_bytes : 0,
      ifill: v.files > 0 ? 1 - v.files_free / v.files : 0,
    })).sort((a, b) => b.fill - a.fill);
    clear(this.fsTable).append(
      h('thead', {}, h('tr', {}, ['Mount', 'Device', 'Type', 'Size', 'Available', 'Fill', '', 'Inodes used']
        .map((c) => h('th', {}, c)))),
      h('tbody', {}, rows.map(({ m, v, fill, ifill }) => h('tr', {},
        h('td', {}, m.mountpoint, v.readonly ? h('span', { class: 'badge info' }, 'ro') : null),
        h('td', { class: 'dim' }, m.device), h('td', { class: 'dim' }, m.fstype),
        h('td', { class: 'num' }, fmt.bytes(v.size_bytes)), h('td', { class: 'num' }, fmt.bytes(v.avail_bytes)),
        h('td', { class: 'num' }, fmt.ratio(fill)), h('td', { class: 'bar' }, meter(fill, { warn: 0.85, crit: 0.95 })),
        h('td', { class: 'num' }, v.files > 0 ? fmt.ratio(ifill) : '–')))));
  }

  destroy() {
    this.charts.destroy();
  }
}
