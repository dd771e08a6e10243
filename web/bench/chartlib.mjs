// The chart library chosen by measurement (docs/performance.md "Issue 16"):
// uPlot against Chart.js on the dashboard's own shape of data, 8 GPU series
// over 24 h, at one point per pixel column (1 000 points, what the dashboard
// asks for) and at full 1 s resolution (86 400 points). Built by
// bench/dashboard/chartlib.sh with esbuild, run in headless chromium; prints
// one JSON line per (library, points) with the median of the runs.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Chart, LineController, LineElement, PointElement, LinearScale, CategoryScale, Decimation } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Decimation);

function data(points, series) {
  const xs = new Float64Array(points);
  const end = 1796000000;
  for (let i = 0; i < points; i++) xs[i] = end - (points - 1 - i) * (86400 / points);
  const ys = [];
  for (let s = 0; s < series; s++) {
    const y = new Array(points);
    let v = 50;
    for (let i = 0; i < points; i++) {
      v += Math.sin(i * 0.01 + s) * 2 + ((i * 7919 + s * 104729) % 11) - 5;
      y[i] = Math.max(0, Math.min(100, v));
    }
    ys.push(y);
  }
  return [Array.from(xs), ...ys];
}

function holder() {
  const el = document.createElement('div');
  el.style.width = '1000px';
  el.style.height = '300px';
  document.body.append(el);
  return el;
}

// uPlot commits its drawing in a microtask: the time runs to its draw hook.
async function uplot(cols) {
  const el = holder();
  let drawn = 0;
  const t0 = performance.now();
  const u = new uPlot({
    width: 1000, height: 300,
    series: [{}, ...cols.slice(1).map((_, i) => ({ stroke: `hsl(${i * 45},70%,45%)`, width: 1 }))],
    hooks: { draw: [() => (drawn = performance.now())] },
  }, cols, el);
  await new Promise((r) => setTimeout(r, 0));
  if (!drawn) throw new Error('uPlot did not draw');
  const t = drawn - t0;
  u.destroy();
  el.remove();
  return t;
}

function chartjs(cols, decimate) {
  const el = holder();
  const canvas = document.createElement('canvas');
  canvas.width = 1000;
  canvas.height = 300;
  el.append(canvas);
  const t0 = performance.now();
  const c = new Chart(canvas, {
    type: 'line',
    data: {
      datasets: cols.slice(1).map((ys, i) => ({
        data: ys.map((y, k) => ({ x: cols[0][k], y })), borderColor: `hsl(${i * 45},70%,45%)`, borderWidth: 1,
        pointRadius: 0, parsing: false, normalized: true, spanGaps: false,
      })),
    },
    options: {
      animation: false, responsive: false, events: [],
      scales: { x: { type: 'linear' }, y: { type: 'linear' } },
      plugins: { decimation: { enabled: decimate, algorithm: 'min-max' } },
    },
  });
  const t = performance.now() - t0;
  c.destroy();
  el.remove();
  return t;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const out = [];
const runs = Number(new URLSearchParams(location.search).get('runs') || 7);
for (const points of [1000, 86400]) {
  const cols = data(points, 8);
  for (const [name, fn] of [['uplot', () => uplot(cols)], ['chartjs', () => chartjs(cols, false)],
    ['chartjs-decimated', () => chartjs(cols, true)]]) {
    await fn(); // warm-up
    const times = [];
    for (let r = 0; r < runs; r++) times.push(await fn());
    out.push({ library: name, series: 8, points, median_ms: Number(median(times).toFixed(2)), runs });
  }
}
window.__results = out;
document.title = 'done';
