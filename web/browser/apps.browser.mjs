// Browser tests of the Applications view and the overview's application
// summary: Debian's chromium, headless, driven by playwright-core against an
// agent that scrapes a vLLM page, a training page and a failing target
// (tests/integration/dashboard_apps_browser_test.sh sets it up). Every check
// compares what the page shows with what the agent's API answers, formatted
// by the dashboard's own functions (web/src/format.js).
// Usage: BARE_URL=<agent without targets> SERVE_PID=<pid> TRAIN_PID=<pid>
//        node apps.browser.mjs <agent-url> <artifact-dir> [chromium]
// Prints one "ok"/"not ok" line per check and "N passed, N failed" last.
import { chromium } from 'playwright-core';
import { check, assert, until as waitUntil, finish, launch } from './harness.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as fmt from '../src/format.js';

const [url, artifacts, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
const { BARE_URL: bareUrl, SERVE_PID: servePid = '', TRAIN_PID: trainPid = '' } = process.env;
if (!url || !artifacts) {
  console.error('usage: apps.browser.mjs <agent-url> <artifact-dir> [chromium]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

const until = (fn, what, timeoutMs = 40000) => waitUntil(fn, what, timeoutMs, 250);
async function api(base, path) {
  const res = await fetch(base + path);
  const body = await res.json();
  return body.data ?? body;
}
const query = (q) => api(url, `/api/v1/query?query=${encodeURIComponent(q)}`).then((d) => d.result);
const one = async (q) => {
  const r = await query(q);
  return r.length ? Number(r[0].value[1]) : NaN;
};

const browser = await launch(chromium, browserPath);
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = await context.newPage();
const consoleErrors = [];
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
page.on('pageerror', (e) => consoleErrors.push(e.message));

const card = (job) => page.locator(`.app-card[data-job="${job}"]`);
const field = async (job, key) => card(job).locator(`[data-field="${key}"] dd`).textContent();

await check('applications: one card per target the API lists, the failing one first', async () => {
  const targets = await until(async () => {
    const t = (await api(url, '/api/v1/targets')).activeTargets;
    return t.length === 3 && t.every((x) => x.health !== 'unknown') ? t : null;
  }, 'three scraped targets');
  await page.goto(url + '/#/apps');
  await until(async () => (await page.locator('.app-card').count()) === targets.length, `${targets.length} cards`);
  const jobs = await page.$$eval('.app-card', (cs) => cs.map((c) => c.dataset.job));
  assert(jobs[0] === 'broken', `the down target first: ${jobs}`);
  assert(jobs.includes('vllm') && jobs.includes('train'), `vllm and train cards: ${jobs}`);
});

await check('applications: the down target shows its last error', async () => {
  const t = (await api(url, '/api/v1/targets')).activeTargets.find((x) => x.labels.job === 'broken');
  assert(t.health === 'down' && t.lastError, `the API's broken target: ${JSON.stringify(t)}`);
  await until(async () => (await card('broken').getAttribute('data-health')) === 'down', 'the card marked down');
  const err = await card('broken').locator('.app-error').textContent();
  assert(err === t.lastError, `error "${err}" vs the API's "${t.lastError}"`);
});

await check('applications: the vLLM row with its engine, requests, KV cache and TTFT as the API has them', async () => {
  const c = card('vllm');
  await until(async () => (await c.locator('.app-engine').textContent()) === 'vllm', 'the engine badge');
  assert((await c.locator('.app-health').textContent()) === 'up', 'health up');
  const running = await one('vllm:num_requests_running{job="vllm"}');
  const waiting = await one('vllm:num_requests_waiting{job="vllm"}');
  assert(running === 24 && waiting === 3, `the page's gauges: ${running} running, ${waiting} waiting`);
  await until(async () => (await field('vllm', 'running')) === String(running), `${running} running`);
  assert((await field('vllm', 'waiting')) === String(waiting), 'waiting');
  const kv = await one('llm:kv_cache_usage:ratio{job="vllm"}');
  await until(async () => (await field('vllm', 'kv_cache')) === fmt.ratio(kv), `KV cache ${fmt.ratio(kv)}`);
  // Rates need two samples of the growing page in the rule's window: the
  // TTFT median becomes a number, the one the API has at the same moment.
  await until(async () => {
    const shown = await field('vllm', 'ttft_p50');
    const v = await one('llm:time_to_first_token_seconds:p50_rate5m{job="vllm"}');
    return Number.isFinite(v) && shown === fmt.seconds(v) && shown !== '–';
  }, 'TTFT p50 equal to the API');
  const tps = await field('vllm', 'gen_tps');
  assert(/^\d[\d.]* tok\/s$/.test(tps), `tokens/s: ${tps}`);
});

await check('applications: the vLLM process\'s GPUs beside it, with their utilisation', async () => {
  const procs = await query(`llmon_gpu_process_memory_bytes{pid="${servePid}"}`);
  const gpus = procs.map((p) => p.metric.gpu).sort();
  assert(gpus.join() === '0,1', `the scenario puts pid ${servePid} on GPUs 0 and 1: ${gpus}`);
  await until(async () => (await card('vllm').locator('.app-gpu').count()) === 2, 'two GPU rows');
  await until(async () => {
    const rows = await card('vllm').locator('.app-gpu').evaluateAll((rs) => rs.map((r) => ({ gpu: r.dataset.gpu, text: r.textContent })));
    const util = await query('DCGM_FI_DEV_GPU_UTIL');
    return rows.map((r) => r.gpu).join() === '0,1' && rows.every((r) => {
      const u = util.find((x) => x.metric.gpu === r.gpu);
      return u && r.text.includes(fmt.percent(Number(u.value[1]))) && r.text.includes('(process ');
    });
  }, 'GPU rows with the API\'s utilisation');
  await page.screenshot({ path: join(artifacts, 'applications.png'), fullPage: true });
});

await check('applications: the training row with loss and step time, beside GPU 2', async () => {
  const loss = await one('train_loss{job="train"}');
  await until(async () => (await field('train', 'loss')) === fmt.sig3(loss), `loss ${fmt.sig3(loss)}`);
  await until(async () => {
    const shown = await field('train', 'step_p50');
    const v = await one('llm:train_step_duration_seconds:p50_10m{job="train"}');
    return Number.isFinite(v) && shown === fmt.seconds(v);
  }, 'step time p50 equal to the API');
  const gpus = await card('train').locator('.app-gpu').evaluateAll((rs) => rs.map((r) => r.dataset.gpu));
  assert(gpus.join() === '2', `pid ${trainPid} on GPU 2: ${gpus}`);
});

await check('overview: an applications line each, their names on their GPUs\' cards', async () => {
  await page.goto(url + '/#/overview');
  await until(async () => (await page.locator('#apps-summary .app-line').count()) === 3, 'three application lines');
  await until(async () => (await page.locator('.gpu-card[data-gpu="0"] .card-apps a', { hasText: 'vllm' }).count()) === 1,
    'GPU 0 naming the vLLM server');
  assert((await page.locator('.gpu-card[data-gpu="2"] .card-apps a', { hasText: 'train' }).count()) === 1, 'GPU 2 naming the training job');
  assert((await page.locator('.gpu-card[data-gpu="5"] .card-apps a').count()) === 0, 'GPU 5 runs no application');
  await page.screenshot({ path: join(artifacts, 'overview-apps.png'), fullPage: true });
});

await check('phone in portrait: the applications view does not scroll sideways', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
  const p = await phone.newPage();
  p.on('pageerror', (e) => consoleErrors.push(e.message));
  await p.goto(url + '/#/apps');
  await until(async () => (await p.locator('.app-card').count()) === 3, 'cards');
  const { sw, w } = await p.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: innerWidth }));
  assert(sw <= w, `page is ${sw} px wide on a ${w} px screen`);
  await p.screenshot({ path: join(artifacts, 'applications-phone.png'), fullPage: true });
  await phone.close();
});

