import assert from 'node:assert/strict';
import { createPrivateKey, type JsonWebKey, randomBytes, sign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import { SHIPPED_RANGES_FILE } from '../../../shared/agent-verification/ip-data.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// POST /api/v1/collect through the real API and database: classification and verification
// (ranges shipped as data, spoofed user agents, Web Bot Auth against a key directory served on
// loopback), AI referrals, all-or-nothing validation, idempotent retries, the ingest budget.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const VECTORS = path.join(CORPUS, 'web-bot-auth', 'web_bot_auth_architecture_v1.json');

let t: TestApi;
let spec: SpecChecker;
let agentHost: FixtureServer;
let edKey: JsonWebKey;

const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const ranges = JSON.parse(readFileSync(SHIPPED_RANGES_FILE, 'utf8')).sources;
/** An address inside the first published GPTBot prefix. */
const gptbotIp = () => {
  const [net] = (ranges['openai-gptbot'].ranges[0] as string).split('/');
  const parts = net!.split('.').map(Number);
  parts[3] = (parts[3] ?? 0) + 1;
  return parts.join('.');
};

before(async () => {
  const vectors = JSON.parse(readFileSync(VECTORS, 'utf8')) as { key: JsonWebKey }[];
  edKey = vectors.find((v) => v.key.kty === 'OKP')!.key;
  const { d: _d, ...pub } = edKey;
  agentHost = await startFixtureServer({
    routes: {
      '/.well-known/http-message-signatures-directory': (_q, r) => {
        r.setHeader('content-type', 'application/http-message-signatures-directory+json');
        r.end(JSON.stringify({ keys: [pub] }));
      },
    },
  });
  t = await startTestApi({
    AGENT_VERIFY_RDNS: 'false',
    AGENT_INGEST_EVENTS_PER_HOUR: '40',
    SCAN_ALLOW_HOSTS: `127.0.0.1:${agentHost.port}`,
  });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await t.close();
  await agentHost.close();
});

const accountOf = async (key: string): Promise<string> =>
  String((await call(t.url, '/api/v1/account', { key })).body.id);

async function newSite(key: string, url = `https://s${randomBytes(4).toString('hex')}.example.com/`) {
  return registerSite(t.handle.db, { accountId: await accountOf(key), url });
}

const now = () => new Date(Date.now() - 60_000).toISOString();
const item = (over: Record<string, unknown> = {}) => ({
  time: now(),
  method: 'GET',
  path: '/pricing?ref=x',
  status: 200,
  ip: '198.51.100.7',
  user_agent: CHROME,
  ...over,
});

const events = (siteId: string) =>
  t.handle.db.selectFrom('agent_events').selectAll().where('site_id', '=', siteId).orderBy('time').execute();

describe('POST /api/v1/collect', () => {
  it('classifies, verifies by IP range, flags a spoofed GPTBot, counts AI referrals and drops humans and bots', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const body = {
      site: site.tracking_id,
      requests: [
        item({ user_agent: GPTBOT, ip: gptbotIp(), path: '/docs' }),
        item({
          user_agent: GPTBOT,
          ip: '203.0.113.9',
          path: '/docs',
          time: new Date(Date.now() - 120_000).toISOString(),
        }),
        item({
          user_agent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
          ip: '198.51.100.20',
          status: 404,
          path: '/gone',
        }),
        item({
          user_agent:
            'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
          ip: '198.51.100.21',
        }),
        item({ referer: 'https://chatgpt.com/' }),
        item({ path: '/blog?utm_source=perplexity.ai' }),
        item(),
        item({ user_agent: 'curl/8.5.0' }),
      ],
    };
    const res = await call(t.url, '/api/v1/collect', { method: 'POST', key: ingestToken, body });
    assert.equal(res.status, 202, res.text);
    spec.check('POST', '/api/v1/collect', res);
    assert.deepEqual(res.body, {
      received: 8,
      agents: 4,
      stored: 4,
      duplicates: 0,
      ai_referrals: 2,
      humans_ignored: 1,
      bots_ignored: 1,
      expired: 0,
      pending_verification: 0,
      invalid: 0,
    });
    assert.equal(res.headers.get('x-ratelimit-limit'), '40');
    assert.equal(res.headers.get('x-ratelimit-remaining'), '32');

    const rows = await events(site.id);
    const by = (ip: string) => rows.find((r) => r.ip === ip)!;
    assert.equal(by(gptbotIp()).verification, 'ip');
    assert.equal(by(gptbotIp()).platform, 'OpenAI');
    assert.equal(by(gptbotIp()).agent, 'GPTBot');
    assert.equal(by(gptbotIp()).type, 'training');
    assert.equal(by(gptbotIp()).path, '/docs');
    assert.equal(by('203.0.113.9').verification, 'spoofed', 'GPTBot from outside OpenAI ranges');
    assert.ok(by('203.0.113.9').confidence < 0.1);
    assert.equal(by('198.51.100.20').verification, 'spoofed', 'ClaudeBot from outside Anthropic ranges');
    assert.equal(by('198.51.100.21').platform, 'Apple');
    assert.equal(by('198.51.100.21').verification, 'none', 'Apple publishes no ranges; rDNS is off here');
    assert.ok(!rows.some((r) => r.user_agent === CHROME), 'browsers are never agents');

    const refs = await t.handle.db
      .selectFrom('ai_referral_rollups')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.deepEqual(refs.map((r) => [r.platform, r.path, Number(r.visits)]).sort(), [
      ['OpenAI', '/pricing', 1],
      ['Perplexity', '/blog', 1],
    ]);
    const rollups = await t.handle.db
      .selectFrom('agent_rollups')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(
      rollups.reduce((n, r) => n + Number(r.visits), 0),
      4,
    );
    await foldPages(t.handle.db, site.id); // the page counts are folded in bulk (sql/018)
    const pages = await t.handle.db
      .selectFrom('agent_page_rollups')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(Number(pages.find((p) => p.path === '/gone')!.not_found), 1);
    const coverage = await t.handle.db
      .selectFrom('agent_coverage')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.deepEqual(
      coverage.map((c) => [c.source, Number(c.requests)]),
      [['collect', 8]],
    );

    // The same batch again (a retry) stores nothing new and changes no rollup.
    const again = await call(t.url, '/api/v1/collect', { method: 'POST', key: ingestToken, body });
    assert.equal(again.body.stored, 0);
    assert.equal(again.body.duplicates, 4);
    const rollups2 = await t.handle.db
      .selectFrom('agent_rollups')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(
      rollups2.reduce((n, r) => n + Number(r.visits), 0),
      4,
    );
  });

  it('stores only the new requests of a batch that overlaps stored ones, also when overlapping batches arrive together', async () => {
    // The insert is tried without ON CONFLICT first and sent again with it when the batch holds a
    // stored request: whichever form runs, each request is stored once and rolled up once.
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const base = Date.now() - 600_000;
    const bot = (n: number) =>
      item({
        user_agent: GPTBOT,
        ip: gptbotIp(),
        path: `/p${n}`,
        time: new Date(base + n * 1000).toISOString(),
      });
    const post = (ns: number[]) =>
      call(t.url, '/api/v1/collect', {
        method: 'POST',
        key: ingestToken,
        body: { site: site.tracking_id, requests: ns.map(bot) },
      });
    const first = await post([1, 2, 3]);
    assert.deepEqual([first.body.stored, first.body.duplicates], [3, 0]);
    const overlap = await post([2, 3, 4, 5]);
    assert.deepEqual([overlap.body.stored, overlap.body.duplicates], [2, 2]);
    const fresh = await post([6]); // after a batch with duplicates: the ON CONFLICT form at once
    assert.deepEqual([fresh.body.stored, fresh.body.duplicates], [1, 0]);
    const together = await Promise.all([post([7, 8, 9]), post([8, 9, 10]), post([9, 10, 11])]);
    assert.equal(
      together.reduce((n, r) => n + r.body.stored, 0),
      5,
      'requests 7 to 11, each stored by one of the three batches',
    );
    assert.equal(
      together.reduce((n, r) => n + r.body.duplicates, 0),
      4,
    );
    const rows = await events(site.id);
    assert.deepEqual(
      rows.map((r) => r.path),
      Array.from({ length: 11 }, (_, i) => `/p${i + 1}`),
    );
    const sum = async (table: 'agent_rollups' | 'agent_page_rollups' | 'agent_path_rollups') =>
      (await t.handle.db.selectFrom(table).select('visits').where('site_id', '=', site.id).execute()).reduce(
        (n, r) => n + Number(r.visits),
        0,
      );
    await foldPages(t.handle.db, site.id);
    assert.equal(await sum('agent_rollups'), 11);
    assert.equal(await sum('agent_page_rollups'), 11);
    assert.equal(await sum('agent_path_rollups'), 11);
  });

  it('refuses a batch with bad items whole (400 naming each bad index) and stores nothing', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const requests = [
      item({ user_agent: GPTBOT, ip: gptbotIp() }),
      item({ user_agent: GPTBOT }),
      item({ user_agent: GPTBOT, ip: 'not-an-ip' }),
      item({ user_agent: GPTBOT }),
      item({ user_agent: GPTBOT, time: 'yesterday', method: 'G E T' }),
    ];
    const res = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: { site: site.tracking_id, requests },
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    spec.check('POST', '/api/v1/collect', res);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.requests.2.ip', 'body.requests.4.method', 'body.requests.4.time']);
    assert.equal((await events(site.id)).length, 0);
    const cov = await t.handle.db
      .selectFrom('agent_coverage')
      .selectAll()
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(cov.length, 0);

    const empty = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: { site: site.tracking_id, requests: [] },
    });
    assert.equal(empty.status, 400);
    const many = Array.from({ length: 1001 }, () => item());
    const tooMany = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: { site: site.tracking_id, requests: many },
    });
    assert.equal(tooMany.status, 400);
  });

  it('refuses absolute URLs the URL parser rejects with 400 naming the path, not 500', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    // Both match ^https?://\S+$; new URL() throws on both (port out of range, unclosed IPv6).
    const bad = ['http://example.com:99999/x', 'http://[bad'];
    const batches = [
      // Plain items: the quick path (validCollectBody) must refuse them too.
      [item({ user_agent: GPTBOT }), item({ user_agent: GPTBOT, path: bad[0] }), item({ path: bad[1] })],
      // An item with headers goes through zod.
      [item({ user_agent: GPTBOT, path: bad[1], headers: { 'x-a': 'b' } }), item({ path: bad[0] })],
    ];
    for (const requests of batches) {
      const res = await call(t.url, '/api/v1/collect', {
        method: 'POST',
        key: ingestToken,
        body: { site: site.tracking_id, requests },
      });
      assert.equal(res.status, 400, res.text);
      assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
      spec.check('POST', '/api/v1/collect', res);
      const fields = res.body.errors.map((e: { field: string }) => e.field);
      const expected = requests.flatMap((r, i) => (bad.includes(r.path) ? [`body.requests.${i}.path`] : []));
      assert.deepEqual(fields, expected);
    }
    assert.equal((await events(site.id)).length, 0);
    // A parseable absolute URL is still stored as its path and query.
    const ok = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: {
        site: site.tracking_id,
        requests: [item({ user_agent: GPTBOT, path: 'http://example.com:8080/a?b=1' })],
      },
    });
    assert.equal(ok.status, 202, ok.text);
    assert.equal((await events(site.id))[0]!.path, '/a');
  });

  it('counts requests older than the event retention as expired and stores nothing of them', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const old = new Date(Date.now() - 401 * 86400_000).toISOString(); // AGENT_EVENTS_RETENTION_DAYS 400
    const res = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: {
        site: site.tracking_id,
        requests: [
          item({ user_agent: GPTBOT, time: old }),
          item({ time: old }),
          item({ user_agent: GPTBOT }),
        ],
      },
    });
    assert.equal(res.status, 202, res.text);
    spec.check('POST', '/api/v1/collect', res);
    assert.equal(res.body.received, 3);
    assert.equal(res.body.expired, 2);
    assert.equal(res.body.agents, 1);
    assert.equal(res.body.stored, 1);
    assert.equal((await events(site.id)).length, 1);
    const days = await t.handle.db
      .selectFrom('agent_coverage')
      .select('day')
      .where('site_id', '=', site.id)
      .execute();
    assert.equal(days.length, 1, 'no coverage claimed for the expired day');
  });

  it('accepts the site owner’s B key without spending its calls; refuses other accounts, A keys and bad tokens', async () => {
    const key = await t.newKey('B', 'intelligence', { rateLimit: 2 });
    const { site } = await newSite(key);
    const body = { site: site.tracking_id, requests: [item({ user_agent: GPTBOT, ip: gptbotIp() })] };
    for (let i = 0; i < 3; i++) {
      const r = await call(t.url, '/api/v1/collect', { method: 'POST', key, body });
      assert.equal(r.status, 202, r.text);
    }
    // The key's own hourly calls (2: one spent by accountOf) are untouched by ingestion.
    const other = await call(t.url, '/api/v1/sites', { key });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('x-ratelimit-remaining'), '0');

    const stranger = await t.newKey('B', 'optimisation');
    const r404 = await call(t.url, '/api/v1/collect', { method: 'POST', key: stranger, body });
    assert.equal(r404.status, 404);
    const { ingestToken: otherToken } = await newSite(stranger);
    assert.equal(
      (await call(t.url, '/api/v1/collect', { method: 'POST', key: otherToken, body })).status,
      404,
    );
    const a = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: await t.newKey('A', 'agent'),
      body,
    });
    assert.equal(a.status, 403);
    assert.equal(a.body.code, 'variant_mismatch');
    const bad = await call(t.url, '/api/v1/collect', { method: 'POST', key: `sit_${'x'.repeat(40)}`, body });
    assert.equal(bad.status, 401);
    assert.ok(bad.headers.get('x-ratelimit-limit'));
    assert.equal((await call(t.url, '/api/v1/collect', { method: 'POST', body })).status, 401);
  });

  it('meters ingestion in events per site per hour: a batch that does not fit is refused whole with 429', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const batch = (n: number) => ({
      site: site.tracking_id,
      requests: Array.from({ length: n }, (_, i) => item({ user_agent: GPTBOT, path: `/p${i}-${n}` })),
    });
    const ok = await call(t.url, '/api/v1/collect', { method: 'POST', key: ingestToken, body: batch(30) });
    assert.equal(ok.status, 202);
    assert.equal(ok.headers.get('x-ratelimit-remaining'), '10');
    const over = await call(t.url, '/api/v1/collect', { method: 'POST', key: ingestToken, body: batch(11) });
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'rate_limited');
    assert.ok(Number(over.headers.get('retry-after')) > 0);
    assert.equal(over.headers.get('x-ratelimit-remaining'), '10');
    spec.check('POST', '/api/v1/collect', over);
    assert.equal((await events(site.id)).length, 30);
    const fits = await call(t.url, '/api/v1/collect', { method: 'POST', key: ingestToken, body: batch(10) });
    assert.equal(fits.status, 202);
  });

  it('requests past retention spend none of the ingest budget', async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key);
    const old = new Date(Date.now() - 401 * 86400_000).toISOString(); // AGENT_EVENTS_RETENTION_DAYS 400
    const post = (requests: Record<string, unknown>[]) =>
      call(t.url, '/api/v1/collect', {
        method: 'POST',
        key: ingestToken,
        body: { site: site.tracking_id, requests },
      });
    const mixed = await post([
      ...Array.from({ length: 35 }, (_, i) => item({ user_agent: GPTBOT, time: old, path: `/old${i}` })),
      ...Array.from({ length: 5 }, (_, i) => item({ user_agent: GPTBOT, path: `/new${i}` })),
    ]);
    assert.equal(mixed.status, 202, mixed.text);
    assert.equal(mixed.body.expired, 35);
    assert.equal(mixed.headers.get('x-ratelimit-remaining'), '35'); // of 40: only the 5 live ones
    const allOld = await post(Array.from({ length: 40 }, (_, i) => item({ time: old, path: `/o${i}` })));
    assert.equal(allOld.status, 202, allOld.text);
    assert.equal(allOld.headers.get('x-ratelimit-remaining'), '35');
    const rest = await post(
      Array.from({ length: 35 }, (_, i) => item({ user_agent: GPTBOT, path: `/r${i}` })),
    );
    assert.equal(rest.status, 202, rest.text);
    assert.equal(rest.headers.get('x-ratelimit-remaining'), '0');
  });

  it('verifies a Web Bot Auth signature against the key directory its Signature-Agent names', {
    skip: !existsSync(VECTORS) && 'web-bot-auth corpus missing',
  }, async () => {
    const key = await t.newKey('B', 'intelligence');
    const { site, ingestToken } = await newSite(key, 'https://example.com/');
    const signed = (nonce: string, authority = 'example.com') => {
      const agent = `"${agentHost.origin}"`;
      const created = Math.floor(Date.now() / 1000) - 30;
      const params = `("@authority" "signature-agent");created=${created};keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=${created + 300};nonce="${nonce}";tag="web-bot-auth"`;
      const base = `"@authority": ${authority}\n"signature-agent": ${agent}\n"@signature-params": ${params}`;
      const sig = sign(null, Buffer.from(base), createPrivateKey({ key: edKey, format: 'jwk' }));
      return {
        signature: `sig1=:${sig.toString('base64')}:`,
        'signature-input': `sig1=${params}`,
        'signature-agent': agent,
      };
    };
    const ua = 'Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)';
    const res = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: {
        site: site.tracking_id,
        requests: [
          item({ user_agent: ua, ip: '198.51.100.50', headers: signed('n-1') }),
          item({ user_agent: ua, ip: '198.51.100.51', headers: signed('n-1') }), // replayed nonce
          item({ user_agent: ua, ip: '198.51.100.52', headers: signed('n-2', 'example.org') }), // another site's signature
          // An agent browsing with a browser's user agent, proven by its signature.
          item({ user_agent: CHROME, ip: '198.51.100.53', headers: signed('n-3') }),
          // A browser with a signature that does not verify stays a human visit.
          item({ user_agent: CHROME, ip: '198.51.100.54', headers: signed('n-4', 'example.org') }),
        ],
      },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.agents, 4);
    assert.equal(res.body.humans_ignored, 1);
    const rows = await events(site.id);
    const v = Object.fromEntries(rows.map((r) => [r.ip, r.verification]));
    assert.deepEqual([v['198.51.100.50'], v['198.51.100.51'], v['198.51.100.52']].sort(), [
      'signature',
      'spoofed',
      'spoofed',
    ]);
    const browsing = rows.find((r) => r.ip === '198.51.100.53')!;
    assert.equal(browsing.verification, 'signature');
    assert.equal(browsing.type, 'browse');
    assert.equal(browsing.platform, '127.0.0.1', 'named by its Signature-Agent host');
    assert.ok(agentHost.hits.some((h) => h.url === '/.well-known/http-message-signatures-directory'));
  });
});
