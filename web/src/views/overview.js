// Overview: one card per GPU (utilisation, memory and headroom to OOM,
// temperature against the slowdown point, power against the cap, SM clock and
// the active clock-event reasons, Xid/ECC/remap badges, MIG instances), the
// host's CPU, memory, network and disks beneath. The applications llmon
// scrapes are named on the cards of the GPUs they use and summarised in a
// line each (the Applications view has the rest).
import { h, clear, meter, section } from '../dom.js';
import { headline } from '../apps.js';
import { loadApps } from './applications.js';
import { byLabel } from '../api.js';
import * as fmt from '../format.js';
import { TimeChart } from '../chart.js';
import { hostCharts } from './host_charts.js';

const MIB = 1024 * 1024;
const CARD_FIELDS = [
  'GPU_UTIL', 'FB_USED', 'FB_FREE', 'FB_TOTAL', 'FB_RESERVED', 'GPU_TEMP', 'MEMORY_TEMP', 'SLOWDOWN_TEMP',
  'SHUTDOWN_TEMP', 'POWER_USAGE', 'POWER_MGMT_LIMIT', 'ENFORCED_POWER_LIMIT', 'SM_CLOCK', 'MAX_SM_CLOCK',
  'XID_ERRORS', 'ECC_DBE_VOL_TOTAL', 'ECC_SBE_VOL_TOTAL', 'ROW_REMAP_PENDING', 'ROW_REMAP_FAILURE',
  'UNCORRECTABLE_REMAPPED_ROWS', 'MIG_MODE',
];

