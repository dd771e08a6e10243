// Browser tests of the dashboard: Debian's chromium, headless, driven by
// playwright-core against a running agent (tests/integration/
// dashboard_browser_test.sh starts one on the fake 8-GPU NVML scenario).
// Every check compares what the page shows with what the agent's API answers
// at the same moment. Screenshots go to the artifact directory.
// Usage: node dashboard.browser.mjs <agent-url> <artifact-dir> [chromium]
// Prints one "ok"/"not ok" line per check and "N passed, N failed" last.
import { chromium } from 'playwright-core';
import { check, assert, until, finish, launch } from './harness.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [url, artifacts, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !artifacts) {
  console.error('usage: dashboard.browser.mjs <agent-url> <artifact-dir> [chromium]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

async function api(path, init) {
  const res = await fetch(url + path, init);
  const body = await res.json();
  return body.data ?? body;
}
const query = (q) => api(`/api/v1/query?query=${encodeURIComponent(q)}`).then((d) => d.result);

const browser = await launch(chromium, browserPath);
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = await context.newPage();
const consoleErrors = [];
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
page.on('pageerror', (e) => consoleErrors.push(e.message));

await check('overview: one card per GPU with the values the API reports', async () => {
  await page.goto(url + '/');
  const gpus = await until(async () => {
    const r = await query('DCGM_FI_DEV_GPU_UTIL');
    return r.length ? r : null;
  }, 'GPU series');
  await until(async () => (await page.locator('.gpu-card').count()) === gpus.length, `${gpus.length} GPU cards`);
  // The scenario's values change per tick: compare a card read against an
  // API read taken right after, retrying until both saw the same cycle.
  await until(async () => {
    const shown = await page.$$eval('.gpu-card', (cards) => cards.map((c) => ({
      gpu: c.dataset.gpu, util: c.querySelector('[data-field=util]').textContent,
      text: c.textContent,
    })));
    const util = await query('DCGM_FI_DEV_GPU_UTIL');
    const power = await query('DCGM_FI_DEV_POWER_USAGE');
    const model = util[0].metric.modelName;
    return shown.every((c) => {
      const u = util.find((r) => r.metric.gpu === c.gpu);
      const p = power.find((r) => r.metric.gpu === c.gpu);
      return u && c.util === `${Number(u.value[1])} %` && c.text.includes(`${Math.round(Number(p.value[1]))} W`) &&
        c.text.includes(model);
    });
  }, 'cards equal to the API');
  await page.screenshot({ path: join(artifacts, 'overview.png'), fullPage: true });
});

await check('overview: memory headroom, power cap and Xid badges', async () => {
  const free = await query('DCGM_FI_DEV_FB_FREE');
  // The scenario's Xids arrive at its second and third cycles.
  const xid = await until(async () => {
    const r = await query('DCGM_FI_DEV_XID_ERRORS > 0');
    return r.length ? r : null;
  }, 'the scenario\'s Xid on a GPU');
  for (const r of xid) {
    const badge = page.locator(`.gpu-card[data-gpu="${r.metric.gpu}"] .badge`, { hasText: `Xid ${r.value[1]}` });
    await until(async () => (await badge.count()) === 1, `GPU ${r.metric.gpu} showing its Xid ${r.value[1]} badge`);
  }
  const g0 = free.find((r) => r.metric.gpu === '0');
  const text = await page.locator('.gpu-card[data-gpu="0"]').textContent();
  const gib = Number(g0.value[1]) / 1024;
  assert(text.includes(`headroom ${Number(gib.toFixed(gib >= 100 ? 0 : gib >= 10 ? 1 : 2))} GiB`), `headroom of GPU 0 in ${text}`);
  assert(text.includes('cap 700 W'), 'power cap shown');
});

await check('overview: charts have their series', async () => {
  await until(async () => Number(await page.locator('.gpu-card[data-gpu="0"] .spark').getAttribute('data-series')) === 2,
    'the GPU 0 chart with utilisation and memory');
  const cpu = await until(() => page.locator('[data-chart=cpu]').getAttribute('data-series'), 'the CPU chart');
  assert(Number(cpu) >= 2, `CPU chart by mode has ${cpu} series`);
  const drawn = await page.locator('.gpu-card canvas').count();
  assert(drawn >= 8, `${drawn} GPU charts drawn`);
});

await check('light theme is kept across a reload', async () => {
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.click('#theme');
  const after = await page.evaluate(() => document.documentElement.dataset.theme);
  assert(after !== before, 'theme toggled');
  await page.reload();
  await until(async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === after, 'theme kept');
  await until(async () => (await page.locator('.gpu-card').count()) > 0, 'cards after reload');
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(artifacts, `overview-${after}.png`), fullPage: true });
  await page.click('#theme');
});