if (bareUrl) {
  await check('an agent without targets says how to add them', async () => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(e.message));
    p.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await p.goto(bareUrl + '/#/apps');
    await until(async () => (await p.locator('#apps-empty').count()) === 1, 'the help');
    const text = await p.locator('#apps-empty').textContent();
    for (const flag of ['--scrape.config', '--scrape.discover=gpu-processes']) assert(text.includes(flag), `mentions ${flag}`);
    await p.goto(bareUrl + '/#/overview');
    await until(async () => (await p.locator('.gpu-card').count()) > 0, 'cards');
    await p.waitForTimeout(1500);
    assert(await p.locator('#apps-summary').evaluate((e) => e.closest('section').hidden), 'no applications panel on the overview');
    await p.close();
  });
}

await check('a pushed group (--web.enable-push) gets its own card with its numbers', async () => {
  const res = await fetch(url + '/metrics/job/finetune/run/r42', {
    method: 'PUT',
    headers: { 'Content-Type': 'text/plain; version=0.0.4' },
    body: '# TYPE train_loss gauge\ntrain_loss 0.77\n',
  });
  assert(res.status === 200, `push answered ${res.status}: ${await res.text()}`);
  await until(async () => (await one('train_loss{job="finetune"}')) === 0.77, 'the pushed loss in the store');
  await page.goto(url + '/#/apps');
  await until(async () => (await card('finetune').count()) === 1, 'a card for the pushed group');
  await until(async () => (await field('finetune', 'loss')) === fmt.sig3(0.77), 'its loss');
  await page.screenshot({ path: join(artifacts, 'applications-push.png'), fullPage: true });
});

await check('no console errors', async () => {
  assert(consoleErrors.length === 0, consoleErrors.join(' | '));
});

await finish(browser);
