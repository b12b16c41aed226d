import type http from 'node:http';
import Koa from 'koa';
import type { BenchContext, BenchRow } from './context.ts';
import { type LoadResult, load, warmUp } from './load.ts';
import { goal, perSecond } from './stats.ts';

// The API's fixed cost per request: /api/v1/status against a bare Koa app answering the same kind
// of JSON in this process, then an authenticated, rate-limited endpoint (key look-up plus the
// rolling-hour count and insert in Postgres on every call).

async function helloWorld(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { status: 'operational' };
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

export async function httpSection(ctx: BenchContext): Promise<BenchRow[]> {
  const { seconds, connections } = ctx.options;
  const hello = await helloWorld();
  try {
    const status = `${ctx.api.url}/api/v1/status`;
    await warmUp({ url: hello.url, connections });
    await warmUp({ url: status, connections });
    // Alternate the two targets and keep each one's best run: other load on a shared machine
    // then hurts the ratio less than a single back-to-back pair would.
    const bare: LoadResult[] = [];
    const ours: LoadResult[] = [];
    for (let round = 0; round < 2; round++) {
      ctx.progress(`http: bare Koa, round ${round + 1}`);
      bare.push(await load({ url: hello.url, seconds: seconds / 2, connections }));
      ctx.progress(`http: /api/v1/status, round ${round + 1}`);
      ours.push(await load({ url: status, seconds: seconds / 2, connections }));
    }
    const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
    const b = best(bare);
    const s = best(ours);

    // A limit no run can reach, so every call does the full rate-limit work and none is refused.
    const account = `${ctx.api.url}/api/v1/account`;
    await warmUp({ url: account, connections, headers: auth(await ctx.newKey('A', 'agent', 100_000_000)) });
    const headers = auth(await ctx.newKey('A', 'agent', 100_000_000));
    ctx.progress('http: /api/v1/account, fresh key');
    const fresh = await load({ url: account, seconds, connections, headers });
    ctx.progress(`http: /api/v1/account, key already holding ${fresh.requests} calls`);
    const busy = await load({ url: account, seconds, connections, headers });
    // Calls for one key queue on that key's lock in rate_limit_take; spread over keys they do not.
    const keys = await Promise.all(Array.from({ length: 10 }, () => ctx.newKey('A', 'agent', 100_000_000)));
    ctx.progress('http: /api/v1/account, calls spread over 10 keys');
    const spread = await load({
      url: account,
      seconds,
      connections,
      requests: keys.map((k) => ({ path: '/api/v1/account', headers: auth(k) })),
    });

    return [
      { measurement: 'bare Koa hello-world (same process)', result: perSecond(b.rps), notes: latency(b) },
      {
        measurement: 'GET /api/v1/status (public, no key)',
        result: perSecond(s.rps),
        notes: [goal(s.rps / b.rps, 0.7, 'bare Koa'), latency(s), failures(s)].filter(Boolean).join('; '),
      },
      {
        measurement: 'GET /api/v1/account (key, rate-limited), fresh key',
        result: perSecond(fresh.rps),
        notes: [goal(fresh.rps / s.rps, 0.5, '/api/v1/status'), latency(fresh), failures(fresh)]
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
  }
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
