import { parseArgs } from 'node:util';
import { setSubscription } from '../../shared/accounts/accounts.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { subscriptionView } from '../../shared/monitoring/sites.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';

export const usage = `sightline subscriptions set --account ID --plan growth|agency|none [--json]
sightline subscriptions show --account ID [--json]`;

type View = NonNullable<Awaited<ReturnType<typeof subscriptionView>>>;

function print(io: CliIO, view: View, json: boolean): void {
  if (json) io.out(JSON.stringify(view));
  else if (!view.plan) io.out(`account ${view.account}: no monitoring subscription`);
  else {
    io.out(
      `account ${view.account}: ${view.plan} (${view.status}), ${view.sitesUsed}/${view.siteQuota} sites, scanned ${view.scanFrequency}`,
    );
    io.out(`status page: ${view.statusPageUrl}`);
  }
}

// Operator control of monitoring plans (variant A): set or end a plan, show it with its public
// status page. Ending a plan (`none`) keeps the sites but stops their scans and the status page.
export async function subscriptions(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'set' && sub !== 'show') throw new UsageError(usage);
  const { values } = parseArgs({
    args: rest,
    options: {
      account: { type: 'string' },
      plan: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.account || !/^\d+$/.test(values.account))
    throw new UsageError(`--account ID is required\n${usage}`);
  const plan = values.plan;
  if (sub === 'set' && plan !== 'growth' && plan !== 'agency' && plan !== 'none')
    throw new UsageError(`--plan must be growth, agency or none\n${usage}`);

  const config = loadCliConfig();
  const db = await openDatabase(config, io);
  try {
    const before = await subscriptionView(db.handle.db, config, values.account);
    if (!before) {
      io.err(`no account ${values.account}`);
      return 1;
    }
    if (sub === 'show') {
      print(io, before, values.json ?? false);
      return 0;
    }
    if (before.variant !== 'A') throw new UsageError('monitoring plans belong to variant A accounts');
    await setSubscription(db.handle.db, values.account, plan as Plan | 'none');
    const after = await subscriptionView(db.handle.db, config, values.account);
    print(io, after!, values.json ?? false);
    return 0;
  } finally {
    await db.close();
  }
}
