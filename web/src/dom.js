// A few DOM helpers: h() builds elements (text is always set as text, never
// parsed as HTML: label values come from the monitored machine).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// A horizontal gauge: value against a limit, coloured by how close it is.
export function meter(fraction, { warn = 0.8, crit = 0.95, title = '' } = {}) {
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  const level = fraction >= crit ? 'crit' : fraction >= warn ? 'warn' : 'ok';
  return h('div', { class: `meter ${level}`, title, role: 'meter', 'aria-valuenow': Math.round(f * 100) },
    h('div', { class: 'fill', style: { width: `${(f * 100).toFixed(1)}%` } }));
}

export function section(title, ...children) {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}
