// Opens the dashboard N times in a fresh headless chromium page and reports
// the medians of the page's own marks (performance.mark in web/src): from
// navigation start to the first chart with data, and to the first complete
// refresh with every chart drawn. Also the largest query_range answer time
// seen in Resource Timing.
// Usage: node page_timing.mjs <url-with-hash> [runs] [chromium]
import { chromium } from 'playwright-core';

const [url, runsArg = '5', exe = '/usr/bin/chromium'] = process.argv.slice(2);
const runs = Number(runsArg);
const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-gpu'] });
const first = [];
const drawn = [];
const slowest = [];
for (let r = 0; r < runs; r++) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await ctx.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('llmon:charts-drawn').length > 0, null, { timeout: 60000 });
  const m = await page.evaluate(() => ({
    first: performance.getEntriesByName('llmon:first-chart')[0]?.startTime ?? null,
    drawn: performance.getEntriesByName('llmon:charts-drawn')[0].startTime,
    slowest: Math.max(0, ...performance.getEntriesByType('resource').filter((e) => e.name.includes('query_range'))
      .map((e) => e.responseEnd - e.requestStart)),
  }));
  first.push(m.first);
  drawn.push(m.drawn);
  slowest.push(m.slowest);
  await ctx.close();
}
await browser.close();
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(JSON.stringify({ url, runs, first_chart_ms: Math.round(med(first)), all_charts_ms: Math.round(med(drawn)),
  slowest_query_range_ms: Math.round(med(slowest)), all_first: first.map(Math.round), all_drawn: drawn.map(Math.round) }));