await check('GPU processes: every process, sortable and filterable', async () => {
  await page.goto(url + '/#/processes');
  const procs = await query('llmon_gpu_process_memory_bytes');
  await until(async () => (await page.locator('#proc-table tbody tr').count()) === procs.length, `${procs.length} rows`);
  const mem = async () => page.$$eval('#proc-table tbody tr', (rows) => rows.map((r) => r.children[7].textContent));
  const pids = async () => page.$$eval('#proc-table tbody tr', (rows) => rows.map((r) => Number(r.children[1].textContent)));
  await page.click('#proc-table th[data-key=pid]');
  const asc = await pids();
  await page.click('#proc-table th[data-key=pid]');
  const desc = await pids();
  assert(asc.join() === [...asc].sort((a, b) => b - a).join() || asc.join() === [...asc].sort((a, b) => a - b).join(), `sorted: ${asc}`);
  assert(desc.join() === [...asc].reverse().join(), `second click reverses: ${desc} vs ${asc}`);
  assert(page.url().includes('sort='), `sort kept in the URL: ${page.url()}`);
  const onePid = String(procs[0].metric.pid);
  await page.fill('#proc-filter', onePid);
  await until(async () => (await page.locator('#proc-table tbody tr').count()) >= 1 &&
    (await pids()).every((p) => String(p).includes(onePid)), 'filtered rows');
  assert((await mem()).length >= 1, 'memory column');
  await page.screenshot({ path: join(artifacts, 'processes.png'), fullPage: true });
});

await check('host: a heatmap row per core, every filesystem listed', async () => {
  await page.goto(url + '/#/host');
  const cpus = await query('count(node_cpu_seconds_total{mode="idle"})');
  await until(async () => Number(await page.locator('#cpu-heatmap').getAttribute('data-rows')) === Number(cpus[0].value[1]),
    `${cpus[0].value[1]} heatmap rows`);
  const fs = await query('node_filesystem_size_bytes');
  await until(async () => (await page.locator('#fs-table tbody tr').count()) === fs.length, `${fs.length} filesystems`);
  await page.screenshot({ path: join(artifacts, 'host.png'), fullPage: true });
});

// The scenario fires GPUMemoryCritical (GPU 4 at 90 % memory) from the start
// and GPUXidError when its two Xid 13 land in different cycles: whichever the
// API shows firing first is looked for on the page.
let firingName = '';
await check('alerts: a firing alert of the scenario appears with its annotations', async () => {
  const firing = await until(async () => {
    const a = (await api('/api/v1/alerts')).alerts.filter((x) => x.state === 'firing');
    return a.length ? a : null;
  }, 'an alert firing in the API', 90000);
  firingName = firing[0].labels.alertname;
  const same = firing.filter((a) => a.labels.alertname === firingName);
  await page.goto(url + '/#/alerts');
  const sel = `.alert.firing[data-alertname=${firingName}]`;
  await until(async () => (await page.locator(sel).count()) >= same.length, `${firingName} on the page`);
  const text = await page.locator(sel).first().textContent();
  assert(text.includes(same[0].annotations.summary || ''), 'summary shown');
  assert(/since \d/.test(text), `since-when shown: ${text}`);
  await page.screenshot({ path: join(artifacts, 'alerts.png'), fullPage: true });
});

