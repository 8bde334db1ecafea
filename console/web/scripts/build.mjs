// Bundles the console into dist/: app.js (ES module: noVNC uses top-level
// await), app.css with PatternFly's and xterm's styles, the fonts and
// images the CSS references under assets/, and index.html. Called by
// hack/console-build.sh, which decides whether a build is needed.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const dist = join(web, 'dist');

// Earlier builds' hashed assets would otherwise pile up in the Go binary.
for (const e of readdirSync(dist)) {
  if (e !== '.keep') rmSync(join(dist, e), { recursive: true, force: true });
}

const result = await build({
  entryPoints: { app: join(web, 'src/main.tsx') },
  outdir: dist,
  bundle: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'linked',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file', '.jpg': 'file' },
  assetNames: 'assets/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

// The version query makes a browser fetch the new bundle after an upgrade
// even if it cached the old one.
const version = (process.env.CONSOLE_INPUTS_HASH || String(Date.now())).slice(0, 12);
const html = readFileSync(join(web, 'index.html'), 'utf8').replaceAll('__VERSION__', version);
writeFileSync(join(dist, 'index.html'), html);

for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if (/app\.(js|css)$/.test(file)) console.log(`${file}: ${(out.bytes / 1024).toFixed(0)} KiB`);
}

// Compressible outputs get a .gz beside them, compressed once here, which
// the console's server sends to browsers that accept gzip (app.js is a
// quarter of its size).
for (const file of Object.keys(result.metafile.outputs)) {
  if (!/\.(js|css|svg|ttf|map|txt)$/.test(file)) continue;
  const path = join(web, file);
  writeFileSync(`${path}.gz`, gzipSync(readFileSync(path), { level: 9 }));
}
