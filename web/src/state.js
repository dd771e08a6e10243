// The view's state, kept in the URL's hash so that a link reproduces what
// the sender saw: #/<view>?range=1h&end=1733100000&expr=...  Pure (unit-tested).
import { parseDuration, formatDuration } from './format.js';

export const VIEWS = ['overview', 'processes', 'host', 'alerts', 'explore', 'health', 'logs', 'diagnosis', 'apps', 'traces'];
export const RANGES = ['5m', '15m', '1h', '3h', '6h', '12h', '24h', '2d', '7d', '15d'];
const DEFAULT = { view: 'overview', range: 300, end: null, expr: '', sort: '', filter: '', gpu: '', node: '' };

export function parseHash(hash) {
  const s = { ...DEFAULT };
  const text = String(hash || '').replace(/^#\/?/, '');
  const q = text.indexOf('?');
  const view = q < 0 ? text : text.slice(0, q);
  if (VIEWS.includes(view)) s.view = view;
  const params = new URLSearchParams(q < 0 ? '' : text.slice(q + 1));
  const range = parseDuration(params.get('range') || '');
  if (range && range >= 60) s.range = range;
  const end = Number(params.get('end'));
  if (params.has('end') && Number.isFinite(end) && end > 0) s.end = end;
  for (const k of ['expr', 'sort', 'filter', 'gpu', 'node']) if (params.has(k)) s[k] = params.get(k);
  return s;
}

export function formatHash(s) {
  const params = new URLSearchParams();
  if (s.range !== DEFAULT.range) params.set('range', formatDuration(s.range));
  if (s.end !== null && s.end !== undefined) params.set('end', String(Math.round(s.end)));
  for (const k of ['expr', 'sort', 'filter', 'gpu', 'node']) if (s[k]) params.set(k, s[k]);
  const q = params.toString();
  return `#/${s.view}${q ? '?' + q : ''}`;
}

// One point per pixel column, never finer than the collection interval:
// the step in whole seconds, and the window each point summarises (the same
// step, so max_over_time over it keeps every spike).
export function stepFor(rangeSeconds, widthPx, intervalSeconds) {
  const perPixel = rangeSeconds / Math.max(1, Math.floor(widthPx));
  return Math.max(intervalSeconds, Math.ceil(perPixel));
}

// The [start, end] a chart asks for, end aligned to the step so successive
// live refreshes hit the same grid (and the store's aligned timestamps).
export function window(s, nowSeconds, step) {
  const end = Math.floor((s.end ?? nowSeconds) / step) * step;
  return { start: end - Math.ceil(s.range / step) * step, end };
}
