import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import { sitePages, siteStats } from '../../../shared/agent-traffic/stats.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { newAgentSite, offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Windowed rollups. Per path (sql/019), a window's counts come from its leading days in
// agent_path_rollups and its whole 8-day blocks in agent_path_blocks; per agent (sql/020), from
// the hours of its first day in agent_rollups and its whole days in agent_daily_rollups. For every
// start across several block and day boundaries they must equal the counts taken from the stored
// events themselves.
let database: TestDatabase;
let handle: Db;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 4 });
});
after(async () => {
  await handle.close();
  await database.drop();
});

const AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
];
const DAYS = 45;
const PATHS = 13;

const utcDay = (offset: number) => {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  return new Date(d.getTime() + offset * 86400_000);
};

it('agent_day_block floors days before 1970 into negative blocks', async () => {
  const { rows } = await sql<{ a: number; b: number; c: number; d: number }>`
    select agent_day_block('1970-01-01') as a, agent_day_block('1970-01-08') as b,
           agent_day_block('1970-01-09') as c, agent_day_block('1969-12-31') as d`.execute(handle.db);
  assert.deepEqual(rows[0], { a: 0, b: 0, c: 1, d: -1 });
});

it('windowed path and agent totals equal the events counted directly, for every start', async () => {
  const site = await newAgentSite(handle.db, 'blocks@example.test', 'https://blocks.example.com/');
  // Uneven counts per day and path, so that rankings differ between windows.
  const requests: IngestRequest[] = [];
  for (let day = 0; day < DAYS; day++)
    for (let p = 0; p < PATHS; p++) {
      const n = (day * 7 + p * p * 3) % 6;
      for (let i = 0; i < n; i++)
        requests.push({
          time: new Date(utcDay(-day).getTime() + (p * 60 + i) * 60_000),
          method: 'GET',
          path: `/p${p}`,
          status: (day + p + i) % 9 === 0 ? 404 : 200,
          ip: '198.51.100.7',
          userAgent: AGENTS[(day + i) % AGENTS.length]!,
          referer: null,
          hash: requestHash(`blocks ${day} ${p} ${i}`),
        });
    }
  for (let i = 0; i < requests.length; i += 500)
    await ingest(handle.db, site, 'import', requests.slice(i, i + 500), verifier, {
      retentionDays: null,
      foldAfter: 10 ** 9,
    });
  await foldPages(handle.db, site.id);

  for (let start = -DAYS - 2; start <= 1; start++) {
    const since = utcDay(start);
    const expected = await sql<{ path: string; visits: string; errors: string; not_found: string }>`
      select path, count(*)::bigint as visits, count(*) filter (where status >= 400)::bigint as errors,
        count(*) filter (where status = 404)::bigint as not_found
      from agent_events where site_id = ${site.id} and time >= ${since.toISOString()}::timestamptz
      group by path order by path`.execute(handle.db);
    const got = await sql<{ path: string; visits: string; errors: string; not_found: string }>`
      select path, visits, errors, not_found from agent_path_totals(${site.id}, ${since.toISOString().slice(0, 10)}::date)
      order by path`.execute(handle.db);
    assert.deepEqual(got.rows, expected.rows, `window from ${since.toISOString().slice(0, 10)}`);
  }

  // Per UTC day, platform, agent, type and verification, from a start hour on.
  for (let start = -DAYS - 1; start <= 0; start += 3)
    for (const hour of [0, 5, 13, 23]) {
      const since = new Date(utcDay(start).getTime() + hour * 3600_000 + 17 * 60_000); // within the hour
      const expected = await sql`
        select to_char(time at time zone 'UTC', 'YYYY-MM-DD') as day, platform, agent, type, verification,
          count(*)::bigint as visits, count(*) filter (where status >= 400)::bigint as errors,
          min(time) as first_at, max(time) as last_at
        from agent_events where site_id = ${site.id} and time >= date_trunc('hour', ${since.toISOString()}::timestamptz)
        group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`.execute(handle.db);
      const got = await sql`
        select to_char(day, 'YYYY-MM-DD') as day, platform, agent, type, verification, visits, errors, first_at, last_at
        from agent_rollup_days(${site.id}, ${since.toISOString()}::timestamptz) order by 1, 2, 3, 4, 5`.execute(
        handle.db,
      );
      assert.deepEqual(got.rows, expected.rows, `window from ${since.toISOString()}`);
    }

  // The endpoints' rankings over the same totals.
  for (const start of [-7, -30, -44]) {
    const w = { since: utcDay(start), until: new Date() };
    const ranked = await sql<{ path: string; visits: string }>`
      select path, count(*)::bigint as visits from agent_events
      where site_id = ${site.id} and time >= ${w.since.toISOString()}::timestamptz
      group by path order by visits desc, path`.execute(handle.db);
    const stats = await siteStats(handle.db, site, w);
    assert.deepEqual(
      stats.topPages.map((p: { path: string; visits: number }) => [p.path, p.visits]),
      ranked.rows.slice(0, 10).map((r) => [r.path, Number(r.visits)]),
    );
    const pages = await sitePages(handle.db, site, w, 5);
    assert.deepEqual(
      pages.pages.map((p: { path: string; visits: number }) => [p.path, p.visits]),
      ranked.rows.slice(0, 5).map((r) => [r.path, Number(r.visits)]),
    );
  }
});