export class OverviewView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.cards = h('div', { class: 'cards', id: 'gpu-cards' });
    this.hostTiles = h('div', { class: 'tiles', id: 'host-tiles' });
    this.chartsEl = h('div', { class: 'charts' });
    this.appsEl = h('div', { class: 'apps-summary', id: 'apps-summary' });
    this.appsPanel = section('Applications', this.appsEl);
    this.appsPanel.hidden = true;
    root.append(
      section('GPUs', this.cards),
      this.appsPanel,
      section('Host', this.hostTiles, this.chartsEl),
    );
    this.gpuChart = null;
    this.appsAt = -Infinity;
    this.host = hostCharts(ctx, this.chartsEl, ['cpu', 'memory', 'network', 'disk']);
  }

  async refresh({ charts }) {
    const sel = this.ctx.sel;
    const time = this.ctx.state.end ?? null;
    // Cards and charts are asked for at once; the GPU charts are drawn into
    // the cards, so they wait for the cards, not for their own answers.
    const cards = this.ctx.api.query(
      `{__name__=~"DCGM_FI_DEV_(${CARD_FIELDS.join('|')})|llmon_gpu_up|llmon_gpu_clock_event_reason_active",${sel}}`, time,
    ).then((all) => {
      const name = (r) => r.metric.__name__;
      this.#cards(all.filter((r) => name(r).startsWith('DCGM_')),
        all.filter((r) => name(r) === 'llmon_gpu_clock_event_reason_active' && r.value === 1),
        all.filter((r) => name(r) === 'llmon_gpu_up'));
    });
    const tiles = this.ctx.api.query(hostSummaryQuery(sel, this.ctx.rateWindow), time).then((h) => this.#tiles(h));
    // Applications are an addition: a failure here is shown in the panel,
    // not as the page's error.
    // They change at scrape and rule intervals, not every collection: asked
    // with the charts or every 5 s.
    const now = this.ctx.now();
    let appsDone = null;
    if (charts || !(now - this.appsAt < 5)) {
      this.appsAt = now;
      appsDone = Promise.all([cards, loadApps(this.ctx)]).then(([, a]) => this.#apps(a.list),
        (e) => this.#apps(null, e));
    }
    const work = [cards, tiles, appsDone];
    if (charts) {
      const data = this.#gpuChartData();
      work.push(Promise.all([cards, data]).then(([, d]) => this.#drawGpuCharts(d)), this.host.refresh());
    }
    await Promise.all(work);
  }

  #cards(fields, reasons, up) {
    const gpus = byLabel(fields.filter((r) => r.metric.GPU_I_ID === undefined), 'gpu');
    const mig = new Map();
    for (const r of fields) {
      if (r.metric.GPU_I_ID === undefined) continue;
      const key = `${r.metric.gpu}/${r.metric.GPU_I_ID}`;
      if (!mig.has(key)) mig.set(key, { labels: r.metric, values: {} });
      mig.get(key).values[r.metric.__name__] = r.value;
    }
    const active = new Map();
    for (const r of reasons) {
      if (!active.has(r.metric.gpu)) active.set(r.metric.gpu, []);
      active.get(r.metric.gpu).push(r.metric.reason);
    }
    const down = up.filter((r) => r.value === 0).map((r) => r.metric.gpu);
    const ids = [...gpus.keys()].sort((a, b) => Number(a) - Number(b));
    // Cards are kept between refreshes (their charts live in them); only the
    // numbers are rebuilt.
    const keep = new Set(ids);
    for (const card of [...this.cards.querySelectorAll('.gpu-card')]) {
      if (!keep.has(card.dataset.gpu)) {
        card._chart?.destroy();
        card.remove();
      }
    }
    this.cards.querySelector('.empty')?.remove();
    if (ids.length === 0) {
      this.cards.append(h('p', { class: 'empty' }, up.length
        ? 'The GPU back end is up but reports no devices.'
        : 'No GPU series: this host has no NVIDIA or AMD GPU, or the gpu collector is off (--collector.gpu).'));
    }
    let prev = null;
    for (const id of ids) {
      let card = this.cards.querySelector(`.gpu-card[data-gpu="${CSS.escape(id)}"]`);
      if (!card) {
        card = h('article', { class: 'gpu-card', dataset: { gpu: id }, 'aria-label': `GPU ${id}` },
          h('div', { class: 'body' }), h('div', { class: 'card-apps' }), h('div', { class: 'spark' }));
        if (prev) prev.after(card);
        else this.cards.prepend(card);
      }
      const instances = [...mig.values()].filter((m) => m.labels.gpu === id);
      const isDown = down.includes(id);
      card.classList.toggle('down', isDown);
      card.querySelector('.body').replaceWith(gpuCardBody(id, gpus.get(id), active.get(id) || [], instances, isDown));
      prev = card;
    }
  }

  // One line per application, and its name on the cards of its GPUs.
  #apps(list, err) {
    clear(this.appsEl);
    for (const c of this.cards.querySelectorAll('.card-apps')) clear(c);
    if (err) {
      this.appsPanel.hidden = false;
      this.appsEl.append(h('p', { class: 'error' }, `applications: ${err.message}`));
      return;
    }
    this.appsPanel.hidden = list.length === 0;
    for (const a of list) {
      const level = a.health === 'up' ? 'ok' : a.health === 'down' ? 'crit' : 'warn';
      const nums = headline(a).filter((n) => ['ttft_p99', 'gen_tps', 'waiting', 'step_p50', 'loss'].includes(n.key));
      this.appsEl.append(h('div', { class: 'app-line', dataset: { job: a.job, instance: a.instance } },
        h('span', { class: `badge ${level}` }, a.health),
        h('a', { href: '#/apps' }, `${a.job} ${a.instance}`),
        a.engine ? h('span', { class: 'dim' }, a.engine) : null,
        nums.map((n) => h('span', { title: n.title }, h('span', { class: 'dim' }, `${n.label} `), n.value)),
        a.gpus.length ? h('span', { class: 'dim' }, `on GPU ${a.gpus.map((g) => g.gpu).join(', ')}`) : null));
      for (const g of a.gpus) {
        const holder = this.cards.querySelector(`.gpu-card[data-gpu="${CSS.escape(g.gpu)}"] .card-apps`);
        holder?.append(h('a', { class: `badge ${level === 'ok' ? 'info' : level}`, href: '#/apps',
          title: `${a.job} ${a.instance}: ${a.health}` }, a.engine && !a.job.includes(a.engine) ? `${a.engine} · ${a.job}` : a.job));
      }
    }
  }

  #tiles(host) {
    const v = {};
    for (const r of host) v[r.metric.what] = r.value;
    clear(this.hostTiles);
    const tile = (label, value, sub, frac) =>
      h('div', { class: 'tile' }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value),
        frac === undefined ? null : meter(frac), h('div', { class: 'sub' }, sub));
    this.hostTiles.append(
      tile('CPU busy', fmt.ratio(v.cpu_busy), `${v.cpus ?? '–'} cores · load ${fmt.sig3(v.load1)}`, v.cpu_busy),
      tile('Memory', fmt.bytes(v.mem_used), `of ${fmt.bytes(v.mem_total)} · swap ${fmt.bytes(v.swap_used)}`,
        v.mem_used / v.mem_total),
      tile('Network', `↓ ${fmt.bitsPerSecond(v.net_rx)}`, `↑ ${fmt.bitsPerSecond(v.net_tx)}`),
      tile('Disk', `R ${fmt.bytesPerSecond(v.disk_read)}`, `W ${fmt.bytesPerSecond(v.disk_write)}`),
      tile('Fullest filesystem', fmt.ratio(v.fs_full), 'worst mount, not averaged', v.fs_full),
    );
  }

  #gpuChartData() {
    const sel = this.ctx.sel;
    return Promise.all([
      // Whole GPUs only (MIG instances carry GPU_I_ID and are listed in the card).
      this.ctx.rangeQuery((step) => `max_over_time(DCGM_FI_DEV_GPU_UTIL{GPU_I_ID="",${sel}}[${step}])`),
      this.ctx.rangeQuery(
        (step) => `max_over_time(DCGM_FI_DEV_FB_USED{GPU_I_ID="",${sel}}[${step}]) / on(gpu, UUID, instance, job) ` +
          `(DCGM_FI_DEV_FB_USED{GPU_I_ID="",${sel}} + DCGM_FI_DEV_FB_FREE{GPU_I_ID="",${sel}}) * 100`),
    ]);
  }

  #drawGpuCharts([util, mem]) {
    for (const card of this.cards.querySelectorAll('.gpu-card')) {
      const id = card.dataset.gpu;
      const holder = card.querySelector('.spark');
      const pick = (res) => res.series.findIndex((s) => s.metric.gpu === id);
      const iu = pick(util);
      const im = pick(mem);
      const cols = [util.cols[0], iu >= 0 ? util.cols[iu + 1] : [], im >= 0 ? mem.cols[im + 1] : []];
      if (!card._chart) {
        card._chart = new TimeChart(holder, {
          height: 110, compact: true, format: fmt.percent, yMax: 100, ...this.ctx.zoomHandlers,
        });
      }
      card._chart.set(cols, ['util %', 'memory %']);
    }
  }

  destroy() {
    this.host.destroy();
    for (const card of this.cards.querySelectorAll('.gpu-card')) card._chart?.destroy();
  }
}

