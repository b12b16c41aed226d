#!/usr/bin/env node
// The `sightline` command. Runs the JavaScript compiled into dist/ (scripts/build.mjs; `npm start`,
// `npm test` and `npm run build` make it) when that matches the sources file for file; otherwise
// (no build yet, or a source changed since) it loads the TypeScript sources through tsx: correct,
// slower to start, and otherwise the same command with the same output. It never runs stale output.
import { distState } from '../scripts/dist-state.mjs';

let main;
if (process.env.SIGHTLINE_FROM_SOURCE !== '1' && distState() === 'current') {
  // Stack traces in logs name the TypeScript files and lines, as they do under tsx.
  process.setSourceMapsEnabled(true);
  ({ main } = await import('../dist/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
