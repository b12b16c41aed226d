// Is dist/ (scripts/build.mjs) the compiled form of the sources as they are now? bin/sightline.js
// asks at every start, so this stays cheap: one stat per source file, compared with the manifest
// the build wrote (path, size and mtime of each). Any added, removed or touched file makes it stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
export const MANIFEST = path.join(DIST, 'manifest.json');
/** Compiled into dist/ with the same layout; every other file in them is linked there. */
export const SOURCE_DIRS = ['api', 'worker', 'shared', 'cli'];
/** Packages bundled into dist/vendor/ (scripts/build.mjs says why). */
export const VENDORED = ['kysely'];
/** Outside SOURCE_DIRS but part of the output: a new build step or vendored version means a new build. */
const BUILD_INPUTS = ['scripts/build.mjs', ...VENDORED.map((p) => `node_modules/${p}/package.json`)];

/** Every source file (relative path → "size:mtime"). */
export function sourceState() {
  const state = {};
  const add = (rel) => {
    const st = fs.statSync(path.join(ROOT, rel), { throwIfNoEntry: false });
    state[rel] = st ? `${st.size}:${st.mtimeMs}` : 'absent';
  };
  for (const dir of SOURCE_DIRS) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) add(path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  for (const rel of BUILD_INPUTS) add(rel);
  return state;
}

/** 'current', 'missing' or 'stale'. */
export function distState() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')).files;
  } catch {
    return 'missing';
  }
  let now;
  try {
    now = sourceState();
  } catch {
    return 'stale'; // a source folder unreadable: let tsx report it
  }
  const keys = Object.keys(now);
  if (keys.length !== Object.keys(manifest).length) return 'stale';
  for (const k of keys) if (manifest[k] !== now[k]) return 'stale';
  return 'current';
}
