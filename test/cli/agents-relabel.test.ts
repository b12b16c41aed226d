import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { relabelCommand } from '../../cli/commands/agents-relabel.ts';
import { ingest, requestHash } from '../../shared/agent-traffic/ingest.ts';
import { RELABEL_TASK } from '../../shared/agent-traffic/relabel.ts';
import { loadConfig, resetConfig } from '../../shared/config.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { addJob } from '../../shared/jobs/queue.ts';
import { startWorker } from '../../worker/runner.ts';
import { newAgentSite, offlineVerifier } from '../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// `sightline agents relabel`: queues the job, follows a worker's run with --wait, runs it in the
// process with --here; progress is events done / total, and the summary says what changed.

let database: TestDatabase;
let handle: Db;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  process.env.DATABASE_URL = database.url;
  resetConfig();
  const site = await newAgentSite(handle.db, 'relabel-cli@example.test', 'https://relabel-cli.example.com/');
  const batch = Array.from({ length: 20 }, (_, i) => ({
    time: new Date(Date.now() - (i % 3) * 86_400_000 - 60_000),
    method: 'GET',
    path: '/',
    status: 200,
    ip: '198.51.100.9',
    userAgent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    referer: null,
    hash: requestHash(`cli ${i}`),
  }));
  await ingest(handle.db, site, 'collect', batch, offlineVerifier, { retentionDays: null });
  // A stale label, as an older catalogue would have stored it.
  await sql`update agent_events set agent = '', platform = 'Other' where site_id = ${site.id}::bigint`.execute(
    handle.db,
  );
});
after(async () => {
  delete process.env.DATABASE_URL;
  resetConfig();
  await handle.close();
  await database.drop();
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

describe('sightline agents relabel', () => {
  it('queues the job; --wait follows the run a real worker makes to its summary', async () => {
    const queued = io();
    assert.equal(await relabelCommand([], queued.io), 0);
    assert.match(queued.out.join('\n'), /relabel queued \(job \d+\)/);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier = ${RELABEL_TASK}`.execute(
      handle.db,
    );
    assert.equal(rows[0]?.n, 1);

    // --wait queues again (replacing the queued job, one job still) and follows the run a real
    // worker, started after it, makes.
    const waiting = io();
    const command = relabelCommand(['--wait'], waiting.io);
    await new Promise((r) => setTimeout(r, 300));
    const worker = await startWorker(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), database.url, {
      metricsPort: null,
      crontab: null,
    });
    try {
      assert.equal(await command, 0);
    } finally {
      await worker.close();
    }
    assert.match(waiting.out.join('\n'), /^relabel run \d+ done: 20 \/ 20 events \(100%\), 20 relabelled$/);
  });

  it('--here runs it in the process: nothing left to change; --json gives the summary', async () => {
    const here = io();
    assert.equal(await relabelCommand(['--here', '--json'], here.io), 0);
    const summary = JSON.parse(here.out.join('\n'));
    assert.equal(summary.finished, true);
    assert.equal(summary.total, 20);
    assert.equal(summary.done, 20);
    assert.equal(summary.changed, 0);
    await assert.rejects(relabelCommand(['--here', '--wait'], io().io), /exclude each other/);
    // Not beside a worker's run under way.
    const { id } = await addJob(handle.db, RELABEL_TASK, {});
    await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test' where id = ${id}::bigint`.execute(
      handle.db,
    );
    await assert.rejects(relabelCommand(['--here'], io().io), /a worker is relabelling now/);
  });
});
