import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { registerSite } from '../shared/agent-sites/sites.ts';
import type { ImportSummary } from '../shared/agent-traffic/import.ts';
import { writeLog } from '../test/helpers/access-log-gen.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { atLeast, goal, limit, ms, summarise } from './stats.ts';

const SIGHTLINE = fileURLToPath(new URL('../bin/sightline.js', import.meta.url));

// Agent traffic (B): collect ingestion over 1,000,000 events (1,000 batches of 1,000 agent
// requests, 4 in flight, their bodies built before the clock starts) through the real API; log
// import by the CLI (its peak RSS) of a generated 1,000,000-line combined log (35% agents, a fifth
// of them needing reverse DNS), with GET /stats of the importing site every 200 ms during the
// import against the same after it; and the statistics endpoints over a site with 10,000,000 events (inserted
// in bulk by SQL with rollups built from them exactly as ingestion keeps them), p50/p99 of 200
// sequential calls each. Sizes: BENCH_COLLECT_EVENTS, BENCH_IMPORT_LINES, BENCH_STATS_EVENTS.

const COLLECT_EVENTS = Number(process.env.BENCH_COLLECT_EVENTS ?? 1_000_000);
const IMPORT_LINES = Number(process.env.BENCH_IMPORT_LINES ?? 1_000_000);
const STATS_EVENTS = Number(process.env.BENCH_STATS_EVENTS ?? 10_000_000);
const CALLS = 200;

const AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
];

