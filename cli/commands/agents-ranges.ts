import { parseArgs } from 'node:util';
import { agentDataFreshness } from '../../shared/agent-verification/sources-age.ts';
import {
  readSourceFile,
  type SyncedSource,
  syncVerificationSource,
} from '../../shared/agent-verification/sources-sync.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';

export const rangesUsage = `sightline agents ranges sync --from FILE|URL [--from ...] [--source ID] [--json]
  Stores vendor verification sources, which every process then uses instead of the shipped
  snapshot: IP-range files in the vendor's own format, named as the vendor names them
  (gptbot.json, searchbot.json, chatgpt-user.json, googlebot.json, perplexitybot.json, ...;
  --source ID for a file named otherwise), or a reverse-DNS file
  {"reverseDns": {"<platform>": [".suffix", ...]}}. URLs are fetched through SCAN_ALLOW_HOSTS'
  address policy. Then prints the age of every source (stale after 30 days).
sightline agents ranges status [--json]
  Only prints the age of the catalogue and of every verification source.`;

const describe = (from: string, s: SyncedSource) =>
  s.kind === 'rdns'
    ? s.platforms.map((p) => `${from}: reverse DNS for ${p.platform}: ${p.suffixes.join(' ')}`)
    : s.sources.map(
        (x) =>
          `${from}: ${x.source}: ${x.ranges} prefixes${x.publishedOn ? ` (published ${x.publishedOn})` : ''}`,
      );

// `sightline agents ranges sync|status`: the verification sources alone (`agents sync --from` takes
// them too, beside catalogue lists, and stores them the same way).
export async function rangesSyncCommand(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args[0] === 'sync' || args[0] === 'status' ? args : ['sync', ...args];
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      from: { type: 'string', multiple: true },
      source: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\n${rangesUsage}`);
  const from = values.from ?? [];
  if (sub === 'sync' && from.length === 0)
    throw new UsageError(`--from FILE|URL is required\n${rangesUsage}`);
  if (values.source && from.length > 1)
    throw new UsageError(`--source names one file: give one --from\n${rangesUsage}`);
  const config = loadCliConfig();
  // Every file is read and checked before anything is stored.
  const files = [];
  for (const f of from)
    files.push({
      from: f,
      body: await readSourceFile(f, { allowHosts: config.SCAN_ALLOW_HOSTS }),
      source: values.source,
    });
  const db = await openDatabase(config, io);
  try {
    const synced: { from: string; result: SyncedSource }[] = [];
    for (const f of files)
      synced.push({ from: f.from, result: await syncVerificationSource(db.handle.db, f) });
    const freshness = await agentDataFreshness(db.handle.db);
    if (values.json) {
      io.out(JSON.stringify({ synced, freshness }));
      return 0;
    }
    for (const s of synced) for (const l of describe(s.from, s.result)) io.out(l);
    for (const s of [freshness.catalogue, ...freshness.verificationSources]) {
      const age = s.ageDays === null ? 'undated' : `${s.ageDays} days old`;
      io.out(`${s.source}\t${s.origin}\t${s.asOf ?? '-'}\t${age}${s.stale ? '\tSTALE' : ''}`);
    }
    if (freshness.stale)
      io.err(`some sources are older than ${freshness.staleAfterDays} days: sync them with --from`);
    return 0;
  } finally {
    await db.close();
  }
}
