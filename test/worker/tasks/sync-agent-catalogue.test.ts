import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { getAgent } from '../../../shared/agent-catalogue/store.ts';
import { RELABEL_TASK } from '../../../shared/agent-traffic/relabel.ts';
import { loadConfig } from '../../../shared/config.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { addJob } from '../../../shared/jobs/queue.ts';
import { startWorker } from '../../../worker/runner.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// The daily sync_agent_catalogue task: the lists of AGENT_CATALOGUE_SOURCES merged by a real
// worker, a failing source logged while the others merge, the relabel run queued on a change.

let db: TestDatabase;
let handle: Db;
let lists: FixtureServer;
before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  lists = await startFixtureServer({
    routes: {
      '/robots.json': (_q, r) =>
        r.end(JSON.stringify({ EmuSearchBot: { operator: 'Emu Search', function: 'AI Search Crawlers' } })),
    },
  });
});
after(async () => {
  await handle.close();
  await db.drop();
  await lists.close();
});

async function runJob(sources: string): Promise<string | null> {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    AGENT_CATALOGUE_SOURCES: sources,
    SCAN_ALLOW_HOSTS: `127.0.0.1:${lists.port}`,
  });
  const worker = await startWorker(config, db.url, { metricsPort: null, crontab: null });
  try {
    const { id } = await addJob(handle.db, 'sync_agent_catalogue', {}, { maxAttempts: 1 });
    for (let i = 0; i < 300; i++) {
      const job = await sql<{ last_error: string | null; attempts: number }>`
        select last_error, attempts from graphile_worker.jobs where id = ${id}`.execute(handle.db);
      if (job.rows.length === 0) return null;
      if (job.rows[0]!.last_error) return job.rows[0]!.last_error;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('sync_agent_catalogue did not finish');
  } finally {
    await worker.close();
  }
}

describe('sync_agent_catalogue', () => {
  it('merges the configured lists, survives a failing one, and queues relabelling', async () => {
    const error = await runJob(`${lists.origin}/robots.json, ${lists.origin}/missing.json`);
    assert.equal(error, null);
    const emu = await getAgent(handle.db, 'EmuSearchBot');
    assert.equal(emu?.origin, 'synced');
    assert.equal(emu?.purpose, 'search');
    // The worker may already have run the queued relabelling: either it waits or it ran.
    const { rows } = await sql<{ n: number }>`select
      (select count(*) from graphile_worker.jobs where task_identifier = ${RELABEL_TASK})
      + (select count(*) from agent_relabel_runs) as n`.execute(handle.db);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('fails (to be retried) when every list fails, and does nothing when none is configured', async () => {
    assert.match((await runJob(`${lists.origin}/missing.json`)) ?? '', /every agent list failed to sync/);
    assert.equal(await runJob(''), null);
  });
});
