// GPU health: the error counters a failing GPU shows first, one row per GPU
// (Xid, ECC, retired pages and row remapping, NVLink and PCIe errors, time
// spent throttled). Log events and the health verdicts of later issues
// (Xid classes, recovery actions) are shown here when the agent has them.
import { h, clear, section } from '../dom.js';
import { byLabel } from '../api.js';
import * as fmt from '../format.js';

const FIELDS = [
  ['XID_ERRORS', 'last Xid', (v) => (v > 0 ? String(v) : '–'), (v) => v > 0],
  ['ECC_SBE_VOL_TOTAL', 'ECC corrected', String, (v) => v > 0],
  ['ECC_DBE_VOL_TOTAL', 'ECC uncorrected', String, (v) => v > 0],
  ['RETIRED_SBE', 'retired (SBE)', String, (v) => v > 0],
  ['RETIRED_DBE', 'retired (DBE)', String, (v) => v > 0],
  ['ROW_REMAP_PENDING', 'remap pending', (v) => (v > 0 ? 'yes' : 'no'), (v) => v > 0],
  ['ROW_REMAP_FAILURE', 'remap failed', (v) => (v > 0 ? 'yes' : 'no'), (v) => v > 0],
  ['UNCORRECTABLE_REMAPPED_ROWS', 'rows remapped (unc.)', String, (v) => v > 0],
  ['NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', 'NVLink CRC', String, (v) => v > 0],
  ['NVLINK_REPLAY_ERROR_COUNT_TOTAL', 'NVLink replay', String, (v) => v > 0],
  ['PCIE_REPLAY_COUNTER', 'PCIe replay', String, (v) => v > 0],
  ['THERMAL_VIOLATION', 'thermal throttled', (v) => fmt.seconds(v / 1e6), (v) => v > 0],
  ['POWER_VIOLATION', 'power throttled', (v) => fmt.seconds(v / 1e6), (v) => v > 0],
];

export class HealthView {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.table = h('table', { class: 'table', id: 'health-table' });
    root.append(
      section('GPU health counters', this.table),
      section('Log events and verdicts', h('p', { class: 'dim', id: 'health-later' },
        'Kernel and job log events (Xid lines with their class, NCCL and CUDA errors) and per-GPU verdicts appear here once ' +
        'the agent watches logs; until then the counters above come from NVML.')),
    );
  }

  async refresh() {
    const sel = this.ctx.sel;
    const res = await this.ctx.api.query(`{__name__=~"DCGM_FI_DEV_(${FIELDS.map((f) => f[0]).join('|')})",${sel}}`, this.ctx.state.end ?? null);
    const gpus = byLabel(res.filter((r) => r.metric.GPU_I_ID === undefined), 'gpu');
    const ids = [...gpus.keys()].sort((a, b) => a - b);
    clear(this.table).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'GPU'), FIELDS.map((f) => h('th', { class: 'num' }, f[1])))),
      h('tbody', {}, ids.length ? ids.map((id) => {
        const g = gpus.get(id);
        return h('tr', { dataset: { gpu: id } }, h('td', {}, `GPU ${id}`), FIELDS.map(([k, , show, bad]) => {
          const v = g.values[`DCGM_FI_DEV_${k}`];
          return h('td', { class: `num${v !== undefined && bad(v) ? ' bad' : ''}` }, v === undefined ? 'n/a' : show(v));
        }));
      }) : h('tr', {}, h('td', { colspan: FIELDS.length + 1, class: 'empty' }, 'No GPU series.'))));
  }

  destroy() {}
}

// Views whose data later issues bring: they say what will be here and where
// it comes from, and stay in the navigation so that links keep working.
export class LaterView {
  constructor(ctx, root, { title, text }) {
    root.append(section(title, h('p', { class: 'dim later' }, text)));
  }
  async refresh() {}
  destroy() {}
}
