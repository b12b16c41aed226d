import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importLog } from '../../../shared/agent-traffic/import.ts';
import { createVerifier } from '../../../shared/agent-traffic/ingest.ts';
import { siteStats } from '../../../shared/agent-traffic/stats.ts';
import { verifyPendingVisits } from '../../../shared/agent-traffic/verify-pending.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { newAgentSite } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { type DnsServer, startDnsServer } from '../../helpers/dns-server.ts';

// Reverse DNS off the ingest path: an import stores visits that only reverse DNS can verify as
// `pending` at once; verify_agent_visits looks up each distinct (agent, address) once and moves
// the events and rollups to the verdict. A resolver that never answers gives `unverified` (never
// `spoofed`), the same counts on every import, and a retry later settles them.

let database: TestDatabase;
let handle: Db;
let silent: DnsServer;
let dir: string;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 4 });
  silent = await startDnsServer(null);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-verify-'));
});
after(async () => {
  await handle.close();
  await database.drop();
  await silent.close();
  rmSync(dir, { recursive: true, force: true });
});

const verifierFor = (dns: DnsServer) =>
  createVerifier({
    AGENT_VERIFY_RDNS: true,
    AGENT_RDNS_TIMEOUT_MS: 100,
    AGENT_RDNS_SERVERS: dns.address,
    SCAN_ALLOW_HOSTS: '',
  });

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const BINGBOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36';

// Per line: user agent, address. Googlebot and bingbot outside their vendors' ranges need reverse
// DNS; Googlebot at 66.249.66.1 is inside Google's; GPTBot outside OpenAI's is spoofed by the
// ranges alone (OpenAI documents no reverse DNS).
const MIX: [string, string, number][] = [
  [GOOGLEBOT, '192.0.2.11', 40],
  [GOOGLEBOT, '192.0.2.13', 25],
  [GOOGLEBOT, '192.0.2.12', 15],
  [BINGBOT, '198.51.100.40', 20],
  [GOOGLEBOT, '66.249.66.1', 30],
  [GPTBOT, '203.0.113.9', 10],
  [CHROME, '198.51.100.7', 50],
];

