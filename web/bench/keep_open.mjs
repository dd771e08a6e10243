// Keeps the dashboard open (live, following) in headless chromium for a
// number of seconds: the load under which bench/dashboard_bench.sh measures
// the agent's extra CPU.
// Usage: node keep_open.mjs <url> <seconds> [chromium]
import { chromium } from 'playwright-core';

const [url, seconds, exe = '/usr/bin/chromium'] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
await page.goto(url);
await page.waitForFunction(() => performance.getEntriesByName('llmon:charts-drawn').length > 0, null, { timeout: 60000 });
console.log('open');
await page.waitForTimeout(Number(seconds) * 1000);
const marks = await page.evaluate(() => performance.getEntriesByName('llmon:charts-drawn').length);
const requests = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/')).length);
console.log(JSON.stringify({ chart_refreshes: marks, api_requests: requests }));
await browser.close();
