// Human units for the dashboard: pure functions, no DOM (unit-tested in
// web/test/format.test.js). Binary prefixes for memory (GiB, as nvidia-smi's
// MiB), decimal for rates on the wire (MB/s as iostat -h and Netdata do not
// agree; we follow node_exporter's bytes and show IEC for sizes, SI for
// throughput, each labelled).

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const SI = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

// Three significant digits, no trailing zeros: 1.23, 12.3, 123, 1234.
export function sig3(x) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 1000) return Math.round(x).toString();
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return Number(x.toFixed(digits)).toString();
}

function scaled(x, base, units, suffix) {
  if (!Number.isFinite(x)) return '–';
  let i = 0;
  let v = x;
  while (Math.abs(v) >= base && i < units.length - 1) {
    v /= base;
    i++;
  }
  return `${sig3(v)} ${units[i]}${suffix}`;
}

export const bytes = (x) => scaled(x, 1024, IEC, '');
export const bytesPerSecond = (x) => scaled(x, 1000, SI.map((p) => p + 'B'), '/s');
export const bitsPerSecond = (x) => scaled(x * 8, 1000, SI.map((p) => p + 'b'), '/s');
export const hertz = (x) => scaled(x, 1000, SI.map((p) => p + 'Hz'), '');
export const perSecond = (x) => scaled(x, 1000, SI, '/s').replace(' /s', '/s');
export const watts = (x) => (Number.isFinite(x) ? `${sig3(x)} W` : '–');
export const celsius = (x) => (Number.isFinite(x) ? `${Math.round(x)} °C` : '–');
// ratio 0..1 -> "42.5 %"; percent() takes 0..100 (DCGM's GPU_UTIL).
export const ratio = (x) => (Number.isFinite(x) ? `${sig3(x * 100)} %` : '–');
export const percent = (x) => (Number.isFinite(x) ? `${sig3(x)} %` : '–');
export const mib = (x) => bytes(x * 1024 * 1024);

export function seconds(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0 s';
  if (a < 1e-3) return `${sig3(x * 1e6)} µs`;
  if (a < 1) return `${sig3(x * 1e3)} ms`;
  if (a < 120) return `${sig3(x)} s`;
  return duration(x);
}

// 3725 -> "1h 2m"; 90061 -> "1d 1h": two largest units, as `since` columns.
export function duration(s) {
  if (!Number.isFinite(s)) return '–';
  const parts = [];
  let rest = Math.max(0, Math.floor(s));
  for (const [unit, n] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]]) {
    if (rest >= n || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / n)}${unit}`);
      rest %= n;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

// Prometheus durations: "5m", "1h30m", "2d", "500ms" -> seconds; null if bad.
export function parseDuration(text) {
  const m = /^((\d+)y)?((\d+)w)?((\d+)d)?((\d+)h)?((\d+)m)?((\d+)s)?((\d+)ms)?$/.exec(String(text).trim());
  if (!m || text === '') return null;
  const f = [31536000, 604800, 86400, 3600, 60, 1, 0.001];
  let total = 0;
  let any = false;
  for (let i = 0; i < f.length; i++) {
    const v = m[2 + 2 * i];
    if (v !== undefined) {
      total += Number(v) * f[i];
      any = true;
    }
  }
  return any ? total : null;
}

// Seconds -> the shortest Prometheus duration string ("90" -> "1m30s").
export function formatDuration(s) {
  if (!(s > 0)) return '0s';
  let ms = Math.round(s * 1000);
  let out = '';
  for (const [unit, n] of [['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000], ['ms', 1]]) {
    if (ms >= n) {
      out += `${Math.floor(ms / n)}${unit}`;
      ms %= n;
    }
  }
  return out;
}

// The unit formatter for a metric name, from its suffix (Prometheus naming
// conventions) and the DCGM fields' documented units.
export function formatterFor(name) {
  if (!name) return sig3;
  if (/_bytes_total$/.test(name)) return bytesPerSecond;
  if (/_bytes$/.test(name)) return bytes;
  if (/_seconds_total$/.test(name)) return ratio;
  if (/_seconds$/.test(name)) return seconds;
  if (/_ratio$/.test(name)) return ratio;
  if (/_celsius$/.test(name) || /_TEMP$/.test(name)) return celsius;
  if (/_watts$/.test(name) || /POWER_(USAGE|MGMT_LIMIT|MGMT_LIMIT_DEF)$|ENFORCED_POWER_LIMIT$/.test(name)) return watts;
  if (/_hz$/.test(name)) return hertz;
  if (/_CLOCK$/.test(name)) return (x) => hertz(x * 1e6);
  if (/_FB_(USED|FREE|TOTAL|RESERVED)$/.test(name)) return mib;
  if (/_UTIL$/.test(name)) return percent;
  if (/_total$/.test(name)) return perSecond;
  return sig3;
}

// "71 / 79.6 GiB": two sizes in the larger one's unit.
export function bytesPair(a, b) {
  const m = Math.max(Math.abs(a), Math.abs(b));
  if (!Number.isFinite(m)) return `${bytes(a)} / ${bytes(b)}`;
  let i = 0;
  let scale = 1;
  while (m / scale >= 1024 && i < IEC.length - 1) {
    scale *= 1024;
    i++;
  }
  return `${sig3(a / scale)} / ${sig3(b / scale)} ${IEC[i]}`;
}

// Axis ticks: the time of day, with seconds for short ranges and the date
// when the range spans days.
export function timeTick(t, spanSeconds) {
  const d = new Date(t * 1000);
  const p2 = (n) => String(n).padStart(2, '0');
  const hm = `${p2(d.getHours())}:${p2(d.getMinutes())}`;
  if (spanSeconds <= 600) return `${hm}:${p2(d.getSeconds())}`;
  if (spanSeconds <= 2 * 86400) return hm;
  return `${d.getMonth() + 1}/${d.getDate()} ${hm}`;
}