function writeCombinedLog(): string {
  const file = path.join(dir, 'access.log');
  const start = Date.now() - 3 * 86400_000;
  const lines: string[] = [];
  let i = 0;
  for (const [ua, ip, n] of MIX)
    for (let k = 0; k < n; k++, i++) {
      const d = new Date(start + i * 61_000);
      const stamp = `${String(d.getUTCDate()).padStart(2, '0')}/${d.toLocaleString('en', { month: 'short', timeZone: 'UTC' })}/${d.getUTCFullYear()}:${d.toISOString().slice(11, 19)} +0000`;
      lines.push(`${ip} - - [${stamp}] "GET /p${k % 7} HTTP/1.1" ${k % 9 === 0 ? 404 : 200} 512 "-" "${ua}"`);
    }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

type Mix = Record<string, number>;
async function eventMix(siteId: string): Promise<Mix> {
  const { rows } = await sql<{ v: string; n: number }>`
    select verification as v, count(*)::int as n from agent_events where site_id = ${siteId}::bigint group by 1`.execute(
    handle.db,
  );
  return Object.fromEntries(rows.map((r) => [r.v, r.n]));
}
async function rollupMix(siteId: string, table: 'agent_rollups' | 'agent_daily_rollups'): Promise<Mix> {
  const { rows } = await sql<{ v: string; n: number }>`
    select verification as v, sum(visits)::int as n from ${sql.table(table)}
    where site_id = ${siteId}::bigint group by 1 having sum(visits) > 0`.execute(handle.db);
  return Object.fromEntries(rows.map((r) => [r.v, r.n]));
}
/** Error visits (status >= 400) per agent and verification, in the events or a rollup table. */
async function errorMix(siteId: string, table: 'agent_rollups' | 'agent_daily_rollups' | null): Promise<Mix> {
  const { rows } = await (table
    ? sql<{ k: string; n: number }>`
        select agent || ' ' || verification as k, sum(errors)::int as n from ${sql.table(table)}
        where site_id = ${siteId}::bigint group by 1 having sum(errors) > 0`
    : sql<{ k: string; n: number }>`
        select agent || ' ' || verification as k, count(*)::int as n from agent_events
        where site_id = ${siteId}::bigint and status >= 400 group by 1`
  ).execute(handle.db);
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}
async function assertConsistent(site: AgentSite): Promise<Mix> {
  const events = await eventMix(site.id);
  assert.deepEqual(await rollupMix(site.id, 'agent_rollups'), events, 'hourly rollups = events');
  assert.deepEqual(await rollupMix(site.id, 'agent_daily_rollups'), events, 'daily rollups = events');
  const errors = await errorMix(site.id, null);
  assert.ok(Object.keys(errors).length > 1, 'the log has error visits under several verifications');
  assert.deepEqual(await errorMix(site.id, 'agent_rollups'), errors, 'hourly errors = events');
  assert.deepEqual(await errorMix(site.id, 'agent_daily_rollups'), errors, 'daily errors = events');
  return events;
}

const window = () => ({ since: new Date(Date.now() - 10 * 86400_000), until: new Date() });

describe('verification off the ingest path', () => {
  let file: string;
  const sites: AgentSite[] = [];

  it('a resolver that never answers: pending at import, unverified after the job, equal on two imports, never spoofed', async () => {
    file = writeCombinedLog();
    const verifier = verifierFor(silent);
    const results = [];
    for (const name of ['one', 'two']) {
      const site = await newAgentSite(handle.db, `${name}@verify.example`, `https://${name}.example.com/`);
      sites.push(site);
      const summary = await importLog(handle.db, site, file, {
        format: 'combined',
        verifier,
        retentionDays: 400,
      });
      assert.equal(summary.stored, 140);
      assert.equal(summary.pendingVerification, 100);
      // Stored at once, without waiting for a look-up: 100 visits wait for reverse DNS.
      assert.deepEqual(await assertConsistent(site), { pending: 100, ip: 30, spoofed: 10 });
      const stats = await siteStats(handle.db, site, window());
      assert.equal(stats.pendingVerification, 100);

      const before = silent.queries;
      const r = await verifyPendingVisits(handle.db, verifier, { concurrency: 4 });
      results.push({ r, queries: silent.queries - before, mix: await assertConsistent(site) });
    }
    const [first, second] = results;
    // Timeouts are unknown: unverified, never spoofed (only GPTBot outside OpenAI's ranges is).
    assert.deepEqual(first!.mix, { unverified: 100, ip: 30, spoofed: 10 });
    assert.deepEqual(second!.mix, first!.mix, 'the same file gives the same verdicts');
    // Each distinct (agent, address) looked up once; the second import reuses the failed look-ups
    // until their retry is due (a negative cache) instead of asking again.
    assert.equal(first!.r.lookedUp, 4);
    assert.ok(first!.queries >= 4);
    assert.equal(second!.r.lookedUp, 0);
    assert.equal(second!.queries, 0);
    const stats = await siteStats(handle.db, sites[0]!, window());
    assert.equal(stats.pendingVerification, 0);
    assert.equal(stats.spoofedVisits, 10); // GPTBot outside OpenAI's ranges
  });

  it('unverified visits are looked up again when their retry is due, and settle on a real answer', async () => {
    const dns = await startDnsServer({
      ptr: {
        '11.2.0.192.in-addr.arpa': 'crawl-192-0-2-11.googlebot.com',
        '13.2.0.192.in-addr.arpa': 'host.example.net',
        '40.100.51.198.in-addr.arpa': 'msnbot-198-51-100-40.search.msn.com',
      },
      a: {
        'crawl-192-0-2-11.googlebot.com': '192.0.2.11',
        'host.example.net': '192.0.2.13',
        'msnbot-198-51-100-40.search.msn.com': '198.51.100.40',
      },
    });
    try {
      const verifier = verifierFor(dns);
      // Not due yet: nothing is asked.
      assert.equal((await verifyPendingVisits(handle.db, verifier, { concurrency: 4 })).lookedUp, 0);
      const { rows } = await sql<{ retry_at: Date }>`
        select retry_at from agent_rdns_checks where verdict = 'unverified'`.execute(handle.db);
      assert.equal(rows.length, 4);
      for (const r of rows) assert.ok(r.retry_at.getTime() > Date.now(), 'a failed look-up is retried later');
      await sql`update agent_rdns_checks set retry_at = now() - interval '1 second'`.execute(handle.db);

      const r = await verifyPendingVisits(handle.db, verifier, { concurrency: 4 });
      assert.equal(r.lookedUp, 4);
      for (const site of sites) {
        // 192.0.2.11 and the msn.com address confirmed; a name outside Google's domains and an
        // address without a PTR record are definite answers: spoofed.
        assert.deepEqual(await assertConsistent(site), { rdns: 60, ip: 30, spoofed: 50 });
      }
      assert.equal((await siteStats(handle.db, sites[0]!, window())).pendingVerification, 0);
    } finally {
      await dns.close();
    }
  });
});
