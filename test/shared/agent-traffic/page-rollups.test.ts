import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { compactPending, foldAllPending, foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import { sitePages } from '../../../shared/agent-traffic/stats.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { tasks } from '../../../worker/tasks/index.ts';
import { newAgentSite, offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Page and path rollups are appended to agent_page_pending by each batch and folded in bulk
// (sql/018). Under concurrent ingestion from several connection pools (processes), background
// folds, and readers folding before they read, every read sees at least every event acknowledged
// before it, the two tables always agree, and in the end each event is counted exactly once.
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
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
];

/** A GET by the n-th of AGENTS (in turn), hashed from `key` so each key is one distinct request. */
const agentRequest = (
  n: number,
  r: Pick<IngestRequest, 'time' | 'path' | 'ip'> & { status?: number; key: string },
): IngestRequest => ({
  time: r.time,
  method: 'GET',
  path: r.path,
  status: r.status ?? 200,
  ip: r.ip,
  userAgent: AGENTS[n % AGENTS.length]!,
  referer: null,
  hash: requestHash(r.key),
});

it('folds pending page counts exactly under concurrent ingestion, background folds and readers', async () => {
  const site = await newAgentSite(handle.db, 'fold@example.test', 'https://fold.example.com/');
  const processes = Array.from({ length: 4 }, () => createDb(database.url, { max: 3 }));
  const BATCHES = 25;
  const SIZE = 40;
  let acked = 0;
  let writing = true;
  const totals = async () => {
    // One statement: one snapshot of the three tables.
    const r = await sql<{ pages: string | null; paths: string | null; blocks: string | null }>`
      select (select sum(visits) from agent_page_rollups where site_id = ${site.id}) as pages,
             (select sum(visits) from agent_path_rollups where site_id = ${site.id}) as paths,
             (select sum(visits) from agent_path_blocks where site_id = ${site.id}) as blocks`.execute(
      handle.db,
    );
    return {
      pages: Number(r.rows[0]!.pages ?? 0),
      paths: Number(r.rows[0]!.paths ?? 0),
      blocks: Number(r.rows[0]!.blocks ?? 0),
    };
  };
  const now = Date.now();
  const request = (n: number): IngestRequest =>
    agentRequest(n, {
      time: new Date(now - (n % 3) * 86400_000 - n * 1000),
      path: `/p${n % 17}`,
      status: n % 11 === 0 ? 404 : 200,
      ip: '198.51.100.1',
      key: `fold ${n}`,
    });
  try {
    const writers = processes.map(async (p, w) => {
      for (let b = 0; b < BATCHES; b++) {
        const first = (w * BATCHES + b) * SIZE;
        const requests = Array.from({ length: SIZE }, (_, i) => request(first + i));
        // Every batch also re-sends the first request of the one before: a duplicate, not counted.
        if (b > 0) requests.push(request(first - SIZE));
        const c = await ingest(p.db, site, 'collect', requests, verifier, {
          retentionDays: null,
          foldAfter: 150,
        });
        assert.equal(c.stored, SIZE);
        acked += c.stored;
      }
    });
    const folders = processes.slice(0, 2).map(async (p) => {
      while (writing) {
        await sql`select agent_fold_pages(${site.id}::bigint, false)`.execute(p.db);
        await new Promise((r) => setTimeout(r, 30));
      }
    });
    const reads: number[] = [];
    const reader = (async () => {
      while (writing) {
        const before = acked;
        await foldPages(handle.db, site.id);
        const t = await totals();
        assert.equal(t.pages, t.paths, 'page and path rollups agree');
        assert.equal(t.blocks, t.paths, 'path rollups and their 8-day blocks agree');
        assert.ok(t.pages >= before, `read ${t.pages} visits after ${before} were acknowledged`);
        assert.ok(t.pages <= processes.length * BATCHES * SIZE);
        const pages = await sitePages(
          handle.db,
          site,
          { since: new Date(Date.now() - 10 * 86400_000), until: new Date() },
          100,
        );
        const listed = pages.pages.reduce((n: number, x: { visits: number }) => n + x.visits, 0);
        assert.ok(listed >= before, `/pages counted ${listed} visits after ${before} were acknowledged`);
        reads.push(t.pages);
      }
    })();
    try {
      await Promise.all(writers);
    } finally {
      writing = false;
      await Promise.allSettled([...folders, reader]);
    }
    await Promise.all([...folders, reader]);
    assert.ok(reads.length > 3, `${reads.length} reads during ingestion`);

    await foldPages(handle.db, site.id);
    const events = await sql<{ n: string; not_found: string }>`
      select count(*) as n, count(*) filter (where status = 404) as not_found
      from agent_events where site_id = ${site.id}`.execute(handle.db);
    const total = processes.length * BATCHES * SIZE;
    assert.equal(Number(events.rows[0]!.n), total);
    assert.deepEqual(await totals(), { pages: total, paths: total, blocks: total });
    const nf = await sql<{ n: string }>`
      select sum(not_found) as n from agent_path_rollups where site_id = ${site.id}`.execute(handle.db);
    assert.equal(Number(nf.rows[0]!.n), Number(events.rows[0]!.not_found));
    const left = await sql<{ n: string }>`
      select count(*) as n from agent_page_pending where site_id = ${site.id}`.execute(handle.db);
    assert.equal(Number(left.rows[0]!.n), 0);
  } finally {
    await Promise.all(processes.map((p) => p.close()));
  }
});

it('the fold_agent_pages task folds every site left with pending counts', async () => {
  const { account } = await createAccount(handle.db, {
    email: 'quiet@example.test',
    variant: 'B',
    tier: 'intelligence',
    plan: null,
    rateLimit: null,
  });
  const sites = await Promise.all(
    ['https://quiet-a.example.com/', 'https://quiet-b.example.com/'].map(
      async (url) => (await registerSite(handle.db, { accountId: account.id, url })).site,
    ),
  );
  for (const [s, site] of sites.entries()) {
    const requests = Array.from({ length: 30 + s }, (_, i) =>
      agentRequest(i, {
        time: new Date(Date.now() - i * 60_000),
        path: `/q${i % 4}`,
        ip: '198.51.100.2',
        key: `quiet ${s} ${i}`,
      }),
    );
    // Far below the background trigger: the counts stay pending, as for a site that went quiet.
    await ingest(handle.db, site, 'collect', requests, verifier, { retentionDays: null, foldAfter: 10 ** 9 });
  }
  const pending = async (siteId: string) =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*) as n from agent_page_pending where site_id = ${siteId}`.execute(handle.db)
      ).rows[0]!.n,
    );
  assert.ok((await pending(sites[0]!.id)) > 0 && (await pending(sites[1]!.id)) > 0);

  const task = tasks.find((t) => t.name === 'fold_agent_pages');
  assert.ok(task, 'fold_agent_pages is a registered task');
  const r = await foldAllPending(handle.db);
  assert.ok(r.sites >= 2, `folded ${r.sites} sites`);
  for (const [s, site] of sites.entries()) {
    assert.equal(await pending(site.id), 0);
    const paths = await sql<{ n: string }>`
      select sum(visits) as n from agent_path_rollups where site_id = ${site.id}`.execute(handle.db);
    assert.equal(Number(paths.rows[0]!.n), 30 + s);
  }
});

it("a site's pending partition holds about two folds of rows, not the dead rows of every fold", async () => {
  const site = await newAgentSite(handle.db, 'compact@example.test', 'https://compact.example.com/');
  const pages: number[] = [];
  let partition = '';
  for (let cycle = 0; cycle < 10; cycle++) {
    const requests = Array.from({ length: 400 }, (_, i) =>
      agentRequest(i, {
        time: new Date(Date.now() - i * 1000),
        path: `/c${cycle}/${i}`, // a pending row each
        ip: '198.51.100.3',
        key: `compact ${cycle} ${i}`,
      }),
    );
    await ingest(handle.db, site, 'collect', requests, verifier, { retentionDays: null, foldAfter: 10 ** 9 });
    if (!partition) {
      const r = await sql<{ p: string }>`
        select tableoid::regclass::text as p from agent_page_pending where site_id = ${site.id} limit 1`.execute(
        handle.db,
      );
      partition = r.rows[0]!.p;
    }
    // As a background fold does it: the previous fold's deleted rows vacuumed, then this fold.
    await compactPending(handle.db, site.id);
    await foldPages(handle.db, site.id);
    const size = await sql<{ pages: string }>`
      select pg_relation_size(${partition}::regclass) / current_setting('block_size')::int as pages`.execute(
      handle.db,
    );
    pages.push(Number(size.rows[0]!.pages));
  }
  // Each cycle's rows fill a few pages; without the vacuum the partition grows by them every cycle.
  // With it, it never outgrows its first cycles (a vacuum that can truncate the file may shrink it
  // again, so the sizes may alternate).
  assert.ok(pages[1]! > pages[0]!, `pages per cycle: ${pages.join(', ')}`);
  assert.ok(
    Math.max(...pages.slice(3)) <= Math.max(...pages.slice(0, 3)),
    `pages per cycle: ${pages.join(', ')}`,
  );
  const paths = await sql<{ n: string }>`
    select sum(visits) as n from agent_path_rollups where site_id = ${site.id}`.execute(handle.db);
  assert.equal(Number(paths.rows[0]!.n), 4000);
});