await check('alerts: a silence is created and expired', async () => {
  await page.locator(`.alert.firing[data-alertname=${firingName}] button`).first().click();
  const matchers = await page.inputValue('#silence-form input[name=matchers]');
  assert(matchers.includes(`alertname="${firingName}"`), `prefilled: ${matchers}`);
  await page.fill('#silence-form input[name=createdBy]', 'browser-test');
  await page.fill('#silence-form input[name=comment]', 'testing the dashboard');
  await page.click('#silence-form button[type=submit]');
  const row = page.locator('#silences-table tbody tr');
  await until(async () => (await row.count()) === 1, 'the silence listed');
  const listed = (await api('/api/v2/silences')).filter((s) => s.status.state === 'active');
  assert(listed.length === 1 && listed[0].createdBy === 'browser-test', 'the API has the active silence');
  await row.locator('button').click();
  await until(async () => (await page.locator('#silences-table').count()) === 0, 'the silence gone from the list');
  const after = (await api('/api/v2/silences')).find((s) => s.id === listed[0].id);
  assert(after.status.state === 'expired', `expired in the API: ${after.status.state}`);
});

await check('explore: completion, chart and table; the URL round-trips the state', async () => {
  await page.goto(url + '/#/explore');
  await page.click('#expr');
  await page.keyboard.type('DCGM_FI_DEV_GPU_UT');
  await until(async () => (await page.locator('#completions li', { hasText: 'DCGM_FI_DEV_GPU_UTIL' }).count()) === 1,
    'the metric name offered');
  await page.keyboard.press('Tab');
  await page.keyboard.type('{gp');
  await until(async () => (await page.locator('#completions li', { hasText: /^gpu$/ }).count()) === 1, 'the label offered');
  await page.keyboard.press('Tab');
  await page.keyboard.type('="');
  await until(async () => (await page.locator('#completions li').count()) === 8, 'eight gpu values offered');
  await page.keyboard.type('3"}');
  await page.keyboard.press('Enter');
  await until(async () => page.url().includes('expr=DCGM_FI_DEV_GPU_UTIL'), 'expr in the URL');
  await until(async () => (await page.locator('#explore-table tbody tr').count()) === 1, 'one series in the table');
  await page.selectOption('#range', '1h');
  const link = page.url();
  assert(link.includes('range=1h'), `range in the URL: ${link}`);
  const fresh = await context.newPage();
  fresh.on('pageerror', (e) => consoleErrors.push(e.message));
  await fresh.goto(link);
  await until(async () => (await fresh.inputValue('#expr')) === 'DCGM_FI_DEV_GPU_UTIL{gpu="3"}', 'expr restored');
  assert((await fresh.inputValue('#range')) === '1h', 'range restored');
  await until(async () => (await fresh.locator('#explore-table tbody tr').count()) === 1, 'result restored');
  await fresh.close();
});

await check('one crosshair across every chart', async () => {
  await page.goto(url + '/#/overview');
  await until(async () => Number(await page.locator('[data-chart=memory]').getAttribute('data-series')) > 0, 'memory chart');
  const over = page.locator('[data-chart=cpu] .u-over');
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  await until(async () => {
    const xs = await page.$$eval('.u-cursor-x', (els) => els.map((e) => e.style.transform));
    return xs.length >= 10 && xs.every((t) => t && !t.startsWith('translate(-10px'));
  }, 'every chart showing the cursor');
  await page.mouse.move(0, 0);
});

