import { parseArgs } from 'node:util';
import type { AgentPurpose } from '../../shared/agent-catalogue/catalogue.ts';
import { onCatalogueChanged } from '../../shared/agent-catalogue/on-catalogue-changed.ts';
import {
  addLocalAgent,
  type CatalogueEntry,
  catalogueVersion,
  getAgent,
  listAgents,
  removeLocalAgent,
} from '../../shared/agent-catalogue/store.ts';
import { type LocationSync, summaryLine, syncSource } from '../../shared/agent-catalogue/sync.ts';
import { AppError } from '../../shared/errors.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { agentsUsage as usage } from '../usage.ts';
import { rangesSyncCommand } from './agents-ranges.ts';
import { relabelCommand } from './agents-relabel.ts';

// `sightline agents sync|list|show|add|remove|relabel`: the agent catalogue in the database.
// A change queues the relabelling of stored events (onCatalogueChanged).

type Db = Awaited<ReturnType<typeof openDatabase>> & { allowHosts: string };

const PURPOSES = ['training', 'search', 'browse'] as const;

export async function agents(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'relabel') return relabelCommand(rest, io);
  if (sub === 'ranges') return rangesSyncCommand(rest, io);
  const run = sub ? COMMANDS[sub] : undefined;
  if (!run) throw new UsageError(usage);
  const config = loadCliConfig();
  const db = await openDatabase(config, io);
  try {
    return await run(rest, io, { ...db, allowHosts: config.SCAN_ALLOW_HOSTS });
  } finally {
    await db.close();
  }
}

const COMMANDS: Record<string, (args: string[], io: CliIO, db: Db) => Promise<number>> = {
  sync: syncCommand,
  list: listCommand,
  show: showCommand,
  add: addCommand,
  remove: removeCommand,
};

async function syncCommand(args: string[], io: CliIO, db: Db): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } },
  });
  const from = values.from ?? [];
  if (from.length === 0 || positionals.length) throw new UsageError(usage);
  const synced: LocationSync[] = [];
  for (const location of from) {
    io.err(`syncing ${location}`);
    const s = await syncSource(db.handle.db, location, { allowHosts: db.allowHosts });
    synced.push(s);
    if (!values.json) io.out(summaryLine(s));
  }
  const results = synced.flatMap((s) => (s.kind === 'catalogue' ? [s.result] : []));
  const changed = results.some((r) => r.added + r.updated + r.withdrawn > 0);
  const relabel = changed ? await onCatalogueChanged(db.handle.db) : undefined;
  const { version } = await catalogueVersion(db.handle.db);
  const total = (k: 'added' | 'updated' | 'unchanged' | 'withdrawn') => results.reduce((n, r) => n + r[k], 0);
  const verification = synced.flatMap((s) => (s.kind === 'verification' ? [s] : []));
  if (values.json)
    io.out(
      JSON.stringify({
        version,
        sources: results,
        verification: verification.map((v) => ({ from: v.location, ...v.result })),
        relabelJob: relabel?.job ?? null,
      }),
    );
  else
    io.out(
      `catalogue ${version}: ${total('added')} added, ${total('updated')} updated, ${total('unchanged')} unchanged` +
        (total('withdrawn') ? `, ${total('withdrawn')} no longer listed` : '') +
        (verification.length ? `; ${verification.length} verification source(s) stored` : '') +
        (relabel ? '; relabelling stored events (sightline agents relabel --wait to follow)' : ''),
    );
  return 0;
}

const row = (a: CatalogueEntry) =>
  [a.token, a.platform, a.purpose, a.ai ? 'ai' : 'not-ai', a.origin, a.sources.join(',')].join('\t');

async function listCommand(args: string[], io: CliIO, db: Db): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const list = await listAgents(db.handle.db);
  const { version } = await catalogueVersion(db.handle.db);
  if (values.json) io.out(JSON.stringify({ version, agents: list }));
  else {
    io.out(['token', 'platform', 'purpose', 'ai', 'origin', 'sources'].join('\t'));
    for (const a of list) io.out(row(a));
    io.out(`${list.length} agents, catalogue ${version}`);
  }
  return 0;
}

async function showCommand(args: string[], io: CliIO, db: Db): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError(usage);
  const a = await getAgent(db.handle.db, positionals[0]!);
  if (!a) throw new AppError(404, 'not_found', 'Not found', `no agent ${positionals[0]} in the catalogue`);
  if (values.json) io.out(JSON.stringify(a));
  else
    for (const [k, v] of Object.entries(a))
      io.out(`${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : v}`);
  return 0;
}

async function addCommand(args: string[], io: CliIO, db: Db): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      token: { type: 'string' },
      platform: { type: 'string' },
      purpose: { type: 'string' },
      operator: { type: 'string' },
      category: { type: 'string' },
      alias: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
    },
  });
  const { token, platform, purpose } = values;
  if (positionals.length || !token?.trim() || !platform?.trim() || !purpose)
    throw new UsageError(`agents add needs --token, --platform and --purpose\n${usage}`);
  if (!(PURPOSES as readonly string[]).includes(purpose))
    throw new UsageError(`--purpose must be one of ${PURPOSES.join(', ')}, not ${purpose}`);
  const entry = await addLocalAgent(db.handle.db, {
    token,
    platform: platform.trim(),
    purpose: purpose as AgentPurpose,
    ...(values.operator ? { operator: values.operator } : {}),
    ...(values.category ? { category: values.category } : {}),
    aliases: values.alias ?? [],
  });
  const relabel = await onCatalogueChanged(db.handle.db);
  if (values.json) io.out(JSON.stringify({ agent: entry, relabelJob: relabel.job }));
  else
    io.out(
      `added local agent ${entry.token} (${entry.platform}, ${entry.purpose}); relabelling stored events`,
    );
  return 0;
}

async function removeCommand(args: string[], io: CliIO, db: Db): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw new UsageError(usage);
  const token = positionals[0]!;
  const r = await removeLocalAgent(db.handle.db, token);
  if (r === 'unknown')
    throw new AppError(404, 'not_found', 'Not found', `no agent ${token} in the catalogue`);
  if (r === 'not-local')
    throw new AppError(
      409,
      'not_local',
      'Not a local entry',
      `${token} comes from the shipped snapshot or a synced list; only local entries (agents add) can be removed`,
    );
  const relabel = await onCatalogueChanged(db.handle.db);
  if (values.json) io.out(JSON.stringify({ removed: token, relabelJob: relabel.job }));
  else io.out(`removed local agent ${token}; relabelling stored events`);
  return 0;
}
