import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { rangesSyncCommand } from '../../../cli/commands/agents-ranges.ts';
import { ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import {
  type RangeData,
  rangesFromData,
  SHIPPED_RANGES_FILE,
} from '../../../shared/agent-verification/ip-data.ts';
import { agentDataFreshness, shippedRangesDate } from '../../../shared/agent-verification/sources-age.ts';
import {
  detectIpRangeSources,
  isVerificationSourceFile,
  refreshVerificationSources,
  syncVerificationSource,
} from '../../../shared/agent-verification/sources-sync.ts';
import { rdnsDomains } from '../../../shared/agent-verification/verify.ts';
import { resetConfig } from '../../../shared/config.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { newAgentSite, offlineVerifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// Verification sources sync like the catalogue: a vendor's own IP-range file (by file name or
// URL, served here from loopback) or a reverse-DNS suffix file is stored, and verification in
// every process reads it instead of the shipped snapshot (unless the shipped list is newer). The
// age of each source and of the catalogue is reported, stale after 30 days, in /api/v1/status.
// Addresses are documentation ranges (RFC 5737), written here in the vendors' formats.

let t: TestApi;
let spec: SpecChecker;
let vendor: FixtureServer;
let site: AgentSite;
let dir: string;

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const googleStyle = (creationTime: string, ...v4: string[]) =>
  JSON.stringify({ creationTime, prefixes: v4.map((p) => ({ ipv4Prefix: p })) }, null, 2);
const PERPLEXITY = JSON.stringify([
  { ip_address: '198.51.100.8/29', ip_type: 'IPv4', service: 'perplexitybot' },
  { ip_address: '198.51.100.64/30', ip_type: 'IPv4', service: 'perplexity-user' },
]);
const shipped = JSON.parse(fs.readFileSync(SHIPPED_RANGES_FILE, 'utf8')) as RangeData;

before(async () => {
  vendor = await startFixtureServer({
    routes: {
      '/gptbot.json': (_q, r) => {
        r.setHeader('content-type', 'application/json');
        r.end(googleStyle('2099-01-01T00:00:00.000000', '192.0.2.0/25'));
      },
      '/missing.json': (_q, r) => {
        r.statusCode = 404;
        r.end('no');
      },
    },
  });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${vendor.port}` });
  spec = await SpecChecker.load(t.url);
  site = await newAgentSite(t.handle.db, 'ranges@example.test', 'https://ranges.example.com/');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-sources-'));
  // The CLI's own configuration: this database, and the loopback vendor allowed.
  process.env.DATABASE_URL = t.database.url;
  process.env.SCAN_ALLOW_HOSTS = `127.0.0.1:${vendor.port}`;
  resetConfig();
});
after(async () => {
  delete process.env.DATABASE_URL;
  delete process.env.SCAN_ALLOW_HOSTS;
  resetConfig();
  await t.close();
  await vendor.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
async function gptbotFrom(ip: string) {
  const hash = requestHash(`sources ${seq++}`);
  await ingest(
    t.handle.db,
    site,
    'collect',
    [
      {
        time: new Date(Date.now() - 60_000),
        method: 'GET',
        path: '/',
        status: 200,
        ip,
        userAgent: GPTBOT,
        referer: null,
        hash,
      },
    ],
    offlineVerifier,
    { retentionDays: null },
  );
  const { rows } = await sql<{ verification: string }>`
    select verification from agent_events where hash = ${hash}`.execute(t.handle.db);
  return rows[0]?.verification;
}

describe('verification sources sync', () => {
  it('recognises vendor files by name, URL or the services a combined list tags', () => {
    assert.deepEqual(detectIpRangeSources({ from: '/tmp/x/gptbot.json', body: '{}' }), ['openai-gptbot']);
    assert.deepEqual(detectIpRangeSources({ from: 'https://openai.com/searchbot.json', body: '{}' }), [
      'openai-searchbot',
    ]);
    assert.deepEqual(detectIpRangeSources({ from: 'perplexitybot_ips.json', body: PERPLEXITY }), [
      'perplexity-bot',
      'perplexity-user',
    ]);
    assert.deepEqual(detectIpRangeSources({ from: 'ranges.json', body: '{}', source: 'anthropic' }), [
      'anthropic',
    ]);
    assert.deepEqual(detectIpRangeSources({ from: 'ranges.json', body: '{}' }), []);
    // What `agents sync --from` sends here rather than to the catalogue: vendor files and rDNS files.
    assert.equal(isVerificationSourceFile({ from: 'https://openai.com/gptbot.json', body: '{}' }), true);
    assert.equal(isVerificationSourceFile({ from: 'rdns.json', body: '{"reverseDns": {}}' }), true);
    assert.equal(
      isVerificationSourceFile({ from: 'robots.json', body: '{"GPTBot": {"operator": "OpenAI"}}' }),
      false,
    );
  });

  it('a synced vendor file (fetched from a URL) verifies GPTBot from its addresses; the shipped list no longer does', async () => {
    assert.equal(await gptbotFrom('192.0.2.5'), 'spoofed', 'outside the shipped ranges');
    const out: string[] = [];
    const err: string[] = [];
    const code = await rangesSyncCommand(['sync', '--from', `${vendor.url}gptbot.json`], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    assert.equal(code, 0);
    assert.match(out[0] ?? '', /openai-gptbot: 1 prefixes \(published 2099-01-01\)/);
    assert.ok(
      out.some((l) => /^openai-gptbot\tsynced\t\d{4}-\d\d-\d\d\t0 days old$/.test(l)),
      out.join('\n'),
    );
    // The CLI wrote through its own database handle: this process reads the table within a minute,
    // at once when forced (the test does not wait the minute).
    await refreshVerificationSources(t.handle.db, offlineVerifier.ranges, { force: true });
    assert.equal(await gptbotFrom('192.0.2.5'), 'ip');
    const shippedIp = (shipped.sources['openai-gptbot']?.ranges[0] ?? '').split('/')[0]!;
    assert.equal(await gptbotFrom(shippedIp), 'spoofed', 'the synced list replaced the shipped one');
  });

  it('a stored list older than the shipped one is not used; a combined file stores each service', async () => {
    const r = await syncVerificationSource(t.handle.db, {
      from: path.join(dir, 'chatgpt-user.json'),
      body: googleStyle('2001-01-01T00:00:00Z', '192.0.2.128/25'),
    });
    assert.deepEqual(r, {
      kind: 'ip-ranges',
      sources: [{ source: 'openai-chatgpt-user', ranges: 1, publishedOn: '2001-01-01' }],
    });
    const fresh = rangesFromData(shipped);
    await refreshVerificationSources(t.handle.db, fresh, { force: true });
    assert.equal(fresh.verify('ChatGPT-User', '192.0.2.130'), 'unverified', 'the shipped (newer) list stays');
    assert.equal(fresh.verify('GPTBot', '192.0.2.5'), 'verified', 'the synced (newer) list is used');

    const p = await syncVerificationSource(t.handle.db, {
      from: 'https://www.perplexity.ai/perplexitybot_ips.json',
      body: PERPLEXITY,
    });
    assert.equal(p.kind, 'ip-ranges');
    await refreshVerificationSources(t.handle.db, fresh, { force: true });
    assert.equal(fresh.verify('PerplexityBot', '198.51.100.9'), 'verified');
    assert.equal(fresh.verify('Perplexity-User', '198.51.100.65'), 'verified');
    assert.equal(fresh.verify('PerplexityBot', '198.51.100.65'), 'unverified');
  });

  it('a reverse-DNS file replaces a platform suffixes everywhere rdnsDomains is asked', async () => {
    assert.deepEqual(rdnsDomains('Googlebot', 'Google'), [
      '.googlebot.com',
      '.google.com',
      '.googleusercontent.com',
    ]);
    const r = await syncVerificationSource(t.handle.db, {
      from: path.join(dir, 'rdns.json'),
      body: JSON.stringify({ reverseDns: { Google: ['googlebot.com', '.geo.googlebot.com'] } }),
    });
    assert.deepEqual(r, {
      kind: 'rdns',
      platforms: [{ platform: 'Google', suffixes: ['.googlebot.com', '.geo.googlebot.com'] }],
    });
    assert.deepEqual(rdnsDomains('Googlebot', 'Google'), ['.googlebot.com', '.geo.googlebot.com']);
    assert.deepEqual(rdnsDomains('bingbot', 'Microsoft'), ['.search.msn.com'], 'other platforms keep theirs');
  });

  it('refuses what it cannot read, naming the problem, and stores nothing of it', async () => {
    const refused = async (file: { from: string; body: string; source?: string }, re: RegExp) =>
      assert.rejects(syncVerificationSource(t.handle.db, file), (e: Error & { status?: number }) => {
        assert.equal(e.status, 400);
        assert.match(e.message, re);
        return true;
      });
    await refused(
      { from: 'ranges.json', body: googleStyle('2026-01-01', '192.0.2.0/24') },
      /cannot tell which vendor list ranges\.json is.*gptbot\.json/,
    );
    await refused(
      { from: 'gptbot.json', body: '{"prefixes": []}' },
      /lists no IP prefixes for openai-gptbot/,
    );
    await refused({ from: 'gptbot.json', body: '{"prefixes": [' }, /not a vendor IP-range file/);
    await refused({ from: 'x.json', body: '{}', source: 'nope' }, /unknown source nope/);
    await refused(
      { from: 'rdns.json', body: '{"reverseDns": {"Google": ["not a suffix"]}}' },
      /host suffixes/,
    );
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from agent_ip_ranges`.execute(
      t.handle.db,
    );
    assert.equal(rows[0]?.n, 4, 'gptbot, chatgpt-user and the two Perplexity lists only');
    await assert.rejects(
      rangesSyncCommand(['sync', '--from', `${vendor.url}missing.json`], { out: () => {}, err: () => {} }),
      /answered HTTP 404/,
    );
    await assert.rejects(
      rangesSyncCommand(['sync'], { out: () => {}, err: () => {} }),
      /--from FILE\|URL is required/,
    );
  });

  it('reports each source age, stale after 30 days, in /api/v1/status details', async () => {
    const shippedOn = shippedRangesDate();
    assert.ok(shippedOn, 'the shipped snapshot is dated');
    const at = (days: number) => new Date(Date.parse(`${shippedOn}T12:00:00Z`) + days * 86_400_000);
    const young = await agentDataFreshness(t.handle.db, at(10));
    const bing = young.verificationSources.find((s) => s.source === 'bing')!;
    assert.deepEqual(bing, { source: 'bing', origin: 'shipped', asOf: shippedOn, ageDays: 10, stale: false });
    const old = await agentDataFreshness(t.handle.db, at(31));
    assert.equal(old.verificationSources.find((s) => s.source === 'bing')?.stale, true);
    assert.equal(old.stale, true);
    assert.equal(old.verificationSources.find((s) => s.source === 'openai-gptbot')?.origin, 'synced');
    assert.equal(old.verificationSources.find((s) => s.source === 'rdns:Google')?.origin, 'synced');
    assert.equal(old.verificationSources.find((s) => s.source === 'rdns:Apple')?.asOf, null);
    assert.match(old.catalogue.version, /^\d{4}-\d\d-\d\d/);

    const res = await call(t.url, '/api/v1/status');
    assert.equal(res.status, 200);
    spec.check('GET', '/api/v1/status', res);
    // The status carries counts; the list with each source's age is the catalogue's (GET /api/v1/agents).
    const data = res.body.details.agentData;
    assert.equal(data.staleAfterDays, 30);
    const now = await agentDataFreshness(t.handle.db);
    assert.deepEqual(data.verificationSources, {
      total: now.verificationSources.length,
      stale: now.verificationSources.filter((s) => s.stale).length,
      oldestAsOf: now.verificationSources.flatMap((s) => (s.asOf ? [s.asOf] : [])).sort()[0] ?? null,
    });
    assert.equal(data.stale, now.stale);
    const gpt = now.verificationSources.find((s) => s.source === 'openai-gptbot')!;
    assert.equal(gpt.origin, 'synced');
    assert.equal(gpt.stale, false);
  });
});
