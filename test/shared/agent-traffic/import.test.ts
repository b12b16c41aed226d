import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { main } from '../../../cli/main.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { importLog } from '../../../shared/agent-traffic/import.ts';
import { createVerifier } from '../../../shared/agent-traffic/ingest.ts';
import { loadConfig, resetConfig } from '../../../shared/config.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { formatLine, generateRequests, writeLog } from '../../helpers/access-log-gen.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';

// `sightline logs import` end to end: a generated log in every supported format (one of them
// gzipped), auto-detected, imported twice (the second import stores nothing new), bad lines
// counted and sampled without aborting, and the same traffic giving the same agents in every
// format that carries user agents. (1,000,000-line logs: test/corpus/access-log-million.test.ts.)

const FORMATS = ['combined', 'common', 'json', 'cloudfront', 'alb', 'cloudflare', 'vercel'] as const;
const LINES = 3000;
let t: TestApi;
let dir: string;
let account: string;

before(async () => {
  t = await startTestApi();
  process.env.DATABASE_URL = t.database.url;
  process.env.AGENT_VERIFY_RDNS = 'false';
  resetConfig();
  dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-logs-'));
  const key = await t.newKey('B', 'optimisation');
  account = String((await call(t.url, '/api/v1/account', { key })).body.id);
});
after(async () => {
  delete process.env.DATABASE_URL;
  delete process.env.AGENT_VERIFY_RDNS;
  resetConfig();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}

async function newSite(name: string): Promise<AgentSite> {
  return (await registerSite(t.handle.db, { accountId: account, url: `https://${name}.example.com/` })).site;
}

describe('sightline logs import', () => {
  const agentsByFormat: Record<string, number> = {};

  for (const format of FORMATS) {
    it(`${format}: detected, 0 bad lines, imported twice without storing anything twice`, async () => {
      const gzip = format === 'json';
      const file = path.join(dir, `access.${format}.log${gzip ? '.gz' : ''}`);
      await writeLog(file, format, { lines: LINES, days: 3, gzip });
      const site = await newSite(`logs-${format}`);
      const first = await cli('logs', 'import', '--site', site.tracking_id, '--json', file);
      assert.equal(first.code, 0, first.err.join('\n'));
      const s1 = first.json();
      assert.equal(s1.format, format);
      assert.equal(s1.badLines, 0, JSON.stringify(s1.badSamples));
      assert.equal(s1.requests, LINES);
      agentsByFormat[format] = s1.agents;
      if (format === 'common') assert.equal(s1.agents, 0, 'the common format carries no user agent');
      else {
        assert.ok(s1.agents > LINES * 0.25, `agents: ${s1.agents}`);
        assert.equal(s1.stored, s1.agents);
        // ALB logs carry no referrer, so no AI referrals there.
        if (format === 'alb') assert.equal(s1.aiReferrals, 0);
        else assert.ok(s1.aiReferrals > 0, `referrals: ${s1.aiReferrals}`);
      }
      const second = await cli(
        'logs',
        'import',
        '--site',
        String(site.id),
        '--format',
        format,
        '--json',
        file,
      );
      const s2 = second.json();
      assert.equal(s2.stored, 0);
      assert.equal(s2.duplicates, s1.agents);
      const n = await t.handle.db
        .selectFrom('agent_events')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('site_id', '=', site.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), s1.agents);
      const coverage = await t.handle.db
        .selectFrom('agent_coverage')
        .selectAll()
        .where('site_id', '=', site.id)
        .execute();
      assert.ok(coverage.every((c) => c.source === `import:${format}`));
      assert.equal(
        coverage.reduce((sum, c) => sum + Number(c.requests), 0),
        LINES,
      );
    });
  }

  it('every format with user agents finds the same agents in the same traffic', () => {
    const withUa = FORMATS.filter((f) => f !== 'common' && agentsByFormat[f] !== undefined);
    assert.equal(new Set(withUa.map((f) => agentsByFormat[f])).size, 1, JSON.stringify(agentsByFormat));
  });

  it('counts and samples bad lines without aborting; human text output', async () => {
    const site = await newSite('logs-bad');
    const file = path.join(dir, 'mixed.log');
    // Yesterday: a line older than AGENT_EVENTS_RETENTION_DAYS (400) is not imported.
    const [d, mon, y] = new Date(Date.now() - 86400_000).toUTCString().split(' ').slice(1, 4);
    const good = `66.249.66.1 - - [${d}/${mon}/${y}:10:05:03 +0000] "GET /a HTTP/1.1" 200 12 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`;
    const old = good.replace(/\[[^\]]+\]/, '[17/May/2015:10:05:03 +0000]');
    writeFileSync(
      file,
      [good, 'garbage line', good.replace('/a', '/b'), '', 'more garbage', good, old].join('\n'),
    );
    const r = await cli('logs', 'import', '--site', site.tracking_id, '--format', 'combined', file);
    assert.equal(r.code, 0, r.err.join('\n'));
    const text = r.out.join('\n');
    assert.match(text, /7 lines, 4 requests, 2 bad lines/);
    assert.match(text, /past retention 1$/m);
    assert.match(text, /bad line 2: garbage line/);
    assert.match(text, /bad line 5: more garbage/);
    // Two identical lines in the same second are two requests.
    const n = await t.handle.db
      .selectFrom('agent_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', site.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 3);
    assert.equal((await cli('logs', 'import', '--site', site.tracking_id, '--format', 'nope', file)).code, 2);
    assert.equal((await cli('logs', 'import', '--site', 'site_0000000000000000', file)).code, 1);
    // A missing file or a folder: a usage error naming it, not a crash.
    const missing = await cli('logs', 'import', '--site', site.tracking_id, path.join(dir, 'nope.log'));
    assert.equal(missing.code, 2);
    assert.match(missing.err.join('\n'), /cannot read .*nope\.log: ENOENT/);
    const folder = await cli('logs', 'import', '--site', site.tracking_id, dir);
    assert.equal(folder.code, 2);
    assert.match(folder.err.join('\n'), /is not a file/);
  });

  it('stores batches while the log is still being read (a long log is never held in memory)', async () => {
    // A FIFO the test writes into: the first 3,000 lines go in, then the writer waits. Batches of
    // 500 must reach the database before the log ends; an importer that held the whole log until
    // its end would store nothing here and the wait below would give up.
    const fifo = path.join(dir, 'slow.log');
    execFileSync('mkfifo', [fifo]);
    const site = await newSite('logs-streaming');
    const lines = [...generateRequests({ lines: 3000, days: 1 })].map((r) => formatLine('combined', r));
    const importing = importLog(t.handle.db, site, fifo, {
      format: 'combined',
      verifier: createVerifier(loadConfig()),
      retentionDays: loadConfig().AGENT_EVENTS_RETENTION_DAYS,
      batchSize: 500,
    });
    const writer = createWriteStream(fifo);
    writer.write(`${lines.join('\n')}\n`);
    let stored = 0;
    try {
      for (let i = 0; i < 200 && stored === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const row = await sql<{
          n: number;
        }>`select count(*)::int as n from agent_events where site_id = ${site.id}`.execute(t.handle.db);
        stored = row.rows[0]!.n;
      }
    } finally {
      writer.end();
    }
    assert.ok(stored > 0, 'agent events were stored before the log ended');
    const summary = await importing;
    assert.equal(summary.lines, 3000);
    assert.equal(summary.badLines, 0);
    assert.ok(summary.stored >= stored);
  });
});