function gpuCardBody(id, gpu, reasons, instances, down) {
  const v = (k) => gpu.values[`DCGM_FI_DEV_${k}`];
  const used = v('FB_USED');
  const free = v('FB_FREE');
  const total = v('FB_TOTAL') ?? used + free + (v('FB_RESERVED') ?? 0);
  const usable = used + free;
  const temp = v('GPU_TEMP');
  const slow = v('SLOWDOWN_TEMP');
  const power = v('POWER_USAGE');
  const limit = v('ENFORCED_POWER_LIMIT') ?? v('POWER_MGMT_LIMIT');
  const sm = v('SM_CLOCK');
  const smMax = v('MAX_SM_CLOCK');
  const badges = [];
  if (down) badges.push(badge('crit', 'not answering', 'the last sample of this GPU failed'));
  if (v('XID_ERRORS') > 0) badges.push(badge('crit', `Xid ${v('XID_ERRORS')}`, 'last Xid error reported by the driver'));
  if (v('ECC_DBE_VOL_TOTAL') > 0) badges.push(badge('crit', `ECC DBE ${v('ECC_DBE_VOL_TOTAL')}`, 'uncorrectable ECC errors since boot'));
  if (v('ECC_SBE_VOL_TOTAL') > 0) badges.push(badge('warn', `ECC SBE ${v('ECC_SBE_VOL_TOTAL')}`, 'corrected ECC errors since boot'));
  if (v('ROW_REMAP_FAILURE') > 0) badges.push(badge('crit', 'remap failed', 'row remapping failed: RMA candidate'));
  if (v('ROW_REMAP_PENDING') > 0) badges.push(badge('warn', 'remap pending', 'reset the GPU to apply the pending row remap'));
  if (v('MIG_MODE') > 0) badges.push(badge('info', 'MIG', 'MIG mode on'));
  const row = (label, value, sub, frac, opts) =>
    h('div', { class: 'row' }, h('span', { class: 'label' }, label), h('span', { class: 'value' }, value),
      h('span', { class: 'sub' }, sub), frac === undefined ? null : meter(frac, opts));
  return h('div', { class: 'body' },
    h('header', {},
      h('span', { class: 'gpu-id' }, `GPU ${id}`),
      h('span', { class: 'model' }, gpu.labels.modelName || ''),
      h('span', { class: 'badges' }, badges)),
    h('div', { class: 'util' }, h('span', { class: 'big', dataset: { field: 'util' } },
      v('GPU_UTIL') === undefined && v('MIG_MODE') > 0 ? 'n/a' : fmt.percent(v('GPU_UTIL'))),
    h('span', { class: 'label' }, v('GPU_UTIL') === undefined && v('MIG_MODE') > 0
      ? 'utilisation (NVML reports none in MIG mode)' : 'utilisation')),
    row('Memory', fmt.bytesPair(used * MIB, total * MIB), `headroom ${fmt.mib(free)}`, used / usable,
      { warn: 0.9, crit: 0.97, title: 'used / (used + free): how close to an out-of-memory error' }),
    row('Temp', fmt.celsius(temp), slow > 0 ? `slowdown at ${fmt.celsius(slow)}` : 'slowdown point unknown',
      slow > 0 ? temp / slow : undefined, { warn: 0.9, crit: 0.97 }),
    row('Power', fmt.watts(power), Number.isFinite(limit) ? `cap ${fmt.watts(limit)}` : '', limit > 0 ? power / limit : undefined,
      { warn: 0.95, crit: 1.0 }),
    row('SM clock', fmt.hertz(sm * 1e6), Number.isFinite(smMax) ? `max ${fmt.hertz(smMax * 1e6)}` : '',
      smMax > 0 ? sm / smMax : undefined, { warn: 2, crit: 2 }),
    h('div', { class: 'reasons', dataset: { field: 'reasons' } },
      reasons.length ? reasons.sort().map((r) => h('span', { class: `reason ${reasonLevel(r)}` }, r.replaceAll('_', ' ')))
        : h('span', { class: 'dim' }, 'no clock-event reason active')),
    instances.length ? h('div', { class: 'mig' }, h('div', { class: 'label' }, 'MIG instances'),
      instances.map((m) => h('div', { class: 'row' },
        h('span', {}, `${m.labels.GPU_I_PROFILE || ''} #${m.labels.GPU_I_ID}`),
        h('span', {}, fmt.mib(m.values.DCGM_FI_DEV_FB_USED)), h('span', { class: 'sub' }, 'used')))) : null);
}

