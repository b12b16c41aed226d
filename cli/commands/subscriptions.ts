import { parseArgs } from 'node:util';
import { setSubscription } from '../../shared/accounts/accounts.ts';
import { rotateStatusToken } from '../../shared/accounts/status-token.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { statusPageUrl, subscriptionView } from '../../shared/monitoring/sites.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { subscriptionsUsage as usage } from '../usage.ts';

export { usage };

type View = NonNullable<Awaited<ReturnType<typeof subscriptionView>>>;
/** A freshly issued status token: shown this once (only its hash is stored). */
type Issued = { statusToken: string; statusPageUrl: string } | null;

function print(io: CliIO, view: View, issued: Issued, json: boolean): void {
  if (json) io.out(JSON.stringify(issued ? { ...view, ...issued } : view));
  else if (!view.plan) io.out(`account ${view.account} (${view.email}): no monitoring subscription`);
  else {
    io.out(
      `account ${view.account} (${view.email}): ${view.plan} (${view.status}), ${view.sitesUsed}/${view.siteQuota} sites, scanned ${view.scanFrequency}`,
    );
    if (issued) io.out(`status page (shown once, share it now): ${issued.statusPageUrl}`);
    else
      io.out(
        `status page: token ${view.statusTokenPrefix}… (stored hashed; \`sightline subscriptions rotate-status-token --account ${view.account}\` issues a new link)`,
      );
  }
}

// Operator control of monitoring plans (variant A): set or end a plan, show it, and rotate its
// public status page's token. Ending a plan (`none`) keeps the sites but stops their scans and the
// status page. The status page URL is shown once: when the subscription is first created, and
// each time its token is rotated (the old link stops working at once).
export async function subscriptions(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'set' && sub !== 'show' && sub !== 'rotate-status-token') throw new UsageError(usage);
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
  const json = values.json ?? false;
  const shown = (token: string | null | undefined): Issued =>
    token ? { statusToken: token, statusPageUrl: statusPageUrl(config, token) } : null;
  try {
    const before = await subscriptionView(db.handle.db, values.account);
    if (!before) {
      io.err(`no account ${values.account}`);
      return 1;
    }
    if (sub === 'show') {
      print(io, before, null, json);
      return 0;
    }
    if (sub === 'rotate-status-token') {
      const token = await rotateStatusToken(db.handle.db, values.account);
      if (!token) {
        io.err(`account ${values.account} has no monitoring subscription`);
        return 1;
      }
      print(io, (await subscriptionView(db.handle.db, values.account))!, shown(token), json);
      return 0;
    }
    if (before.variant !== 'A') throw new UsageError('monitoring plans belong to variant A accounts');
    const { statusToken } = await setSubscription(db.handle.db, values.account, plan as Plan | 'none');
    const after = await subscriptionView(db.handle.db, values.account);
    print(io, after!, shown(statusToken), json);
    return 0;
  } finally {
    await db.close();
  }
}
