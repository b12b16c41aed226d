import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import Koa from 'koa';
import { sql } from 'kysely';
import type { BenchContext, BenchRow } from './context.ts';
import { type LoadResult, load, warmUp } from './load.ts';
import { goal, limit, perSecond } from './stats.ts';

// The API's fixed cost per request: /api/v1/status against a bare Koa app answering the same kind
// of JSON in this process, then an authenticated, rate-limited endpoint (key look-up and the
// rolling-hour count in one statement per call, shared by the calls in flight together).

/**
 * A bare Koa app in this process: a hello-world, or (`same`) one answering exactly the bytes a
 * /api/v1/status answer has (its body and its X-Request-Id and X-RateLimit-* headers), which
 * separates what our middleware costs from what a longer answer costs the load generator.
 */
async function helloWorld(same?: {
  body: string;
  headers: Record<string, string>;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    if (!same) {
      ctx.body = { status: 'operational' };
      return;
    }
    ctx.set('X-Request-Id', randomUUID());
    for (const [name, value] of Object.entries(same.headers)) ctx.set(name, value);
    ctx.type = 'application/json';
    ctx.body = same.body;
  });
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const failures = (r: LoadResult) => (r.failures ? `${r.failures} failed requests` : '');
const latency = (r: LoadResult) => `p50 ${r.p50} ms, p99 ${r.p99} ms`;

/**
 * rate_limit_take's cost per call with 0, 10,000 and 50,000 hits already in the bucket's rolling
 * hour (hits inserted in bulk, the bucket's stored count set to match), next to `select 1`: the
 * same connection, 300 sequential calls each after 20 warm-up calls, the mean in milliseconds.
 * Three rounds over the four, alternating, the best round of each kept: other load on a shared
 * machine then hurts less than in one pass (in which the first case measured also warmed the
 * pool's connection and the function's plans).
 */
async function limiterCost(ctx: BenchContext): Promise<BenchRow[]> {
  const per = async (query: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await query();
    const t0 = performance.now();
    for (let i = 0; i < 300; i++) await query();
    return (performance.now() - t0) / 300;
  };
  const cases = [0, 10_000, 50_000].map((hits) => ({ hits, bucket: `bench:limiter:${process.pid}:${hits}` }));
  for (const { hits, bucket } of cases) {
    // As the limiter stores them (sql/functions/rate-limits.sql): 20 a second, one row per second, the last one a
    // second ago (the same hits as one every 50 ms).
    await sql`insert into rate_limit_seconds (bucket, second, hits)
      select ${bucket}, date_trunc('second', now()) - g * interval '1 second', 20
        from generate_series(1, ${hits / 20}) g`.execute(ctx.db);
    await sql`insert into rate_limit_buckets (bucket, hits) values (${bucket}, ${hits})
      on conflict (bucket) do update set hits = excluded.hits`.execute(ctx.db);
  }
  let floor = Number.POSITIVE_INFINITY;
  const cost = cases.map(() => Number.POSITIVE_INFINITY);
  for (let round = 1; round <= 3; round++) {
    ctx.progress(`http: rate_limit_take at 0, 10,000 and 50,000 hits in the bucket, round ${round} of 3`);
    floor = Math.min(floor, await per(() => sql`select 1`.execute(ctx.db)));
    for (const [i, { bucket }] of cases.entries()) {
      // The calls' own hits (320 a round, 960 in all) add little to each bucket's count.
      const mean = await per(() =>
        sql`select * from rate_limit_take(${bucket}, 100000000, interval '1 hour')`.execute(ctx.db),
      );
      cost[i] = Math.min(cost[i]!, mean);
    }
  }
  return cases.map(({ hits }, i) => ({
    measurement: `rate limiter cost per call (rate_limit_take), ${hits.toLocaleString('en-GB')} hits in the bucket's hour`,
    result: limit(cost[i]!, 1, 'ms', (v) => v.toFixed(3)),
    notes:
      `\`select 1\` on the same pool: ${floor.toFixed(3)} ms, so ${(cost[i]! - floor).toFixed(3)} ms above it; ` +
      '300 sequential calls, best of 3 alternating rounds',
  }));
}

