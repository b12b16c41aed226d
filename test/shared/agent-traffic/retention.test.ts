import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import { pruneAgentEvents } from '../../../shared/agent-traffic/retention.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { newAgentSite, offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Retention: raw events past the cut-off go (whole month partitions dropped), rollups stay, and
// ingest refuses requests past the cut-off (they would be counted again).
let database: TestDatabase;
let handle: Db;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
});
after(async () => {
  await handle.close();
  await database.drop();
});

const at = (daysAgo: number, i: number): IngestRequest => ({
  time: new Date(Date.now() - daysAgo * 86400_000),
  method: 'GET',
  path: '/',
  status: 200,
  ip: '198.51.100.1',
  userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
  referer: null,
  hash: requestHash(`r${daysAgo} ${i}`),
});

const rawEvents = async (siteId: string) =>
  (await handle.db.selectFrom('agent_events').select('time').where('site_id', '=', siteId).execute()).length;
const sum = async (siteId: string, table: 'agent_rollups' | 'agent_daily_rollups' | 'agent_path_rollups') => {
  await foldPages(handle.db, siteId);
  const rows = await handle.db.selectFrom(table).select('visits').where('site_id', '=', siteId).execute();
  return rows.reduce((n, r) => n + Number(r.visits), 0);
};

it('drops month partitions past AGENT_EVENTS_RETENTION_DAYS and keeps the rollups', async () => {
  const site = await newAgentSite(handle.db, 'r@example.test', 'https://retention.example.com/');
  await ingest(handle.db, site, 'import', [at(120, 1), at(120, 2), at(45, 1), at(5, 1)], verifier, {
    retentionDays: null,
  });
  const partitions = async () =>
    (
      await sql<{
        n: string;
      }>`select count(*) as n from pg_inherits where inhparent = 'agent_events'::regclass`.execute(handle.db)
    ).rows[0]!.n;
  const before = Number(await partitions());
  assert.ok(before >= 3);
  const r = await pruneAgentEvents(handle.db, 30);
  assert.ok(r.droppedPartitions.length >= 1, JSON.stringify(r));
  const left = await handle.db
    .selectFrom('agent_events')
    .select('time')
    .where('site_id', '=', site.id)
    .execute();
  assert.equal(left.length, 1);
  const rollups = await handle.db
    .selectFrom('agent_rollups')
    .select('visits')
    .where('site_id', '=', site.id)
    .execute();
  assert.equal(
    rollups.reduce((n, x) => n + Number(x.visits), 0),
    4,
    'rollups are kept',
  );
  // Ingest into a dropped month again recreates its partition.
  const again = await ingest(handle.db, site, 'import', [at(120, 3)], verifier, { retentionDays: null });
  assert.equal(again.stored, 1);
});

it('drops reverse-DNS verdicts a week old (reused for a day, retried within one)', async () => {
  await sql`
    insert into agent_rdns_checks (agent, ip, platform, verdict, checked_at) values
      ('Googlebot', '192.0.2.1', 'Google', 'spoofed', now() - interval '8 days'),
      ('Googlebot', '192.0.2.2', 'Google', 'rdns', now() - interval '2 days')`.execute(handle.db);
  const r = await pruneAgentEvents(handle.db, 30);
  assert.equal(r.deletedRdnsChecks, 1);
  const { rows } = await sql<{ ip: string }>`select host(ip) as ip from agent_rdns_checks`.execute(handle.db);
  assert.deepEqual(rows, [{ ip: '192.0.2.2' }]);
});

it('neither stores nor rolls up a request past the cut-off: its raw row, what dedupes it, may be gone', async () => {
  const site = await newAgentSite(handle.db, 'expired@example.test', 'https://expired.example.com/');
  const old = at(45, 9);
  // Stored while it was inside the window, then pruned: the rollups keep it, the raw row goes.
  assert.equal((await ingest(handle.db, site, 'import', [old], verifier, { retentionDays: null })).stored, 1);
  await pruneAgentEvents(handle.db, 30);
  assert.equal(await rawEvents(site.id), 0);
  const rollups = async () => [
    await sum(site.id, 'agent_rollups'),
    await sum(site.id, 'agent_daily_rollups'),
    await sum(site.id, 'agent_path_rollups'),
  ];
  assert.deepEqual(await rollups(), [1, 1, 1]);

  // The same log line imported again (retention 30 days): past the cut-off, so counted as expired.
  const again = await ingest(handle.db, site, 'import', [old], verifier, { retentionDays: 30 });
  assert.deepEqual(
    { stored: again.stored, duplicates: again.duplicates, agents: again.agents, expired: again.expired },
    { stored: 0, duplicates: 0, agents: 0, expired: 1 },
  );
  assert.equal(await rawEvents(site.id), 0);
  assert.deepEqual(await rollups(), [1, 1, 1], 'the rollups count it once');

  // A request inside the window is still stored.
  const fresh = await ingest(handle.db, site, 'import', [old, at(29, 9)], verifier, { retentionDays: 30 });
  assert.equal(fresh.stored, 1);
  assert.equal(fresh.expired, 1);
  assert.equal(await rawEvents(site.id), 1);
  assert.deepEqual(await rollups(), [2, 2, 2]);
});

it('makes a new month partition once when several processes ingest its first batches together', async () => {
  // Each handle stands for a process (its own pool and its own record of the months it made).
  // agent_events_partition's look-up under its lock could miss a table another session had just
  // committed and fail with 42P07: an HTTP 500 from POST /api/v1/collect at the start of a month.
  const site = await newAgentSite(handle.db, 'months@example.test', 'https://months.example.com/');
  const processes = Array.from({ length: 4 }, () => createDb(database.url, { max: 2 }));
  try {
    // Months long past: no other test has made their partitions.
    for (let month = 0; month < 4; month++) {
      const time = new Date(Date.UTC(2001, month, 10));
      const batches = processes.flatMap((p, i) =>
        [0, 1].map((j) =>
          ingest(
            p.db,
            site,
            'import',
            [
              {
                time,
                method: 'GET',
                path: `/m${month}/${i}/${j}`,
                status: 200,
                ip: '198.51.100.1',
                userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
                referer: null,
                hash: requestHash(`month ${month} ${i} ${j}`),
              },
            ],
            verifier,
            { retentionDays: null }, // months long past
          ),
        ),
      );
      const counts = await Promise.all(batches);
      assert.deepEqual(
        counts.map((c) => c.stored),
        Array(8).fill(1),
      );
    }
  } finally {
    for (const p of processes) await p.close();
  }
});
