// Runs the unit tests (src/**/*.test.ts) with node's own test runner: esbuild
// compiles each test with what it imports into .test-build, as it compiles
// the app, so the tests run the same TypeScript the bundle does.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const out = join(web, '.test-build');

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const tests = find(join(web, 'src'));
if (tests.length === 0) {
  console.error('no tests found under src/');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: tests,
  outdir: out,
  outbase: join(web, 'src'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // node:test and friends stay imports; everything else is the code under test.
  packages: 'external',
  logLevel: 'warning',
});
const files = tests.map((t) => join(out, relative(join(web, 'src'), t)).replace(/\.ts$/, '.mjs'));
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