await check('drag to zoom pins the range; back to live', async () => {
  await page.goto(url + '/#/overview?range=5m');
  await until(async () => Number(await page.locator('[data-chart=cpu]').getAttribute('data-series')) > 0, 'CPU chart');
  const over = page.locator('[data-chart=cpu] .u-over');
  await over.scrollIntoViewIfNeeded(); const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await until(async () => /end=\d+/.test(page.url()), `end= in the URL after the drag (${page.url()})`);
  assert(/range=1m/.test(page.url()) || /range=\d/.test(page.url()), `zoomed range in the URL: ${page.url()}`);
  assert((await page.textContent('#live')).includes('Back to live'), 'live off');
  await page.click('#live');
  await until(async () => !/end=/.test(page.url()), 'live again');
});

await check('phone in portrait: no horizontal scrolling, cards one per row', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
  const p = await phone.newPage();
  p.on('pageerror', (e) => consoleErrors.push(e.message));
  await p.goto(url + '/');
  await until(async () => (await p.locator('.gpu-card').count()) > 0, 'cards');
  await p.waitForTimeout(500);
  const { sw, w } = await p.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
  assert(sw <= w, `page is ${sw} px wide on a ${w} px screen`);
  await p.screenshot({ path: join(artifacts, 'overview-phone.png'), fullPage: false });
  await phone.close();
});

await check('diagnosis: the findings the API reports, evidence opening in Explore', async () => {
  const d = await api('/api/v1/diagnosis?window=5m');
  const power = d.findings.find((f) => f.kind === 'power_throttling');
  assert(power && power.subject.gpu === '2', `the scenario's power-capped GPU 2: ${JSON.stringify(d.findings.map((f) => f.kind))}`);
  await page.goto(url + '/#/diagnosis');
  const card = page.locator('#diagnosis-findings .finding[data-kind=power_throttling]');
  await until(async () => (await card.count()) === 1, 'the power_throttling finding');
  assert((await card.textContent()).includes('gpu="2"'), 'its subject');
  assert((await page.locator('#diagnosis-findings .finding').count()) === d.findings.length, 'one card per finding');
  await card.locator('summary').click();
  await page.screenshot({ path: join(artifacts, 'diagnosis.png'), fullPage: true });
  await card.locator('.evidence a').first().click();
  await until(async () => page.url().includes('#/explore?expr='), 'Explore opened');
  await until(async () => (await page.locator('#explore-table tbody tr').count()) >= 1, 'the evidence query answered');
});

const migUrl = process.env.MIG_URL;
if (migUrl) {
  await check('MIG: the card lists the instances the API reports', async () => {
    const inst = await until(async () => {
      const r = await (await fetch(`${migUrl}/api/v1/query?query=${encodeURIComponent('DCGM_FI_DEV_FB_USED{GPU_I_ID!=""}')}`)).json();
      return r.data.result.length ? r.data.result : null;
    }, 'MIG series');
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(e.message));
    p.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await p.goto(migUrl + '/');
    const gpu = inst[0].metric.gpu;
    await until(async () => (await p.locator(`.gpu-card[data-gpu="${gpu}"] .mig .row`).count()) === inst.length,
      `${inst.length} MIG instances in the card`);
    const text = await p.locator(`.gpu-card[data-gpu="${gpu}"]`).textContent();
    for (const r of inst) assert(text.includes(`${r.metric.GPU_I_PROFILE} #${r.metric.GPU_I_ID}`), `instance ${r.metric.GPU_I_ID}`);
    assert(text.includes('MIG'), 'MIG badge');
    await until(async () => Number(await p.locator(`.gpu-card[data-gpu="${gpu}"] .spark`).getAttribute('data-series')) === 2,
      'the chart of a MIG GPU');
    await p.screenshot({ path: join(artifacts, 'overview-mig.png'), fullPage: true });
    await p.close();
  });
}

await check('no console errors', async () => {
  assert(consoleErrors.length === 0, consoleErrors.join(' | '));
});

await finish(browser);
