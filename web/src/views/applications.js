// Applications: every target llmon scrapes (--scrape.config, --scrape.discover
// gpu-processes / kubelet-pods) and every pushed group, with its health (the
// last error of a target that is down), its headline numbers from the LLM rule
// pack (serving: TTFT, TPOT, tokens/s, running and waiting requests, KV cache;
// training: step time, loss, tokens or samples per second) and, beside them,
// the GPUs its process uses with their utilisation and memory. The join is
// web/src/apps.js; this file only asks and draws.
import { h, clear, meter, section } from '../dom.js';
import * as apps from '../apps.js';

// Everything one refresh needs, asked at once; shared with the overview.
export async function loadApps(ctx) {
  const time = ctx.state.end ?? null;
  const sel = ctx.sel;
  const q = (expr) => ctx.api.query(expr, time);
  const [targets, pushed, metrics, processes, gpus] = await Promise.all([
    ctx.api.targets(),
    q('push_time_seconds or push_failure_time_seconds').catch(() => []),
    q(apps.appMetricsQuery()),
    q(apps.processQuery(sel)),
    q(apps.gpuQuery(sel)),
  ]);
  const t = apps.parseTargets(targets);
  return {
    list: apps.buildApps({ targets: t.targets, pushed: apps.pushGroups(pushed), metrics, processes, gpus }),
    notes: t.notes, errors: t.errors,
  };
}

export class ApplicationsView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.count = h('span', { class: 'dim', id: 'apps-count' });
    this.list = h('div', { class: 'apps', id: 'apps-list' });
    this.discovery = h('div', { id: 'apps-discovery' });
    root.append(section('Applications', h('div', { class: 'toolbar' }, this.count), this.list), this.discovery);
  }

  async refresh() {
    const { list, notes, errors } = await loadApps(this.ctx);
    const now = this.ctx.state.end ?? this.ctx.now();
    const up = list.filter((a) => a.health === 'up').length;
    this.count.textContent = list.length ? `${list.length} applications, ${up} up` : '';
    clear(this.list);
    if (list.length === 0) this.list.append(emptyHelp());
    for (const a of list) this.list.append(appCard(a, now));
    clear(this.discovery);
    if (notes.length || errors.length) {
      this.discovery.append(section('Discovery',
        errors.map((e) => h('p', { class: 'error' }, e)),
        notes.length ? h('details', {}, h('summary', {}, `${notes.length} candidates not scraped, and why`),
          h('ul', { class: 'notes' }, notes.map((n) => h('li', {}, n)))) : null));
    }
  }

  destroy() {}
}

function emptyHelp() {
  return h('div', { class: 'empty', id: 'apps-empty' },
    h('p', {}, 'No application targets. llmon shows an inference server or a training job here, beside its GPUs, once it scrapes it:'),
    h('ul', {},
      h('li', {}, h('code', {}, '--scrape.discover=gpu-processes'), ': every process using a GPU whose port answers GET /metrics (vLLM, SGLang, TGI, Triton, a prometheus_client training loop)'),
      h('li', {}, h('code', {}, '--scrape.config=FILE'), ': Prometheus scrape_configs; label a static target with its ', h('code', {}, 'pid'), ' to place it beside its GPUs'),
      h('li', {}, h('code', {}, '--scrape.discover=kubelet-pods'), ': pods annotated prometheus.io/scrape: "true"'),
      h('li', {}, h('code', {}, '--web.enable-push'), ': batch jobs pushing as to a Pushgateway')));
}

// One application: who, health, its numbers, its GPUs.
export function appCard(a, now) {
  const healthLevel = a.health === 'up' ? 'ok' : a.health === 'down' ? 'crit' : 'warn';
  const numbers = apps.headline(a);
  return h('article', {
    class: `app-card ${a.health}`, dataset: { job: a.job, instance: a.instance, health: a.health, kind: a.kind || 'none' },
    'aria-label': `${a.job} ${a.instance}`,
  },
  h('header', {},
    h('strong', { class: 'app-job' }, a.job),
    h('span', { class: 'app-instance dim' }, a.instance),
    a.engine ? h('span', { class: 'badge info app-engine' }, a.engine) : null,
    a.source === 'push' ? h('span', { class: 'badge info' }, 'pushed') : null,
    h('span', { class: `badge ${healthLevel} app-health` }, a.health)),
  a.models.length ? h('div', { class: 'app-models dim' }, a.models.join(', ')) : null,
  a.health === 'down' && a.lastError ? h('p', { class: 'error app-error' }, a.lastError) : null,
  numbers.length ? h('dl', { class: 'app-numbers' }, numbers.map((n) => h('div', { title: n.title, dataset: { field: n.key } },
    h('dt', {}, n.label), h('dd', {}, n.value))))
    : h('p', { class: 'dim app-none' }, a.health === 'down' ? 'no samples while it is down'
      : 'no serving or training series: the LLM rule pack reads vLLM, SGLang, TGI and Triton pages and train_* names (deploy/rules/)'),
  a.gpus.length ? h('div', { class: 'app-gpus' }, a.gpus.map((g) => gpuRow(g)))
    : a.health === 'down' ? null
      : h('p', { class: 'app-gpus dim' }, 'GPU not known: a target of --scrape.discover=gpu-processes, one labelled pid="…" or a pod is placed beside its GPUs'),
  h('div', { class: 'app-foot dim' },
    a.source === 'push' ? `pushed ${apps.ago(a.lastScrape, now)}` : `scraped ${apps.ago(a.lastScrape, now)}`,
    a.scrapeUrl ? ` · ${a.scrapeUrl}` : '',
    a.labels?.pid ? ` · pid ${a.labels.pid}` : '', a.labels?.pod ? ` · pod ${a.labels.namespace ? a.labels.namespace + '/' : ''}${a.labels.pod}` : ''));
}

function gpuRow(g) {
  const util = Number.isFinite(g.util) ? g.util / 100 : NaN;
  const mem = g.total > 0 ? g.used / g.total : NaN;
  return h('div', { class: 'app-gpu', dataset: { gpu: g.gpu } },
    h('a', { href: '#/overview', class: 'app-gpu-id' }, `GPU ${g.gpu}`),
    h('span', { class: 'model' }, g.model),
    h('span', { class: 'app-gpu-line' }, apps.gpuLine(g, { id: false })),
    h('span', { class: 'app-meters' }, meter(util, { warn: 2, crit: 2, title: 'utilisation' }),
      meter(mem, { warn: 0.9, crit: 0.97, title: 'memory used / total' })));
}
