// Bundles the dashboard: web/src/main.js (+ CSS) -> <out>/app.js, app.css,
// and index.html beside them. Run by CMake (the agent embeds <out>/*);
// `node build.mjs --out DIR [--dev]`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : join(here, 'dist');
const dev = args.includes('--dev');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(here, 'src/main.js') },
  bundle: true, minify: !dev, sourcemap: false, format: 'esm', target: ['es2022'],
  outdir: out, legalComments: 'none', logLevel: 'warning',
});
copyFileSync(join(here, 'src/index.html'), join(out, 'index.html'));
let total = 0;
const sizes = {};
for (const f of ['index.html', 'app.js', 'app.css']) {
  const raw = readFileSync(join(out, f));
  sizes[f] = { bytes: statSync(join(out, f)).size, gzip: gzipSync(raw, { level: 9 }).length };
  total += sizes[f].gzip;
}
writeFileSync(join(out, 'sizes.json'), JSON.stringify({ files: sizes, gzip_total: total }, null, 1) + '\n');
console.log(`web: ${Object.entries(sizes).map(([f, s]) => `${f} ${s.bytes} B (${s.gzip} gz)`).join(', ')}; total ${total} B gzipped`);
