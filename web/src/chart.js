// Time-series charts on uPlot: one point per pixel column, a shared
// crosshair across every chart on the page (cursor sync), drag to zoom (the
// selection becomes the page's time range), double-click to go back to live.
import uPlot from 'uplot';
import { seriesColor } from './theme.js';
import { timeTick } from './format.js';

const SYNC = uPlot.sync('llmon');

export class TimeChart {
  // opts: {title, format(v)->string, series: [{label}], onZoom(start,end), onReset(), stacked, yMin, yMax}
  constructor(el, opts) {
    this.el = el;
    this.opts = opts;
    this.plot = null;
    this.labels = [];
    this.resizeObserver = new ResizeObserver(() => this.#resize());
    this.resizeObserver.observe(el);
  }

  width() {
    return Math.max(200, Math.floor(this.el.clientWidth || 600));
  }

  // data: uPlot columns [xs, ...ys]; labels: one per y column.
  set(data, labels) {
    const same = this.plot && labels.length === this.labels.length && labels.every((l, i) => l === this.labels[i]);
    if (same) {
      this.plot.setData(data);
      return;
    }
    this.labels = labels;
    if (this.plot) this.plot.destroy();
    this.plot = new uPlot(this.#options(labels), data, this.el);
    this.el.dataset.series = String(labels.length);
    // For the budgets in bench/dashboard/: navigation to the first chart with data.
    if (labels.length && !performance.getEntriesByName('llmon:first-chart').length) performance.mark('llmon:first-chart');
  }

  #options(labels) {
    const fmt = this.opts.format || ((v) => String(v));
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue('--fg-dim').trim() || '#888';
    const grid = css.getPropertyValue('--grid').trim() || '#8883';
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    return {
      width: this.width(),
      height: this.opts.height || 160,
      cursor: {
        sync: { key: SYNC.key, setSeries: false },
        drag: { x: true, y: false, setScale: false },
      },
      select: { show: true },
      legend: { show: !this.opts.compact && labels.length <= 12, live: true },
      scales: { x: { time: true }, y: { range: (u, min, max) => yRange(min, max, this.opts) } },
      axes: [{ ...axis, space: 70, values: (u, ticks) => {
        const span = (u.scales.x.max ?? 0) - (u.scales.x.min ?? 0);
        return ticks.map((t) => timeTick(t, span));
      } }, { ...axis, size: this.opts.compact ? 54 : 70,
        splits: this.opts.compact && this.opts.yMax !== undefined ? () => [0, this.opts.yMax / 2, this.opts.yMax] : undefined,
        values: (u, ticks) => ticks.map((t) => fmt(t)) }],
      series: [
        {},
        ...labels.map((label, i) => ({
          label,
          stroke: seriesColor(i),
          width: 1.5,
          fill: this.opts.fill ? seriesColor(i) + '22' : undefined,
          value: (u, v) => (v === null || v === undefined ? '–' : fmt(v)),
          spanGaps: false,
          points: { show: false },
        })),
      ],
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 3) return;
            const a = u.posToVal(u.select.left, 'x');
            const b = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
            this.opts.onZoom?.(Math.floor(a), Math.ceil(b));
          },
        ],
        ready: [
          (u) => {
            u.over.addEventListener('dblclick', () => this.opts.onReset?.());
          },
        ],
      },
    };
  }

  #resize() {
    if (this.plot) this.plot.setSize({ width: this.width(), height: this.opts.height || 160 });
  }

  destroy() {
    this.resizeObserver.disconnect();
    if (this.plot) this.plot.destroy();
    this.plot = null;
  }
}

function yRange(min, max, opts) {
  let lo = opts.yMin ?? Math.min(0, min ?? 0);
  let hi = opts.yMax ?? max ?? 1;
  if (opts.yMax === undefined && max !== null && max > hi) hi = max;
  if (!(hi > lo)) hi = lo + 1;
  return [lo, opts.yMax === undefined ? hi * 1.05 : hi];
}
