import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { classifyUserAgent } from '../../shared/agent-catalogue/classify.ts';
import { registerSite } from '../../shared/agent-sites/sites.ts';
import { importLog } from '../../shared/agent-traffic/import.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import type { AgentSite } from '../../shared/db/tables/agent-traffic.ts';
import { offlineVerifier as verifier } from '../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// The real Apache combined log of the corpus (10,000 lines of a real site, May 2015): imports with
// 0 bad lines, stores no browser visit as an agent, verifies its Googlebot lines from Google's
// crawler addresses by IP range, and a second import stores nothing new.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const LOG = path.join(CORPUS, 'access-logs', 'apache-combined.log');

let database: TestDatabase;
let handle: Db;
let site: AgentSite;

describe('real Apache access log', { skip: !existsSync(LOG) && `corpus not found at ${LOG}` }, () => {
  before(async () => {
    database = await createTestDatabase();
    handle = createDb(database.url, { max: 4 });
    const { account } = await createAccount(handle.db, {
      email: 'logs@example.test',
      variant: 'B',
      tier: 'optimisation',
      plan: null,
      rateLimit: null,
    });
    ({ site } = await registerSite(handle.db, { accountId: account.id, url: 'https://semicomplete.com/' }));
  });
  after(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('imports with 0 bad lines; Googlebot verified by IP; no browser stored as an agent', async () => {
    const s = await importLog(handle.db, site, LOG, { format: 'auto', verifier, retentionDays: null });
    assert.equal(s.format, 'combined');
    assert.equal(s.lines, 10_000);
    assert.equal(s.badLines, 0, JSON.stringify(s.badSamples));
    assert.equal(s.requests, 10_000);
    assert.ok(s.agents > 0);
    // The log repeats a few lines byte for byte: a repeat is the same request, stored once.
    assert.equal(s.stored + s.duplicates, s.agents, JSON.stringify(s));
    assert.ok(s.duplicates <= 2, JSON.stringify(s));

    const events = await handle.db
      .selectFrom('agent_events')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(events.length, s.stored);
    for (const e of events) {
      const c = classifyUserAgent(e.user_agent);
      assert.ok(c.isBot, `a browser stored as an agent: ${e.user_agent}`);
    }
    const google = events.filter((e) => e.agent === 'Googlebot');
    assert.ok(google.length > 100, `Googlebot lines: ${google.length}`);
    const fromGoogle = google.filter((e) => e.ip?.startsWith('66.249.'));
    assert.ok(fromGoogle.length > 0);
    for (const e of fromGoogle) assert.equal(e.verification, 'ip', `${e.ip} ${e.user_agent}`);
    const summary = Object.entries(
      events.reduce<Record<string, number>>((acc, e) => {
        const k = `${e.platform}/${e.agent || '?'}/${e.verification}`;
        acc[k] = (acc[k] ?? 0) + 1;
        return acc;
      }, {}),
    );
    console.log(`agents in the Apache log: ${JSON.stringify(summary)}`);

    const coverage = await handle.db
      .selectFrom('agent_coverage')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.ok(coverage.length >= 4, 'one coverage row per day of the log');
    assert.equal(
      coverage.reduce((n, c) => n + Number(c.requests), 0),
      10_000,
    );
  });

  it('a second import stores nothing new and changes no rollup or coverage', async () => {
    const before = await handle.db
      .selectFrom('agent_rollups')
      .select(['visits'])
      .where('site_id', '=', site.id)
      .execute();
    const s = await importLog(handle.db, site, LOG, { format: 'combined', verifier, retentionDays: null });
    assert.equal(s.stored, 0);
    assert.equal(s.duplicates, s.agents);
    const after = await handle.db
      .selectFrom('agent_rollups')
      .select(['visits'])
      .where('site_id', '=', site.id)
      .execute();
    const sum = (rows: { visits: string }[]) => rows.reduce((n, r) => n + Number(r.visits), 0);
    assert.equal(sum(after), sum(before));
    const coverage = await handle.db
      .selectFrom('agent_coverage')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(
      coverage.reduce((n, c) => n + Number(c.requests), 0),
      10_000,
    );
  });
});
