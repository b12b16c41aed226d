import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createAccount } from '../shared/accounts/accounts.ts';
import { fanOutDueSites } from '../shared/monitoring/fanout.ts';
import type { FanoutResult } from '../shared/watch/schedule.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { type LoadResult, load, warmUp } from './load.ts';
import { goal, limit } from './stats.ts';

// The monitoring scheduler at scale: 100,000 due sites (4,000 Agency accounts of 25) fanned out
// into monitor_scan jobs, then the API's p99 on the monitoring list while a fan-out of the same
// size runs, against its p99 with the scheduler idle. Each fan-out runs inside a transaction that
// is rolled back at the end: the worker never sees the jobs, so the numbers are the fan-out's own
// cost (not the worker draining 100,000 scans), and every run starts from the same due state.

const SITES = 100_000;
const PER_ACCOUNT = 25;

class Rollback extends Error {}

async function seed(ctx: BenchContext, tag: string): Promise<void> {
  await sql`
    with a as (
      insert into accounts (email, variant, tier)
      select 'bench-fanout-' || ${tag} || '-' || g || '@bench.invalid', 'A', 'free'
        from generate_series(1, ${SITES / PER_ACCOUNT}) g
      returning id
    ), s as (
      insert into subscriptions
        (account_id, plan, site_quota, scan_frequency, prompt_quota, status_token_hash, status_token_prefix)
      select id, 'agency', ${PER_ACCOUNT}, 'daily', 20, sha256(convert_to(${tag} || id::text, 'UTF8')), 'bench0'
        from a
      returning account_id
    )
    insert into monitored_sites (account_id, url, label, site_type, next_scan_due_at)
    select s.account_id, 'https://site-' || s.account_id || '-' || i || '.bench.invalid/', 'bench ' || i, 'own',
           now() - interval '1 minute'
      from s, generate_series(1, ${PER_ACCOUNT}) i`.execute(ctx.db);
}

async function timedFanout(ctx: BenchContext): Promise<FanoutResult & { seconds: number }> {
  let result: FanoutResult | undefined;
  const t0 = performance.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      result = await fanOutDueSites(trx, { batch: ctx.config.MONITOR_FANOUT_BATCH });
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
  return { ...result!, seconds: (performance.now() - t0) / 1000 };
}

const latency = (r: LoadResult) =>
  `p50 ${r.p50} ms, ${Math.round(r.rps)} req/s${r.failures ? `, ${r.failures} failed requests` : ''}`;
const n = (v: number) => Math.round(v).toLocaleString('en-GB');

export async function fanoutSection(ctx: BenchContext): Promise<BenchRow[]> {
  const tag = randomBytes(4).toString('hex');
  ctx.progress(`fanout: seeding ${n(SITES)} monitored sites`);
  await seed(ctx, tag);
  // The caller whose latency we watch: an Agency account listing its (few, never due) sites.
  const { account, key } = await createAccount(ctx.db, {
    email: `bench-fanout-${tag}-caller@bench.invalid`,
    variant: 'A',
    tier: 'agent',
    plan: 'agency',
    rateLimit: 100_000_000,
  });
  await sql`insert into monitored_sites (account_id, url, label, site_type, next_scan_due_at)
            select ${account.id}, 'https://caller.bench.invalid/' || i, 'site ' || i, 'own', now() + interval '1 year'
              from generate_series(1, 5) i`.execute(ctx.db);
  try {
    // As a table that has lived a while would be: visibility map set, statistics current.
    await sql`vacuum analyze monitored_sites`.execute(ctx.db);
    ctx.progress(`fanout: fanning out ${n(SITES)} due sites`);
    const alone = await timedFanout(ctx);
    if (alone.scheduled < SITES) throw new Error(`fan-out scheduled ${alone.scheduled} of ${SITES} sites`);

    const url = `${ctx.api.url}/api/v1/monitor/sites`;
    const headers = { authorization: `Bearer ${key.key}` };
    const connections = ctx.options.connections;
    // The load window covers the whole fan-out: twice as long as it took alone (it slows under
    // load) plus a second to start, so the p99 "during" is measured while it runs.
    const seconds = Math.min(120, Math.max(ctx.options.seconds, Math.ceil(alone.seconds * 2) + 1));
    await warmUp({ url, connections, headers });
    ctx.progress(`fanout: API baseline, ${seconds} s`);
    const idle = await load({ url, seconds, connections, headers });
    ctx.progress(`fanout: API during a fan-out, ${seconds} s`);
    const running = load({ url, seconds, connections, headers });
    await new Promise((r) => setTimeout(r, 500));
    const during = await timedFanout(ctx);
    const busy = await running;

    const ratio = busy.p99 / Math.max(1, idle.p99);
    return [
      {
        measurement: `fan-out of ${n(SITES)} due sites into \`monitor_scan\` jobs`,
        result: `${limit(alone.busyMs / 1000, 5, 's of database time', (v) => v.toFixed(2))}`,
        notes:
          `${alone.batches} statements of ≤ ${n(ctx.config.MONITOR_FANOUT_BATCH)} sites (claim + HOT reschedule + one bulk add_jobs each), ` +
          `${n(SITES / (alone.busyMs / 1000))} sites/s; ${alone.seconds.toFixed(2)} s wall`,
      },
      {
        measurement: 'GET /api/v1/monitor/sites, scheduler idle',
        result: `p99 ${idle.p99} ms`,
        notes: latency(idle),
      },
      {
        measurement: `GET /api/v1/monitor/sites during a ${n(SITES)}-site fan-out`,
        result: `p99 ${busy.p99} ms: ${goal(ratio, 1.5, 'idle p99', 'atMost')}`,
        notes: `${latency(busy)}; the fan-out took ${during.seconds.toFixed(1)} s (${(during.busyMs / 1000).toFixed(2)} s in statements) of the ${seconds} s run`,
      },
    ];
  } finally {
    await sql`delete from accounts where email like ${`bench-fanout-${tag}-%`}`.execute(ctx.db);
  }
}
