#!/usr/bin/env node
// `npm run build` (also run by `npm start` and `npm test` through scripts/setup.mjs): compiles the
// TypeScript sources (api, worker, shared, cli) to JavaScript in dist/, same layout, with esbuild
// (which tsx brings). bin/sightline.js runs dist/ when it matches the sources, so the CLI starts
// without compiling TypeScript; other files of those folders (assets, .mjs, data) are linked,
// not copied, as are the root folders the code reads relative to itself (sql, docs, node_modules).
// Kysely (a pure-ESM package of some 400 small modules, slow to load one by one, used by our
// code only) is bundled into dist/vendor/kysely.js and our compiled files import that instead.
// Builds into a fresh folder and swaps it in, so a process starting meanwhile never sees half a
// build. `--if-stale` does nothing when dist/ is already current.
import fs from 'node:fs';
import path from 'node:path';
import { DIST, distState, MANIFEST, ROOT, SOURCE_DIRS, sourceState, VENDORED } from './dist-state.mjs';

const ROOT_LINKS = ['sql', 'docs', 'node_modules', 'package.json'];

export async function build() {
  const { build: esbuild } = await import('esbuild');
  const files = sourceState();
  const sources = Object.keys(files).filter((f) => SOURCE_DIRS.some((d) => f.startsWith(`${d}/`)));
  const ts = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const tmp = `${DIST}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const out = await esbuild({
    entryPoints: ts.map((f) => path.join(ROOT, f)),
    outdir: tmp,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As tsx compiles: names kept (in-page functions rely on it, see shared/scan-engine/gatherers/rendered.ts).
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'silent',
    write: false,
  });
  for (const pkg of VENDORED) {
    await esbuild({
      entryPoints: [pkg],
      outfile: path.join(tmp, 'vendor', `${pkg}.js`),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
    });
  }
  // The sources import each other as './x.ts' (allowImportingTsExtensions): point those at .js.
  const relTs = /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"'\n]+)\.ts(["'])/g;
  const vendored = new RegExp(`((?:from|import)\\s*\\(?\\s*["'])(${VENDORED.join('|')})(["'])`, 'g');
  for (const f of out.outputFiles) {
    fs.mkdirSync(path.dirname(f.path), { recursive: true });
    if (!f.path.endsWith('.js')) {
      fs.writeFileSync(f.path, f.contents);
      continue;
    }
    const vendor = `./${path.relative(path.dirname(f.path), path.join(tmp, 'vendor'))}`.replace(
      /^\.\/\.\./,
      '..',
    );
    const text = f.text
      .replace(relTs, '$1$2.js$3')
      .replace(vendored, (_m, pre, pkg, post) => `${pre}${vendor}/${pkg}.js${post}`);
    fs.writeFileSync(f.path, text);
  }
  const link = (rel) => {
    const at = path.join(tmp, rel);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(at), path.join(ROOT, rel)), at);
  };
  for (const f of sources) if (!f.endsWith('.ts')) link(f);
  for (const f of ROOT_LINKS) link(f);
  fs.writeFileSync(path.join(tmp, path.basename(MANIFEST)), JSON.stringify({ files }));
  const old = `${DIST}.old-${process.pid}`;
  try {
    if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
    fs.renameSync(tmp, DIST);
  } finally {
    // Another build swapping at the same moment wins; this one's folder goes.
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  }
  return ts.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--if-stale') && distState() === 'current') process.exit(0);
  const started = Date.now();
  const n = await build();
  console.log(`[build] ${n} TypeScript files compiled to dist/ in ${Date.now() - started} ms`);
}
