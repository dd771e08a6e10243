// Fleet view in a browser (tests/integration/fleet_view_test.sh): an agent
// with --ui.datasource pointing at a Prometheus that scrapes two other
// agents. The node picker lists both; each node shows its own GPUs, as many
// cards as Prometheus has GPUs for that instance; the choice is in the URL.
// Usage: node fleet.browser.mjs <agent-url> <prometheus-url> <artifact-dir> [chromium]
// Prints one "ok"/"not ok" line per check and "N passed, N failed" last.
import { chromium } from 'playwright-core';
import { check, until, finish, launch } from './harness.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [url, prom, artifacts, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !prom || !artifacts) {
  console.error('usage: fleet.browser.mjs <agent-url> <prometheus-url> <artifact-dir> [chromium]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
// GPUs per instance (distinct `gpu` labels of the DCGM series, as the
// overview makes one card per GPU, MIG parents included), asked of
// Prometheus directly.
async function gpusPerNode() {
  const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent('count by (instance) (count by (instance, gpu) ({__name__=~"DCGM_FI_DEV_.*"}))')}`);
  const out = {};
  for (const r of (await res.json()).data.result) out[r.metric.instance] = Number(r.value[1]);
  return out;
}

const browser = await launch(chromium, browserPath);
const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

const gpus = await until(async () => {
  const g = await gpusPerNode();
  return Object.keys(g).length >= 2 ? g : null;
}, 'Prometheus to have both nodes\' GPUs');
const nodes = Object.keys(gpus).sort();

await page.goto(`${url}/#/overview`);
await check('the node picker lists the data source\'s nodes', async () => {
  await until(async () => (await page.locator('#node option').count()) === nodes.length, `${nodes.length} nodes`);
  const shown = (await page.$$eval('#node option', (os) => os.map((o) => o.value))).sort();
  if (JSON.stringify(shown) !== JSON.stringify(nodes)) throw new Error(`picker ${shown} vs Prometheus ${nodes}`);
  const note = await page.locator('#fleet').textContent();
  if (!note.includes(prom.replace(/\/$/, ''))) throw new Error(`the header does not name the data source: ${note}`);
});
for (const node of nodes) {
  await check(`node ${node}: its ${gpus[node]} GPUs, and the URL keeps it`, async () => {
    await page.selectOption('#node', node);
    await until(async () => (await page.locator('.gpu-card').count()) === gpus[node], `${gpus[node]} GPU cards`)
      .catch(async (e) => {
        await page.screenshot({ path: join(artifacts, 'fleet-failed.png') });
        throw e;
      });
    if (!page.url().includes(`node=${encodeURIComponent(node)}`)) throw new Error(`URL ${page.url()}`);
    await page.screenshot({ path: join(artifacts, `fleet-${node.replace(/[^0-9a-z]/gi, '_')}.png`) });
  });
}
await check('a link with a node opens that node', async () => {
  const other = nodes[0];
  await page.goto(`${url}/#/overview?node=${encodeURIComponent(other)}`);
  await page.reload();
  await until(async () => (await page.locator('#node').inputValue()) === other, `picker on ${other}`);
  await until(async () => (await page.locator('.gpu-card').count()) === gpus[other], `${gpus[other]} GPU cards`);
});
await check('no errors in the console', async () => {
  if (errors.length) throw new Error(errors.slice(0, 3).join(' | '));
});
await finish(browser);
