// Browser checks of `llmon trace analyze --html` (docs/trace.md#html-report---html):
// Debian's chromium, headless, through playwright-core, opens the page from
// file:// and compares what it draws with the --json document of the same
// run: no console errors and no request but the page itself; per rank the
// idle/compute/non-compute percentages, one bar per kernel type and class,
// the top kernels and operators in order with the flagged rows marked, one
// timeline box per step; then a copy of the page whose document has sections
// the renderer does not know (as another analysis would add) shows them as
// generic tables. (The dashboard's Traces view: traces.browser.mjs.)
// Usage: node trace_report.browser.mjs REPORT.html REPORT.json ARTIFACT_DIR [chromium]
// Prints one "ok"/"not ok" line per check and "N passed, N failed" last.
import { chromium } from 'playwright-core';
import { check, assert, finish, launch } from './harness.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [htmlPath, jsonPath, artifacts, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!htmlPath || !jsonPath || !artifacts) {
  console.error('usage: trace_report.browser.mjs REPORT.html REPORT.json ARTIFACT_DIR [chromium]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const doc = JSON.parse(readFileSync(jsonPath, 'utf8'));

const pct = (p) => p.toFixed(1) + ' %';
const share = (s) => (100 * s).toFixed(1) + ' %';

const browser = await launch(chromium, browserPath);
const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });

async function open(file) {
  const page = await context.newPage();
  const errors = [], requests = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  const url = pathToFileURL(resolve(file)).href;
  await page.goto(url);
  await page.waitForSelector('body[data-rendered=true]', { timeout: 15000 });
  return { page, errors, requests, url };
}

const { page, errors, requests, url } = await open(htmlPath);

await check('the page renders with no console errors and fetches nothing', async () => {
  assert(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  const other = requests.filter((r) => r !== url);
  assert(other.length === 0, `requests besides the page: ${other.join(', ')}`);
});

await check('one section per rank of the JSON', async () => {
  const n = await page.locator('section.rank').count();
  assert(n === doc.ranks.length, `${n} rank sections, JSON has ${doc.ranks.length}`);
});

for (const r of doc.ranks) {
  const sec = page.locator(`section.rank[data-rank="${r.rank}"]`);
  await check(`rank ${r.rank}: temporal breakdown percentages equal the JSON`, async () => {
    for (const k of ['idle_pct', 'compute_pct', 'non_compute_pct']) {
      const shown = await sec.locator(`[data-section=temporal] [data-field=${k}]`).textContent();
      assert(shown === pct(r.temporal[k]), `${k}: page ${shown}, JSON ${pct(r.temporal[k])}`);
    }
    const row = page.locator(`table[data-section=ranks] tbody tr`).nth(doc.ranks.filter((x) => x.kernels.total > 0).indexOf(r));
    assert((await row.locator('[data-field=idle_pct]').textContent()) === pct(r.temporal.idle_pct), 'overview table idle');
  });
  await check(`rank ${r.rank}: one bar per kernel type and class`, async () => {
    for (const k of ['kernel_types', 'kernel_classes']) {
      const names = await sec.locator(`svg[data-chart=${k}] rect`).evaluateAll((rs) => rs.map((x) => x.dataset.name));
      assert(JSON.stringify(names) === JSON.stringify(r[k].map((x) => x.name)), `${k}: ${names} vs JSON`);
    }
  });
  await check(`rank ${r.rank}: top kernels and operators in order, flagged rows marked`, async () => {
    for (const [k, numKey] of [['top_kernels', 'sum_us'], ['top_operators', 'self_us']]) {
      const rows = await sec.locator(`table[data-section=${k}] tbody tr`).evaluateAll((trs) => trs.map((tr) => ({
        name: tr.querySelector('[data-field=name]').firstChild.textContent,
        share: tr.querySelector('[data-field=share]').textContent,
        value: tr.querySelector(`[data-field=${tr.closest('table').dataset.section === 'top_kernels' ? 'sum_us' : 'self_us'}]`).textContent,
        flagged: tr.classList.contains('flagged'),
        badge: !!tr.querySelector('.badge'),
      })));
      assert(rows.length === r[k].length, `${k}: ${rows.length} rows, JSON ${r[k].length}`);
      r[k].forEach((want, i) => {
        const got = rows[i];
        assert(got.name === want.name, `${k}[${i}] name ${got.name} vs ${want.name}`);
        assert(got.share === share(want.share), `${k}[${i}] share ${got.share} vs ${share(want.share)}`);
        assert(got.value === (want[numKey] / 1000).toFixed(3), `${k}[${i}] ${numKey} ${got.value} vs ${want[numKey]}`);
        assert(got.flagged === want.flagged && got.badge === want.flagged, `${k}[${i}] flagged ${got.flagged} vs ${want.flagged}`);
      });
    }
  });
  await check(`rank ${r.rank}: one timeline box per step`, async () => {
    const steps = await sec.locator('svg[data-chart=steps] g[data-step]').evaluateAll((gs) => gs.map((g) => Number(g.dataset.step)));
    assert(JSON.stringify(steps) === JSON.stringify(r.steps.map((s) => s.step)), `steps ${steps} vs JSON`);
  });
}
if (process.env.EXPECT_FLAGGED === '1') {
  await check('flagged rows exist and carry the badge (the fixtures flag some)', async () => {
    const want = doc.ranks.reduce((n, r) => n + [...r.top_kernels, ...r.top_operators].filter((x) => x.flagged).length, 0);
    const shown = await page.locator('tr.flagged .badge').count();
    assert(want > 0 && shown === want, `${shown} badges, JSON flags ${want}`);
  });
}
await page.screenshot({ path: join(artifacts, 'report.png'), fullPage: true });

await check('sections the renderer does not know are shown as generic tables', async () => {
  // A copy of the page whose document has a rank section and a top-level
  // section added, as another analysis would (names and values invented here).
  const html = readFileSync(htmlPath, 'utf8');
  const tag = '<script id="report-data" type="application/json">';
  const a = html.indexOf(tag) + tag.length, b = html.indexOf('</script>', a);
  const d = JSON.parse(html.slice(a, b));
  d.ranks[0].overlap = [{ stream: 7, overlap_pct: 12.5, name: 'nccl <b>x</b>' }, { stream: 20, overlap_pct: 3 }];
  d.ranks[0].launch_delay = { p50_us: 8.25, p99_us: 41 };
  d.stragglers = [{ rank: 0, behind_us: 1200 }];
  const text = JSON.stringify(d).replace(/</g, '\\u003c');
  const file = join(artifacts, 'report-extra.html');
  writeFileSync(file, html.slice(0, a) + text + html.slice(b));
  const p2 = await open(file);
  assert(p2.errors.length === 0, `console errors: ${p2.errors.join(' | ')}`);
  const rows = await p2.page.locator('[data-generic=overlap] tbody tr').count();
  assert(rows === 2, `overlap: ${rows} rows`);
  const cell = await p2.page.locator('[data-generic=overlap] tbody tr').first().locator('[data-field=name]').textContent();
  assert(cell.startsWith('nccl <b>x</b>'), `names are text, not HTML: ${cell}`);
  assert((await p2.page.locator('[data-generic=launch_delay] [data-field=p99_us]').textContent()) === '41', 'launch_delay p99_us');
  assert((await p2.page.locator('[data-generic=stragglers] tbody tr').count()) === 1, 'top-level stragglers');
  await p2.page.screenshot({ path: join(artifacts, 'report-extra.png'), fullPage: true });
});

await finish(browser);
