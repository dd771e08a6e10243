// Browser checks of the dashboard's Traces view and of the trace capture
// attached to an alert (docs/trace.md#the-dashboard), against an agent that
// made an alert-triggered capture (tests/integration/trace_capture_test.sh):
// the view lists the API's captures with their numbers and a link per trace;
// the link opens the capture's HTML report, which renders with no console
// errors and the same idle percentage; the alert view shows the alert's
// attached capture with a working report link.
// Usage: node traces.browser.mjs <agent-url> <artifact-dir> [chromium]
import { chromium } from 'playwright-core';
import { check, assert, finish, launch } from './harness.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [url, artifacts, browserPath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !artifacts) {
  console.error('usage: traces.browser.mjs <agent-url> <artifact-dir> [chromium]');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const api = async (path) => (await (await fetch(url + path)).json()).data;

const browser = await launch(chromium, browserPath);
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = await context.newPage();
const errors = [];
page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
page.on('pageerror', (e) => errors.push(e.message));

const captures = await api('/api/v1/trace/captures');
const traces = captures.flatMap((c) => c.traces);

await check('the Traces view lists every trace of the API with its numbers and report link', async () => {
  await page.goto(url + '/#/traces');
  await page.waitForSelector('#traces-table tbody tr', { timeout: 20000 });
  const rows = await page.$$eval('#traces-table tbody tr', (trs) => trs.map((tr) => ({
    file: tr.dataset.file,
    idle: tr.querySelector('[data-field=idle_pct]').textContent,
    href: tr.querySelector('a.report-link')?.getAttribute('href') || '',
  })));
  assert(rows.length >= traces.length, `${rows.length} rows, API ${traces.length} traces`);
  traces.forEach((t, i) => {
    assert(rows[i].file === t.file, `row ${i}: ${rows[i].file} vs ${t.file}`);
    assert(rows[i].idle === `${t.idle_pct.toFixed(1)} %`, `row ${i} idle ${rows[i].idle} vs ${t.idle_pct}`);
    assert(rows[i].href === t.report, `row ${i} link ${rows[i].href} vs ${t.report}`);
  });
  await page.screenshot({ path: join(artifacts, 'traces.png'), fullPage: true });
});

await check('a report link opens the capture\'s report, drawn with no console errors', async () => {
  const [report] = await Promise.all([context.waitForEvent('page'), page.locator('a.report-link').first().click()]);
  const rerrors = [];
  report.on('console', (m) => m.type() === 'error' && rerrors.push(m.text()));
  report.on('pageerror', (e) => rerrors.push(e.message));
  await report.waitForSelector('body[data-rendered=true]', { timeout: 15000 });
  const idle = await report.locator('section.rank [data-section=temporal] [data-field=idle_pct]').first().textContent();
  assert(idle === `${traces[0].idle_pct.toFixed(1)} %`, `report idle ${idle} vs ${traces[0].idle_pct}`);
  assert(rerrors.length === 0, `console errors in the report: ${rerrors.join(' | ')}`);
  await report.screenshot({ path: join(artifacts, 'capture-report.png'), fullPage: true });
  await report.close();
});

await check('the alert view shows the capture attached to the alert', async () => {
  const alerts = await api('/api/v1/alerts');
  const a = alerts.alerts.find((x) => x.annotations?.llmon_trace_capture);
  assert(a, 'no alert with llmon_trace_capture in /api/v1/alerts');
  await page.goto(url + '/#/alerts');
  const el = page.locator(`article.alert[data-alertname="${a.labels.alertname}"] .trace-capture`).first();
  await el.waitFor({ timeout: 20000 });
  const text = await el.textContent();
  assert(text.includes(a.annotations.llmon_trace_capture), `shown: ${text}`);
  const href = await el.locator('a.report-link').getAttribute('href');
  assert(href === a.annotations.llmon_trace_report, `link ${href}`);
  const res = await fetch(url + href);
  assert(res.status === 200 && (await res.text()).includes('id="report-data"'), `GET ${href}: ${res.status}`);
  await page.screenshot({ path: join(artifacts, 'alert-capture.png'), fullPage: true });
});

await check('no console errors in the dashboard', async () => {
  assert(errors.length === 0, errors.join(' | '));
});

await finish(browser);