function badge(level, text, title) {
  return h('span', { class: `badge ${level}`, title }, text);
}

// Reasons that cost performance are marked; idle and application clocks are normal.
function reasonLevel(r) {
  if (/thermal|hw_slowdown|power_brake/.test(r)) return 'crit';
  if (/power_cap|sync_boost/.test(r)) return 'warn';
  return 'info';
}

// One instant query for every host tile, each value labelled `what`.
export function hostSummaryQuery(sel, w) {
  const q = (what, expr) => `label_replace(${expr}, "what", "${what}", "", "")`;
  return [
    q('cpu_busy', `1 - avg(rate(node_cpu_seconds_total{mode="idle",${sel}}[${w}]))`),
    q('cpus', `count(node_cpu_seconds_total{mode="idle",${sel}})`),
    q('load1', `max(node_load1{${sel}})`),
    q('mem_total', `max(node_memory_MemTotal_bytes{${sel}})`),
    q('mem_used', `max(node_memory_MemTotal_bytes{${sel}} - node_memory_MemAvailable_bytes{${sel}})`),
    q('swap_used', `max(node_memory_SwapTotal_bytes{${sel}} - node_memory_SwapFree_bytes{${sel}})`),
    q('net_rx', `sum(rate(node_network_receive_bytes_total{device!="lo",${sel}}[${w}]))`),
    q('net_tx', `sum(rate(node_network_transmit_bytes_total{device!="lo",${sel}}[${w}]))`),
    q('disk_read', `sum(rate(node_disk_read_bytes_total{${sel}}[${w}]))`),
    q('disk_write', `sum(rate(node_disk_written_bytes_total{${sel}}[${w}]))`),
    q('fs_full', `max(1 - node_filesystem_avail_bytes{fstype!~"tmpfs|ramfs|squashfs",${sel}} / node_filesystem_size_bytes{fstype!~"tmpfs|ramfs|squashfs",${sel}})`),
  ].join(' or ');
}
