import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listSites, registerSite, removeSite } from '../../shared/agent-sites/sites.ts';
import { buildRangeData, SHIPPED_RANGES_FILE } from '../../shared/agent-verification/ip-data.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { sitesUsage as usage } from '../usage.ts';

export { usage };

const view = (s: AgentSite) => ({
  id: Number(s.id),
  account: Number(s.account_id),
  trackingId: s.tracking_id,
  url: s.url,
  label: s.label,
  ingestTokenPrefix: s.ingest_token_prefix,
  createdAt: s.created_at.toISOString(),
});

// Operator control of registered sites (variant B): each site gets a tracking id and an ingest
// token shown once, which its server uses for POST /api/v1/collect.
export async function sites(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'refresh-ranges') return refreshRanges(rest, io);
  if (sub !== 'add' && sub !== 'list' && sub !== 'remove') throw new UsageError(usage);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      url: { type: 'string' },
      label: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.account || !/^\d+$/.test(values.account))
    throw new UsageError(`--account ID is required\n${usage}`);
  if (sub === 'add' && !values.url) throw new UsageError(`--url URL is required\n${usage}`);
  if (sub === 'remove' && !positionals[0])
    throw new UsageError(`a site id or tracking id is required\n${usage}`);
  const db = await openDatabase(loadCliConfig(), io);
  try {
    const handle = db.handle.db;
    if (sub === 'add') {
      const { site, ingestToken } = await registerSite(handle, {
        accountId: values.account,
        url: values.url!,
        label: values.label,
      });
      if (values.json) io.out(JSON.stringify({ ...view(site), ingestToken }));
      else {
        io.out(`site ${site.id} registered: ${site.url} (tracking id ${site.tracking_id})`);
        io.out(`ingest token (shown once, store it now): ${ingestToken}`);
      }
      return 0;
    }
    if (sub === 'list') {
      const list = (await listSites(handle, values.account)).map(view);
      if (values.json) io.out(JSON.stringify(list));
      else if (list.length === 0) io.out(`account ${values.account}: no registered sites`);
      else for (const s of list) io.out(`${s.id}\t${s.trackingId}\t${s.url}\t${s.label}`);
      return 0;
    }
    await removeSite(handle, values.account, positionals[0]!);
    if (values.json) io.out(JSON.stringify({ removed: positionals[0] }));
    else io.out(`site ${positionals[0]} removed with its agent traffic`);
    return 0;
  } finally {
    await db.close();
  }
}

/**
 * Rewrites the shipped crawler IP ranges (shared/agent-verification/data/ip-ranges.json) from a folder
 * of the vendors' own files (default: AGENT_IP_RANGES_DIR, else ../shared/corpora/ai-ip-ranges).
 */
function refreshRanges(args: string[], io: CliIO): number {
  const { values } = parseArgs({
    args,
    options: { from: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const from = path.resolve(
    values.from ?? loadCliConfig().AGENT_IP_RANGES_DIR ?? '../shared/corpora/ai-ip-ranges',
  );
  if (!fs.existsSync(from)) throw new UsageError(`no such folder: ${from}`);
  const data = buildRangeData(from);
  const out = values.out ?? SHIPPED_RANGES_FILE;
  const counts = Object.fromEntries(Object.entries(data.sources).map(([k, v]) => [k, v.ranges.length]));
  if (Object.keys(counts).length === 0) throw new UsageError(`no vendor range files found under ${from}`);
  fs.writeFileSync(out, `${JSON.stringify(data, null, 2)}\n`);
  if (values.json) io.out(JSON.stringify({ out, sources: counts }));
  else for (const [k, n] of Object.entries(counts)) io.out(`${k}: ${n} ranges`);
  return 0;
}
