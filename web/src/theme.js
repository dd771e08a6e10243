// Colours: the Okabe–Ito palette (distinguishable with every common form of
// colour blindness), the dark/light choice kept in localStorage and falling
// back to the system's prefers-color-scheme.
const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#999999'];

export function seriesColor(i) {
  return OKABE_ITO[i % OKABE_ITO.length];
}

export function initTheme(storage = globalThis.localStorage) {
  const saved = storage?.getItem('llmon.theme');
  apply(saved || (matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark'));
}

export function toggleTheme(storage = globalThis.localStorage) {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  storage?.setItem('llmon.theme', next);
  apply(next);
  return next;
}

function apply(theme) {
  document.documentElement.dataset.theme = theme;
}
