// Bundles chartlib.mjs (esbuild), loads it in headless chromium from a file
// URL and prints its results, plus each library's minified+gzipped size.
// Usage: node chartlib_run.mjs <scratch-dir> [runs] [chromium]
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { writeFileSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const [dir, runs = '7', exe = '/usr/bin/chromium'] = process.argv.slice(2);
await build({ entryPoints: [join(here, 'chartlib.mjs')], bundle: true, minify: true, format: 'esm', outfile: join(dir, 'chartlib.js'), logLevel: 'warning' });
writeFileSync(join(dir, 'chartlib.html'), '<!doctype html><meta charset=utf-8><link rel=stylesheet href=chartlib.css><body><script type=module src=chartlib.js></script>');
const sizes = {};
for (const [name, src] of [['uplot', "import uPlot from 'uplot'; window.u = uPlot;"],
  ['chartjs', "import { Chart, LineController, LineElement, PointElement, LinearScale, CategoryScale, Decimation } from 'chart.js'; Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Decimation); window.c = Chart;"]]) {
  const r = await build({ stdin: { contents: src, resolveDir: here }, bundle: true, minify: true, format: 'esm', write: false, logLevel: 'warning' });
  const bytes = r.outputFiles[0].contents;
  sizes[name] = { min_bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length };
}
const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'] });
const page = await browser.newPage();
await page.goto(pathToFileURL(join(dir, 'chartlib.html')).href + `?runs=${runs}`);
await page.waitForFunction(() => document.title === 'done', null, { timeout: 300000 });
const results = await page.evaluate(() => window.__results);
await browser.close();
console.log(JSON.stringify({ sizes, results }));