export async function httpSection(ctx: BenchContext): Promise<BenchRow[]> {
  const { seconds, connections } = ctx.options;
  const status = `${ctx.api.url}/api/v1/status`;
  const sample = await fetch(status);
  const rateHeaders = Object.fromEntries(
    ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => [
      h,
      sample.headers.get(h) ?? '',
    ]),
  );
  const hello = await helloWorld();
  const sameBytes = await helloWorld({ body: await sample.text(), headers: rateHeaders });
  try {
    await warmUp({ url: hello.url, connections });
    await warmUp({ url: sameBytes.url, connections });
    await warmUp({ url: status, connections });
    // Alternate the two targets and keep each one's best run: other load on a shared machine
    // then hurts the ratio less than a single back-to-back pair would.
    const bare: LoadResult[] = [];
    const same: LoadResult[] = [];
    const ours: LoadResult[] = [];
    for (let round = 0; round < 2; round++) {
      ctx.progress(`http: bare Koa, round ${round + 1}`);
      bare.push(await load({ url: hello.url, seconds: seconds / 2, connections }));
      ctx.progress(`http: bare Koa with /status's bytes, round ${round + 1}`);
      same.push(await load({ url: sameBytes.url, seconds: seconds / 2, connections }));
      ctx.progress(`http: /api/v1/status, round ${round + 1}`);
      ours.push(await load({ url: status, seconds: seconds / 2, connections }));
    }
    const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const b = best(bare);
    const m = best(same);
    const s = best(ours);

    // A limit no run can reach, so every call does the full rate-limit work and none is refused.
    const account = `${ctx.api.url}/api/v1/account`;
    await warmUp({ url: account, connections, headers: auth(await ctx.newKey('A', 'agent', 100_000_000)) });
    const headers = auth(await ctx.newKey('A', 'agent', 100_000_000));
    ctx.progress('http: /api/v1/account, fresh key');
    const fresh = await load({ url: account, seconds, connections, headers });
    ctx.progress(`http: /api/v1/account, key already holding ${fresh.requests} calls`);
    const busy = await load({ url: account, seconds, connections, headers });
    // Calls for one key queue on that key's bucket lock; spread over keys they do not.
    const keys = await Promise.all(Array.from({ length: 10 }, () => ctx.newKey('A', 'agent', 100_000_000)));
    ctx.progress('http: /api/v1/account, calls spread over 10 keys');
    const spread = await load({
      url: account,
      seconds,
      connections,
      requests: keys.map((k) => ({ path: '/api/v1/account', headers: auth(k) })),
    });

    const limiter = await limiterCost(ctx);
    return [
      ...limiter,
      { measurement: 'bare Koa hello-world (same process)', result: perSecond(b.rps), notes: latency(b) },
      {
        measurement: "bare Koa answering /api/v1/status's bytes (same body and headers)",
        result: perSecond(m.rps),
        notes: `${(m.rps / b.rps).toFixed(2)}× the hello-world: the longer answer's own cost; ${latency(m)}`,
      },
      {
        measurement: 'GET /api/v1/status (public, no key)',
        result: perSecond(s.rps),
        notes: [
          goal(s.rps / b.rps, 0.5, 'bare Koa'),
          `${(s.rps / m.rps).toFixed(2)}× bare Koa with the same bytes`,
          latency(s),
          failures(s),
        ]
          .filter(Boolean)
          .join('; '),
      },
      {
        measurement: 'GET /api/v1/account (key, rate-limited), fresh key',
        result: perSecond(fresh.rps),
        notes: [goal(fresh.rps / s.rps, 0.25, '/api/v1/status'), latency(fresh), failures(fresh)]
          .filter(Boolean)
          .join('; '),
      },
      {
        measurement: `GET /api/v1/account, same key with ${fresh.requests.toLocaleString('en-GB')} calls in its hour`,
        result: perSecond(busy.rps),
        notes: [latency(busy), failures(busy)].filter(Boolean).join('; '),
      },
      {
        measurement: 'GET /api/v1/account, calls spread over 10 fresh keys',
        result: perSecond(spread.rps),
        notes: [latency(spread), failures(spread)].filter(Boolean).join('; '),
      },
    ];
  } finally {
    await hello.close();
    await sameBytes.close();
  }
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
