// The host's charts, shared by the overview (a summary set) and the host
// view (all of them). Every series is one point per pixel column: gauges as
// max_over_time over the step, counters as rate over the step (never
// shorter than two collection intervals).
import { h, clear } from '../dom.js';
import * as fmt from '../format.js';
import { TimeChart } from '../chart.js';

const FS = 'fstype!~"tmpfs|ramfs|squashfs|nsfs|overlay"';

// name -> {title, format, queries: [(sel, step, w) -> expr], legend(metric) -> string}
export const HOST_CHARTS = {
  cpu: {
    title: 'CPU busy by mode (share of all cores)', format: fmt.ratio, yMax: undefined,
    queries: [(s, st, w) => `sum by (mode) (rate(node_cpu_seconds_total{mode!="idle",${s}}[${w}])) / scalar(count(node_cpu_seconds_total{mode="idle",${s}}))`],
    legend: (m) => m.mode,
  },
  memory: {
    title: 'Memory', format: fmt.bytes,
    queries: [
      (s, st) => `label_replace(max_over_time(node_memory_MemTotal_bytes{${s}}[${st}]) - min_over_time(node_memory_MemAvailable_bytes{${s}}[${st}]), "what", "used", "", "")`,
      (s, st) => `label_replace(max_over_time(node_memory_Cached_bytes{${s}}[${st}]), "what", "page cache", "", "")`,
      (s, st) => `label_replace(max_over_time(node_memory_MemTotal_bytes{${s}}[${st}]), "what", "total", "", "")`,
    ],
    legend: (m) => m.what,
  },
  swap: {
    title: 'Swap used', format: fmt.bytes,
    queries: [(s, st) => `max_over_time(node_memory_SwapTotal_bytes{${s}}[${st}]) - min_over_time(node_memory_SwapFree_bytes{${s}}[${st}])`],
    legend: () => 'swap',
  },
  psi: {
    title: 'Pressure stall (share of time some task waited)', format: fmt.ratio,
    queries: [
      (s, st, w) => `label_replace(rate(node_pressure_cpu_waiting_seconds_total{${s}}[${w}]), "what", "cpu", "", "")`,
      (s, st, w) => `label_replace(rate(node_pressure_memory_waiting_seconds_total{${s}}[${w}]), "what", "memory", "", "")`,
      (s, st, w) => `label_replace(rate(node_pressure_io_waiting_seconds_total{${s}}[${w}]), "what", "io", "", "")`,
    ],
    legend: (m) => m.what,
  },
  network: {
    title: 'Network (bits/s, per interface; transmit negative)', format: (v) => fmt.bitsPerSecond(Math.abs(v)),
    queries: [
      (s, st, w) => `label_replace(rate(node_network_receive_bytes_total{device!="lo",${s}}[${w}]), "dir", "rx", "", "")`,
      (s, st, w) => `label_replace(-rate(node_network_transmit_bytes_total{device!="lo",${s}}[${w}]), "dir", "tx", "", "")`,
    ],
    legend: (m) => `${m.device} ${m.dir}`,
  },
  disk: {
    title: 'Disk throughput (per device; write negative)', format: (v) => fmt.bytesPerSecond(Math.abs(v)),
    queries: [
      (s, st, w) => `label_replace(rate(node_disk_read_bytes_total{${s}}[${w}]), "dir", "read", "", "")`,
      (s, st, w) => `label_replace(-rate(node_disk_written_bytes_total{${s}}[${w}]), "dir", "write", "", "")`,
    ],
    legend: (m) => `${m.device} ${m.dir}`,
  },
  disk_latency: {
    title: 'Disk latency (mean per I/O)', format: fmt.seconds,
    queries: [
      (s, st, w) => `label_replace(rate(node_disk_read_time_seconds_total{${s}}[${w}]) / rate(node_disk_reads_completed_total{${s}}[${w}]), "dir", "read", "", "")`,
      (s, st, w) => `label_replace(rate(node_disk_write_time_seconds_total{${s}}[${w}]) / rate(node_disk_writes_completed_total{${s}}[${w}]), "dir", "write", "", "")`,
    ],
    legend: (m) => `${m.device} ${m.dir}`,
  },
  disk_util: {
    title: 'Disk utilisation (time busy)', format: fmt.ratio, yMax: 1,
    queries: [(s, st, w) => `rate(node_disk_io_time_seconds_total{${s}}[${w}])`],
    legend: (m) => m.device,
  },
  filesystem: {
    title: 'Filesystem fill (every mount)', format: fmt.ratio, yMax: 1,
    queries: [(s, st) => `1 - min_over_time(node_filesystem_avail_bytes{${FS},${s}}[${st}]) / max_over_time(node_filesystem_size_bytes{${FS},${s}}[${st}])`],
    legend: (m) => m.mountpoint,
  },
};

export function hostCharts(ctx, root, names) {
  const charts = names.map((name) => {
    const spec = HOST_CHARTS[name];
    const holder = h('div', { class: 'chart', dataset: { chart: name } });
    root.append(h('figure', { class: 'chart-box' }, h('figcaption', {}, spec.title), holder));
    return { name, spec, chart: new TimeChart(holder, { format: spec.format, yMax: spec.yMax, ...ctx.zoomHandlers }) };
  });
  return {
    async refresh() {
      await Promise.all(charts.map(async ({ spec, chart }) => {
        const res = await ctx.rangeQueries(spec.queries.map((q) => (step, w) => q(ctx.sel, step, w)));
        // The order of `or` answers is not fixed: sort by legend so that a
        // series keeps its colour from one refresh to the next.
        const order = res.series.map((s, i) => [spec.legend(s.metric) ?? '', i])
          .sort((a, b) => a[0].localeCompare(b[0], undefined, { numeric: true }));
        chart.set([res.cols[0], ...order.map(([, i]) => res.cols[i + 1])], order.map(([l]) => l));
      }));
    },
    destroy() {
      for (const c of charts) c.chart.destroy();
      clear(root);
    },
  };
}
