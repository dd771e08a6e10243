// A canvas heatmap: one row per series (a CPU core), one column per point,
// colour from 0 (dim) to 1 (hot) on a perceptually ordered ramp (cividis-like,
// readable with colour blindness). Hovering shows the row, time and value.
import { h } from './dom.js';

const RAMP = ['#00204d', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#ffea46'];

export class Heatmap {
  constructor(el, { format }) {
    this.el = el;
    this.format = format;
    this.canvas = h('canvas', { class: 'heat' });
    this.tip = h('div', { class: 'heat-tip' });
    el.append(this.canvas, this.tip);
    this.canvas.addEventListener('mousemove', (e) => this.#hover(e));
    this.canvas.addEventListener('mouseleave', () => (this.tip.textContent = ''));
    this.data = null;
  }

  set(xs, rows, labels) {
    this.data = { xs, rows, labels };
    this.el.dataset.rows = String(rows.length);
    const rowH = rows.length > 64 ? 3 : rows.length > 16 ? 6 : rows.length > 4 ? 12 : 24;
    const w = Math.max(200, this.el.clientWidth || 600);
    const hgt = Math.max(rowH, rows.length * rowH);
    const dpr = globalThis.devicePixelRatio || 1;
    this.canvas.width = Math.floor(w * dpr);
    this.canvas.height = Math.floor(hgt * dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${hgt}px`;
    const g = this.canvas.getContext('2d');
    g.scale(dpr, dpr);
    const n = xs.length;
    const colW = w / Math.max(1, n);
    for (let r = 0; r < rows.length; r++) {
      const ys = rows[r];
      for (let i = 0; i < n; i++) {
        const v = ys[i];
        if (v === null || v === undefined) continue;
        g.fillStyle = RAMP[Math.max(0, Math.min(RAMP.length - 1, Math.floor(v * RAMP.length)))];
        g.fillRect(i * colW, r * rowH, Math.ceil(colW), rowH);
      }
    }
    this.rowH = rowH;
    this.colW = colW;
  }

  #hover(e) {
    if (!this.data) return;
    const rect = this.canvas.getBoundingClientRect();
    const r = Math.floor((e.clientY - rect.top) / this.rowH);
    const i = Math.floor((e.clientX - rect.left) / this.colW);
    const row = this.data.rows[r];
    if (!row || i < 0 || i >= this.data.xs.length) return;
    const t = new Date(this.data.xs[i] * 1000).toLocaleTimeString();
    this.tip.textContent = `${this.data.labels[r]} · ${t} · ${row[i] === null ? '–' : this.format(row[i])}`;
  }
}
