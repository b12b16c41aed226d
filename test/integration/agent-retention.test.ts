import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../shared/accounts/accounts.ts';
import {
  createVerifier,
  type IngestRequest,
  ingest,
  requestHash,
} from '../../shared/agent-traffic/ingest.ts';
import { pruneAgentEvents } from '../../shared/agent-traffic/retention.ts';
import { registerSite } from '../../shared/agent-traffic/sites.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// Retention: raw events past the cut-off go (whole month partitions dropped), rollups stay.
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

it('drops month partitions past AGENT_EVENTS_RETENTION_DAYS and keeps the rollups', async () => {
  const { account } = await createAccount(handle.db, {
    email: 'r@example.test',
    variant: 'B',
    tier: 'intelligence',
    plan: null,
    rateLimit: null,
  });
  const { site } = await registerSite(handle.db, {
    accountId: account.id,
    url: 'https://retention.example.com/',
  });
  const verifier = createVerifier({
    AGENT_VERIFY_RDNS: false,
    AGENT_RDNS_TIMEOUT_MS: 100,
    AGENT_RDNS_SERVERS: '',
    SCAN_ALLOW_HOSTS: '',
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
  await ingest(handle.db, site, 'import', [at(120, 1), at(120, 2), at(45, 1), at(5, 1)], verifier);
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
  const again = await ingest(handle.db, site, 'import', [at(120, 3)], verifier);
  assert.equal(again.stored, 1);
});