async function collect(ctx: BenchContext, key: string, trackingId: string): Promise<BenchRow> {
  const batches = Math.ceil(COLLECT_EVENTS / 1000);
  const base = Date.now() - 3 * 86400_000;
  const body = (b: number) => {
    const items: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const n = b * 1000 + i;
      items.push(
        `{"time":${base + n * 50},"method":"GET","path":"/docs/${n % 2000}","status":200,"ip":"198.51.100.${n % 250}","user_agent":${JSON.stringify(AGENTS[n % AGENTS.length])}}`,
      );
    }
    return `{"site":"${trackingId}","requests":[${items.join(',')}]}`;
  };
  // The bodies are built (and encoded) before the clock starts: building them took the client
  // 1.3-1.8 µs of the process's CPU an event, and the API shares this process with the client,
  // so the row measured part of the client as the service's throughput.
  ctx.progress(`collect: building ${batches} bodies`);
  const bodies = Array.from({ length: batches }, (_, b) => Buffer.from(body(b)));
  let next = 0;
  let stored = 0;
  const started = performance.now();
  const lanes = Array.from({ length: 4 }, async () => {
    for (;;) {
      const b = next++;
      if (b >= batches) return;
      const res = await fetch(`${ctx.api.url}/api/v1/collect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: bodies[b],
      });
      const json = (await res.json()) as { stored?: number };
      if (res.status !== 202) throw new Error(`collect answered ${res.status}: ${JSON.stringify(json)}`);
      stored += json.stored ?? 0;
      if (b % 100 === 0) ctx.progress(`collect: ${b}/${batches} batches`);
    }
  });
  await Promise.all(lanes);
  const secs = (performance.now() - started) / 1000;
  return {
    measurement: `POST /api/v1/collect, ${stored.toLocaleString('en-GB')} events (batches of 1,000, 4 in flight)`,
    result: atLeast(stored / secs, 50_000, 'events/s'),
    notes: `${secs.toFixed(1)} s; ${SETTINGS(ctx)}`,
  };
}

/** Peak resident set of a live process (Linux /proc), in MiB; 0 when unknown. */
function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a live process has used so far (Linux /proc); 0 when unknown. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/**
 * `sightline logs import --json` in a child process, as an operator runs it: its summary, peak RSS
 * and CPU time (the last sample before it exits: within 100 ms of its end).
 */
async function cliImport(ctx: BenchContext, siteId: string, file: string) {
  const child = spawn(process.execPath, [SIGHTLINE, 'logs', 'import', '--site', siteId, '--json', file], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      AGENT_VERIFY_RDNS: String(ctx.config.AGENT_VERIFY_RDNS),
      AGENT_RDNS_SERVERS: ctx.config.AGENT_RDNS_SERVERS,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  let peak = 0;
  let cpu = 0;
  const watch = setInterval(() => {
    peak = Math.max(peak, peakRssMiB(child.pid!));
    cpu = Math.max(cpu, cpuSeconds(child.pid!));
  }, 100);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearInterval(watch);
  if (code !== 0) throw new Error(`logs import exited ${code}: ${err.slice(-2000)}`);
  return { summary: JSON.parse(out) as ImportSummary, peakRss: peak, cpu };
}

/** GET url every `everyMs` (sequentially) until `done()`, or `count` calls: the latencies. */
async function sample(
  url: string,
  key: string,
  everyMs: number,
  until: { done?: () => boolean; count?: number },
) {
  const samples: number[] = [];
  while (until.done ? !until.done() : samples.length < (until.count ?? 0)) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    const took = performance.now() - t;
    samples.push(took);
    await new Promise((r) => setTimeout(r, Math.max(0, everyMs - took)));
  }
  return summarise(samples);
}

const SETTINGS = (ctx: BenchContext) =>
  `AGENT_VERIFY_RDNS=${ctx.config.AGENT_VERIFY_RDNS}, resolver ${ctx.config.AGENT_RDNS_SERVERS || 'system'} (loopback, never answers), AGENT_RDNS_TIMEOUT_MS=${ctx.config.AGENT_RDNS_TIMEOUT_MS}`;

async function importRows(ctx: BenchContext, key: string, accountId: string): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-logs-'));
  try {
    const file = path.join(dir, 'access.log');
    ctx.progress(`writing a ${IMPORT_LINES.toLocaleString('en-GB')}-line combined log`);
    await writeLog(file, 'combined', { lines: IMPORT_LINES, days: 30, rdns: true });
    const { site } = await registerSite(ctx.db, { accountId, url: 'https://bench-import.example.com/' });
    const stats = `${ctx.api.url}/api/v1/sites/${site.id}/stats`;
    ctx.progress('importing it (sightline logs import), GET /stats every 200 ms meanwhile');
    let importing = true;
    const during = sample(stats, key, 200, { done: () => !importing });
    const first = await cliImport(ctx, site.id, file).finally(() => {
      importing = false;
    });
    const busy = await during;
    ctx.progress('GET /stats every 200 ms, idle');
    const idle = await sample(stats, key, 200, { count: 100 });
    const again = await cliImport(ctx, site.id, file);
    const s = first.summary;
    return [
      {
        measurement: `logs import (CLI), ${s.lines.toLocaleString('en-GB')}-line combined log (${s.agents.toLocaleString('en-GB')} agent lines, ${s.pendingVerification.toLocaleString('en-GB')} needing reverse DNS)`,
        result: atLeast(s.lines / s.seconds, 100_000, 'lines/s'),
        notes: `${s.seconds} s; CLI process: peak RSS ${Math.round(first.peakRss)} MiB, CPU ${first.cpu.toFixed(1)} s (${((first.cpu * 1e6) / s.lines).toFixed(1)} µs a line, start-up included); again (all already stored): ${atLeast(again.summary.lines / again.summary.seconds, 100_000, 'lines/s')}, ${again.summary.stored} new; ${SETTINGS(ctx)}`,
      },
      {
        measurement: 'GET /sites/:id/stats of the importing site, every 200 ms during that import',
        result: `p99 ${goal(busy.p99 / idle.p99, 2, 'idle p99', 'atMost')}`,
        notes: `during: p50 ${ms(busy.p50)}, p99 ${ms(busy.p99)}; idle (after it, 100 calls): p50 ${ms(idle.p50)}, p99 ${ms(idle.p99)}`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** STATS_EVENTS events over 90 days, 2,000 paths, six agents; rollups built from them. */
async function bigSite(ctx: BenchContext, accountId: string) {
  const { site } = await registerSite(ctx.db, { accountId, url: 'https://bench-stats.example.com/' });
  const days = 90;
  for (let m = 0; m < 4; m++)
    await sql`select agent_events_partition(now() - make_interval(days => ${m * 30}))`.execute(ctx.db);
  const chunk = 1_000_000;
  for (let off = 0; off < STATS_EVENTS; off += chunk) {
    const n = Math.min(chunk, STATS_EVENTS - off);
    ctx.progress(`stats site: events ${off.toLocaleString('en-GB')}..${(off + n).toLocaleString('en-GB')}`);
    await sql`
      insert into agent_events (site_id, time, hash, source, method, path, status, ip, user_agent, platform, agent, type, verification, confidence)
      select ${site.id}::bigint,
        now() - make_interval(secs => (${days} * 86400.0 * (g::float8 / ${STATS_EVENTS}))),
        decode(md5(g::text), 'hex'), 'import', 'GET', '/docs/' || (g * 7919 % 2000), case when g % 20 = 0 then 404 else 200 end,
        ('198.51.100.' || (g % 250))::inet, a.ua, a.platform, a.agent, a.type,
        case when g % 10 = 0 then 'spoofed' when g % 3 = 0 then 'none' else 'ip' end, 0.9
      from generate_series(${off}::bigint, ${off + n - 1}::bigint) g
      join (values (0, 'GPTBot', 'OpenAI', 'training', 'GPTBot/1.2'), (1, 'ClaudeBot', 'Anthropic', 'training', 'ClaudeBot/1.0'),
                   (2, 'PerplexityBot', 'Perplexity', 'search', 'PerplexityBot/1.0'), (3, 'Googlebot', 'Google', 'search', 'Googlebot/2.1'),
                   (4, 'CCBot', 'Common Crawl', 'training', 'CCBot/2.0'), (5, 'ChatGPT-User', 'OpenAI', 'browse', 'ChatGPT-User/1.0'))
        as a(k, agent, platform, type, ua) on a.k = g % 6`.execute(ctx.db);
  }
  ctx.progress('stats site: rollups');
  await sql`
    insert into agent_rollups (site_id, hour, platform, agent, type, verification, visits, errors, first_at, last_at)
    select site_id, date_trunc('hour', time), platform, agent, type, verification, count(*), count(*) filter (where status >= 400), min(time), max(time)
    from agent_events where site_id = ${site.id} group by 1, 2, 3, 4, 5, 6`.execute(ctx.db);
  await sql`
    insert into agent_daily_rollups (site_id, day, platform, agent, type, verification, visits, errors, first_at, last_at)
    select site_id, (hour at time zone 'UTC')::date, platform, agent, type, verification, sum(visits), sum(errors), min(first_at), max(last_at)
    from agent_rollups where site_id = ${site.id} group by 1, 2, 3, 4, 5, 6`.execute(ctx.db);
  await sql`
    insert into agent_page_rollups (site_id, day, path, platform, visits, errors, not_found)
    select site_id, (time at time zone 'UTC')::date, path, platform, count(*), count(*) filter (where status >= 400), count(*) filter (where status = 404)
    from agent_events where site_id = ${site.id} group by 1, 2, 3, 4`.execute(ctx.db);
  await sql`
    insert into agent_path_rollups (site_id, day, path, visits, errors, not_found)
    select site_id, day, path, sum(visits), sum(errors), sum(not_found) from agent_page_rollups where site_id = ${site.id} group by 1, 2, 3`.execute(
    ctx.db,
  );
  await sql`
    insert into agent_path_blocks (site_id, block, path, visits, errors, not_found)
    select site_id, agent_day_block(day), path, sum(visits), sum(errors), sum(not_found) from agent_path_rollups where site_id = ${site.id} group by 1, 2, 3`.execute(
    ctx.db,
  );
  await sql`analyze agent_path_rollups`.execute(ctx.db);
  await sql`analyze agent_path_blocks`.execute(ctx.db);
  await sql`analyze agent_events`.execute(ctx.db);
  await sql`analyze agent_rollups`.execute(ctx.db);
  await sql`analyze agent_daily_rollups`.execute(ctx.db);
  await sql`analyze agent_page_rollups`.execute(ctx.db);
  return site;
}

async function timeCalls(url: string, key: string, next?: (body: { nextCursor?: string | null }) => string) {
  const samples: number[] = [];
  let target = url;
  for (let i = 0; i < CALLS + 10; i++) {
    const t = performance.now();
    const res = await fetch(target, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { nextCursor?: string | null };
    if (res.status !== 200) throw new Error(`${target} answered ${res.status}: ${JSON.stringify(body)}`);
    if (i >= 10) samples.push(performance.now() - t); // 10 warm-up calls
    if (next) target = next(body);
  }
  return summarise(samples);
}

export async function agentTrafficSection(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const key = await ctx.newKey('B', 'optimisation', 100_000_000);
  const accountId = String(
    (
      (await (
        await fetch(`${ctx.api.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { id: number }
    ).id,
  );
  const { site, ingestToken } = await registerSite(ctx.db, {
    accountId,
    url: 'https://bench-collect.example.com/',
  });
  ctx.progress(`collect: ${COLLECT_EVENTS.toLocaleString('en-GB')} events`);
  rows.push(await collect(ctx, ingestToken, site.tracking_id));
  rows.push(...(await importRows(ctx, key, accountId)));

  ctx.progress(`stats site with ${STATS_EVENTS.toLocaleString('en-GB')} events`);
  const big = await bigSite(ctx, accountId);
  const base = `${ctx.api.url}/api/v1/sites/${big.id}`;
  for (const [name, url] of [
    ['stats', `${base}/stats`],
    ['agents', `${base}/agents`],
    ['pages', `${base}/pages`],
    ['stats, 90-day window', `${base}/stats?since=${new Date(Date.now() - 90 * 86400_000).toISOString()}`],
  ] as const) {
    const s = await timeCalls(url, key);
    rows.push({
      measurement: `GET /sites/:id/${name} (${STATS_EVENTS.toLocaleString('en-GB')} events)`,
      result: `p99 ${limit(s.p99, 100, 'ms', (v) => ms(v).replace(' ms', ''))}`,
      notes: `p50 ${ms(s.p50)}; ${CALLS} sequential calls`,
    });
  }
  const ev = await timeCalls(`${base}/events?limit=100`, key, (b) =>
    b.nextCursor ? `${base}/events?limit=100&cursor=${b.nextCursor}` : `${base}/events?limit=100`,
  );
  rows.push({
    measurement: `GET /sites/:id/events, 100 per page, following nextCursor (${STATS_EVENTS.toLocaleString('en-GB')} events)`,
    result: `p99 ${limit(ev.p99, 50, 'ms', (v) => ms(v).replace(' ms', ''))}`,
    notes: `p50 ${ms(ev.p50)}; ${CALLS} sequential pages`,
  });
  return rows;
}
