#!/usr/bin/env node
// The `sightline` command. Runs the JavaScript compiled into dist/ (scripts/build.mjs; `npm start`,
// `npm test` and `npm run build` make it) when that matches the sources file for file; otherwise
// (no build yet, or a source changed since) it loads the TypeScript sources through tsx, which is
// correct but takes seconds longer to start. It never runs stale output.
import { distState } from '../scripts/dist-state.mjs';

const state = process.env.SIGHTLINE_FROM_SOURCE === '1' ? 'skipped' : distState();
let main;
if (state === 'current') {
  // Stack traces in logs name the TypeScript files and lines, as they do under tsx.
  process.setSourceMapsEnabled(true);
  ({ main } = await import('../dist/cli/main.js'));
} else {
  if (state === 'stale' && process.stderr.isTTY)
    process.stderr.write(
      'sightline: dist/ is older than the sources; running them through tsx (npm run build)\n',
    );
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
