// Alerts: what fires and what is pending (labels, annotations, since when),
// and the silences: listed, created (prefilled from an alert) and expired
// through the agent's Alertmanager-compatible /api/v2/silences.
import { h, clear, section } from '../dom.js';
import * as fmt from '../format.js';

export class AlertsView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.alertsEl = h('div', { id: 'alerts-list' });
    this.silencesEl = h('div', { id: 'silences-list' });
    this.form = silenceForm((silence) => this.#create(silence));
    root.append(section('Alerts', this.alertsEl), section('Silences', this.form.el, this.silencesEl));
  }

  async refresh() {
    const silencesOn = this.ctx.flags['notify.config'] || this.ctx.flags['alertmanager.url'];
    const [alerts, silences] = await Promise.all([
      this.ctx.api.alerts(),
      silencesOn ? this.ctx.api.silences().catch((e) => e)
        : new Error('they come with notifications: start the agent with --notify.config or --alertmanager.url'),
    ]);
    this.form.el.hidden = !silencesOn;
    this.#alerts(alerts);
    this.#silences(silences);
  }

  #alerts(alerts) {
    const now = this.ctx.now();
    const order = { firing: 0, pending: 1 };
    alerts.sort((a, b) => (order[a.state] ?? 2) - (order[b.state] ?? 2) || a.labels.alertname.localeCompare(b.labels.alertname));
    clear(this.alertsEl);
    if (alerts.length === 0) {
      this.alertsEl.append(h('p', { class: 'empty' }, 'Nothing firing or pending.'));
      return;
    }
    for (const a of alerts) {
      const { alertname, severity, ...rest } = a.labels;
      const since = a.activeAt ? Date.parse(a.activeAt) / 1000 : NaN;
      this.alertsEl.append(h('article', { class: `alert ${a.state}`, dataset: { alertname } },
        h('header', {},
          h('span', { class: `badge ${a.state === 'firing' ? 'crit' : 'warn'}` }, a.state),
          severity ? h('span', { class: 'badge info' }, severity) : null,
          h('strong', {}, alertname),
          h('span', { class: 'dim', title: a.activeAt }, Number.isFinite(since) ? ` since ${fmt.duration(now - since)} ago` : ''),
          h('button', { class: 'small', onclick: () => this.form.prefill(a.labels) }, 'Silence…')),
        h('div', { class: 'labels' }, Object.entries(rest).map(([k, v]) => h('code', {}, `${k}="${v}"`))),
        a.annotations?.summary ? h('p', {}, a.annotations.summary) : null,
        a.annotations?.description ? h('p', { class: 'dim' }, a.annotations.description) : null,
        a.annotations?.runbook_url ? h('a', { href: a.annotations.runbook_url, rel: 'noopener' }, 'runbook') : null,
        traceCapture(a.annotations),
        h('div', { class: 'dim' }, `value ${fmt.sig3(Number(a.value))}`)));
    }
  }

  #silences(list) {
    clear(this.silencesEl);
    if (list instanceof Error) {
      this.silencesEl.append(h('p', { class: 'error' }, `Silences are not available: ${list.message}`));
      return;
    }
    const live = list.filter((s) => s.status?.state !== 'expired');
    if (live.length === 0) {
      this.silencesEl.append(h('p', { class: 'empty' }, 'No active or pending silence.'));
      return;
    }
    this.silencesEl.append(h('table', { class: 'table', id: 'silences-table' },
      h('thead', {}, h('tr', {}, ['State', 'Matchers', 'Ends', 'Created by', 'Comment', ''].map((c) => h('th', {}, c)))),
      h('tbody', {}, live.map((s) => h('tr', { dataset: { id: s.id } },
        h('td', {}, s.status?.state || ''),
        h('td', {}, s.matchers.map((m) => h('code', {}, `${m.name}${m.isEqual === false ? '!' : ''}${m.isRegex ? '=~' : '='}"${m.value}"`))),
        h('td', { title: s.endsAt }, new Date(s.endsAt).toLocaleString()),
        h('td', {}, s.createdBy), h('td', {}, s.comment),
        h('td', {}, h('button', { class: 'small', onclick: () => this.#expire(s.id) }, 'Expire')))))));
  }

  async #create(silence) {
    try {
      await this.ctx.api.createSilence(silence);
      this.form.reset();
      await this.refresh();
    } catch (e) {
      this.form.error(e.message);
    }
  }

  async #expire(id) {
    try {
      await this.ctx.api.expireSilence(id);
      await this.refresh();
    } catch (e) {
      this.ctx.onError(e.message);
    }
  }

  destroy() {}
}

function silenceForm(onSubmit) {
  const matchers = h('input', { name: 'matchers', placeholder: 'alertname="GPUHot", gpu="3"', required: true, size: 40 });
  const duration = h('input', { name: 'duration', value: '2h', size: 5, title: 'Prometheus duration: 30m, 2h, 1d' });
  const createdBy = h('input', { name: 'createdBy', placeholder: 'your name', required: true, size: 12 });
  const comment = h('input', { name: 'comment', placeholder: 'why', required: true, size: 24 });
  const err = h('span', { class: 'error' });
  const el = h('form', {
    class: 'silence-form', id: 'silence-form',
    onsubmit: (e) => {
      e.preventDefault();
      err.textContent = '';
      const parsed = parseMatchers(matchers.value);
      const secs = fmt.parseDuration(duration.value);
      if (!parsed) return void (err.textContent = 'matchers: write name="value" pairs, separated by commas');
      if (!secs) return void (err.textContent = 'duration: write e.g. 30m or 2h');
      const start = new Date();
      onSubmit({
        matchers: parsed, startsAt: start.toISOString(), endsAt: new Date(start.getTime() + secs * 1000).toISOString(),
        createdBy: createdBy.value, comment: comment.value,
      });
    },
  }, matchers, ' for ', duration, createdBy, comment, h('button', { type: 'submit' }, 'Create silence'), err);
  return {
    el,
    prefill(labels) {
      matchers.value = Object.entries(labels).filter(([k]) => k !== 'severity').map(([k, v]) => `${k}="${v}"`).join(', ');
      matchers.focus();
    },
    reset() {
      matchers.value = '';
      comment.value = '';
    },
    error(msg) {
      err.textContent = msg;
    },
  };
}

// 'a="b", c=~"d.*", e!="f"' -> Alertmanager v2 matchers; null when malformed.
export function parseMatchers(text) {
  const out = [];
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  let pos = 0;
  const s = String(text);
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return null;
    out.push({ name: m[1], value: m[3].replace(/\\(.)/g, '$1'), isRegex: m[2].includes('~'), isEqual: !m[2].startsWith('!') });
    pos = re.lastIndex;
    if (m[4] === '') break;
  }
  return out.length ? out : null;
}

// The alert-triggered trace capture the agent attached (docs/trace.md):
// its file and headline numbers, and a link to its HTML report.
function traceCapture(ann) {
  if (!ann?.llmon_trace_capture) return null;
  return h('p', { class: 'trace-capture' }, h('strong', {}, 'Trace: '), ann.llmon_trace_capture,
    ann.llmon_trace_report?.startsWith('/api/v1/trace/report?')
      ? [' ', h('a', { href: ann.llmon_trace_report, target: '_blank', rel: 'noopener', class: 'report-link' }, 'report')]
      : null);
}
