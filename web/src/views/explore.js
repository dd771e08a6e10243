// Explore: a PromQL box with completion (metric names, label names, label
// values from the API), the result over the page's time range as a chart
// and at its end as a table.
import { h, clear, section } from '../dom.js';
import { seriesName } from '../api.js';
import { context, rank, FUNCTIONS } from '../complete.js';
import { TimeChart } from '../chart.js';
import * as fmt from '../format.js';

export class ExploreView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.input = h('textarea', {
      id: 'expr', rows: 2, spellcheck: 'false', placeholder: 'PromQL, e.g. DCGM_FI_DEV_GPU_UTIL or rate(node_network_receive_bytes_total[1m])',
      oninput: () => this.#suggest(), onkeydown: (e) => this.#key(e),
    });
    this.input.value = ctx.state.expr;
    this.menu = h('ul', { class: 'completions', id: 'completions', role: 'listbox' });
    this.errorEl = h('p', { class: 'error', id: 'explore-error' });
    this.chartEl = h('div', { class: 'chart' });
    this.tableEl = h('table', { class: 'table', id: 'explore-table' });
    root.append(section('Explore',
      h('div', { class: 'explore-box' }, this.input, this.menu,
        h('button', { id: 'run', onclick: () => this.#run() }, 'Run')),
      h('p', { class: 'dim' }, 'Enter runs, Shift+Enter adds a line, Tab takes the first suggestion.'),
      this.errorEl, h('figure', { class: 'chart-box' }, this.chartEl), this.tableEl));
    this.chart = new TimeChart(this.chartEl, { format: fmt.sig3, ...ctx.zoomHandlers });
    this.names = null;
    this.labelNames = null;
    this.values = new Map();
    this.selected = -1;
  }

  async refresh({ charts }) {
    const expr = this.ctx.state.expr.trim();
    if (!expr) return;
    this.errorEl.textContent = '';
    try {
      const [instant, range] = await Promise.all([
        this.ctx.api.query(expr, this.ctx.state.end ?? null),
        charts ? this.ctx.rangeQuery(() => expr) : null,
      ]);
      this.#table(instant);
      if (range) {
        const order = range.series.map((s, i) => [seriesName(s.metric), i]).sort((a, b) => a[0].localeCompare(b[0]));
        this.chart.set([range.cols[0], ...order.map(([, i]) => range.cols[i + 1])], order.map(([n]) => n));
      }
    } catch (e) {
      this.errorEl.textContent = e.message;
    }
  }

  #table(results) {
    clear(this.tableEl).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'Series'), h('th', { class: 'num' }, 'Value'))),
      h('tbody', {}, results.slice(0, 1000).map((r) =>
        h('tr', {}, h('td', {}, h('code', {}, seriesName(r.metric))), h('td', { class: 'num' }, String(r.value))))));
  }

  #run() {
    this.menu.hidden = true;
    this.ctx.setState({ expr: this.input.value.trim() });
  }

  #key(e) {
    const items = [...this.menu.children];
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      if (!this.menu.hidden && this.selected >= 0) this.#take(items[this.selected].textContent);
      else this.#run();
    } else if (e.key === 'Tab' && !this.menu.hidden && items.length) {
      e.preventDefault();
      this.#take(items[Math.max(0, this.selected)].textContent);
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !this.menu.hidden && items.length) {
      e.preventDefault();
      this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items.forEach((li, i) => li.classList.toggle('active', i === this.selected));
    } else if (e.key === 'Escape') this.menu.hidden = true;
  }

  async #suggest() {
    // Answers arrive out of order (the first needs a request): only the
    // newest keystroke's suggestions are shown.
    const seq = (this.seq = (this.seq || 0) + 1);
    const before = this.input.value.slice(0, this.input.selectionStart);
    const c = context(before);
    let pool = [];
    try {
      if (c.kind === 'metric') {
        this.names ??= await this.ctx.api.labelValues('__name__');
        pool = [...this.names, ...FUNCTIONS];
      } else if (c.kind === 'label') {
        this.labelNames ??= await this.ctx.api.labels();
        pool = this.labelNames.filter((n) => n !== '__name__');
      } else if (c.kind === 'value') {
        if (!this.values.has(c.label)) this.values.set(c.label, await this.ctx.api.labelValues(c.label));
        pool = this.values.get(c.label);
      }
    } catch (e) {
      this.errorEl.textContent = e.message;
    }
    if (seq !== this.seq) return;
    const list = c.prefix || c.kind !== 'metric' ? rank(pool, c.prefix) : [];
    this.selected = -1;
    this.prefix = c.prefix;
    clear(this.menu).append(...list.map((s) => h('li', { role: 'option', onmousedown: (e) => {
      e.preventDefault();
      this.#take(s);
    } }, s)));
    this.menu.hidden = list.length === 0;
  }

  #take(word) {
    const pos = this.input.selectionStart;
    const head = this.input.value.slice(0, pos - (this.prefix || '').length);
    const tail = this.input.value.slice(pos);
    this.input.value = head + word + tail;
    const at = head.length + word.length;
    this.input.setSelectionRange(at, at);
    this.menu.hidden = true;
    this.input.focus();
  }

  destroy() {
    this.chart.destroy();
  }
}
