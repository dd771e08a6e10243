// Diagnosis: `llmon diagnose` over the page's time range (GET
// /api/v1/diagnosis): each finding with its severity, subject, summary, the
// evidence as PromQL that opens in Explore, and the playbook step; a healthy
// summary with utilisation and cost when there is none (docs/diagnosis.md).
import { h, clear, section } from '../dom.js';
import { formatDuration } from '../format.js';

export class DiagnosisView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.head = h('p', { id: 'diagnosis-summary' });
    this.list = h('div', { id: 'diagnosis-findings' });
    root.append(section('Diagnosis', this.head, this.list));
  }

  async refresh({ charts }) {
    if (!charts) return;  // a diagnosis per new point, not per cycle
    const window = formatDuration(Math.min(this.ctx.state.range, 24 * 3600));
    const d = await this.ctx.api.diagnosis(window, this.ctx.state.end);
    const s = d.summary;
    this.head.textContent = d.findings.length
      ? `${d.findings.length} findings over ${window}; ${s.gpus} GPUs at ${Math.round(s.gpu_utilization_percent)} % ` +
        `mean utilisation, $${s.idle_cost.toFixed(2)} of $${s.cost.toFixed(2)} of GPU time unused.`
      : s.gpus ? `Healthy over ${window}: ${s.gpus} GPUs at ${Math.round(s.gpu_utilization_percent)} % mean utilisation; ` +
        `${s.gpu_hours.toFixed(1)} GPU-hours, $${s.cost.toFixed(2)}, of which $${s.idle_cost.toFixed(2)} unused.`
        : `Healthy over ${window}: nothing to report (no GPU series).`;
    clear(this.list);
    for (const f of d.findings) {
      const level = f.severity === 'critical' ? 'crit' : f.severity === 'warning' ? 'warn' : 'info';
      const subject = Object.entries(f.subject).map(([k, v]) => h('code', {}, `${k}="${v}"`));
      this.list.append(h('article', { class: `alert finding ${level === 'crit' ? 'firing' : ''}`, dataset: { kind: f.kind } },
        h('header', {}, h('span', { class: `badge ${level}` }, f.severity), h('strong', {}, f.kind),
          h('span', { class: 'dim' }, `confidence ${f.confidence.toFixed(2)}`)),
        h('div', { class: 'labels' }, subject),
        h('p', {}, f.summary),
        h('details', {}, h('summary', {}, 'Evidence'),
          h('ul', { class: 'evidence' }, f.evidence.map((e) => h('li', {},
            h('a', { href: `#/explore?expr=${encodeURIComponent(e.expr)}` }, h('code', {}, e.expr)),
            ` = ${Number(e.value.toPrecision(4))}`, e.note ? h('span', { class: 'dim' }, ` (${e.note})`) : null)))),
        h('p', { class: 'advice' }, h('strong', {}, 'Try: '), f.advice)));
    }
    for (const e of d.errors) this.list.append(h('p', { class: 'error' }, `query failed: ${e}`));
  }

  destroy() {}
}
