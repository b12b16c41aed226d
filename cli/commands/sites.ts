import { parseArgs } from 'node:util';
import { listSites, registerSite, removeSite } from '../../shared/agent-traffic/sites.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';

export const usage = `sightline sites add --account ID --url URL [--label L] [--json]
sightline sites list --account ID [--json]
sightline sites remove --account ID SITE [--json]`;

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
