// Traces: the PyTorch profiler captures the agent made (GET
// /api/v1/trace/captures, newest first), each trace with its headline
// numbers and a link to its self-contained HTML report
// (/api/v1/trace/report?file=NAME); captures triggered by an alert name the
// alert (docs/trace.md#the-dashboard). Capture is off unless the agent runs
// with --trace.capture-dir.
import { h, clear, section } from '../dom.js';
import * as fmt from '../format.js';

const pct = (v) => (typeof v === 'number' ? `${v.toFixed(1)} %` : '–');

export class TracesView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.head = h('p', { id: 'traces-summary', class: 'dim' });
    this.list = h('div', { id: 'traces-list' });
    root.append(section('Trace captures', this.head, this.list));
  }

  async refresh() {
    clear(this.list);
    if (!this.ctx.flags['trace.capture-dir']) {
      this.head.textContent = 'Trace capture is off: start the agent with --trace.capture-dir=DIR '
        + '(and the job with KINETO_USE_DAEMON=1), then `llmon trace capture --pid=P` or an alert route with '
        + 'trace_capture_configs.';
      return;
    }
    const captures = await this.ctx.api.traceCaptures();
    const traces = captures.flatMap((c) => c.traces.map((t) => ({ c, t })));
    this.head.textContent = captures.length
      ? `${captures.length} captures, ${traces.length} traces, newest first (the last 100; all in captures.jsonl).`
      : 'No capture yet.';
    if (!traces.length) return;
    const now = this.ctx.now();
    this.list.append(h('table', { class: 'table', id: 'traces-table' },
      h('thead', {}, h('tr', {}, ['When', 'Trigger', 'PID', 'Idle', 'Compute', 'Non-compute', 'Top kernel', 'Report']
        .map((c, i) => h('th', { class: i >= 3 && i <= 5 ? 'num' : null }, c)))),
      h('tbody', {}, traces.map(({ c, t }) => h('tr', { dataset: { file: t.file || '' }, class: t.error ? 'error' : null },
        h('td', { title: new Date(c.time_ms).toISOString() }, `${fmt.duration(now - c.time_ms / 1000)} ago`),
        h('td', {}, c.trigger === 'alert' ? `alert ${(c.alerts || []).join(', ')}` : c.trigger),
        h('td', {}, String(t.pid)),
        h('td', { class: 'num', dataset: { field: 'idle_pct' } }, pct(t.idle_pct)),
        h('td', { class: 'num', dataset: { field: 'compute_pct' } }, pct(t.compute_pct)),
        h('td', { class: 'num', dataset: { field: 'non_compute_pct' } }, pct(t.non_compute_pct)),
        h('td', { title: t.top_kernel?.name || '' }, t.error ? t.error : shorten(t.top_kernel?.name || '–', 60)),
        h('td', {}, t.report ? h('a', { href: t.report, target: '_blank', rel: 'noopener', class: 'report-link' }, t.file)
          : '–'))))));
  }

  destroy() {}
}

function shorten(s, n) {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}
