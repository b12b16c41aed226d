import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildSnapshot, readSnapshot, SNAPSHOT_FILE } from '../shared/agent-catalogue/snapshot.ts';

// Builds shared/agent-catalogue/data/snapshot.json from the public agent lists in a corpora
// folder (never copied into the project): npm run catalogue:snapshot -- --corpora DIR [--date D]

const LISTS = [
  { name: 'ai.robots.txt', file: 'ai-user-agents/ai.robots.txt/robots.json' },
  { name: 'arcjet', file: 'ai-user-agents/arcjet-well-known-bots/well-known-bots.json' },
  { name: 'crawler-user-agents', file: 'ai-user-agents/crawler-user-agents/crawler-user-agents.json' },
];

const { values } = parseArgs({
  options: { corpora: { type: 'string' }, date: { type: 'string' }, out: { type: 'string' } },
});
if (!values.corpora) {
  console.error('usage: npm run catalogue:snapshot -- --corpora DIR [--date YYYY-MM-DD] [--out FILE]');
  process.exit(2);
}
const corpora = values.corpora;
const missing = LISTS.filter((l) => !existsSync(path.join(corpora, l.file)));
if (missing.length > 0) {
  console.error(`missing in ${corpora}: ${missing.map((l) => l.file).join(', ')}`);
  process.exit(1);
}
const out = values.out ?? SNAPSHOT_FILE;
const snapshot = buildSnapshot(
  LISTS.map((l) => ({ name: l.name, text: readFileSync(path.join(corpora, l.file), 'utf8') })),
  {
    date: values.date ?? new Date().toISOString().slice(0, 10),
    previous: existsSync(out) ? readSnapshot(out) : undefined,
  },
);
writeFileSync(out, `${JSON.stringify(snapshot, null, 1)}\n`);
console.log(
  `catalogue snapshot ${snapshot.version}: ${snapshot.agents.length} agents from ${snapshot.sources.map((s) => `${s.name} (${s.agents})`).join(', ')} -> ${out}`,
);
