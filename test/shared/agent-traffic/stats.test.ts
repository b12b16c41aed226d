import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { SHIPPED_RANGES_FILE } from '../../../shared/agent-verification/ip-data.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// The statistics endpoints over traffic stored by the ingest pipeline: counts by platform, type
// and verification, AI referrals, top pages, a daily trend with gaps, the agent breakdown, the
// page ranking with citability, and cursor pagination of events. Another account's site is 404.

let t: TestApi;
let spec: SpecChecker;
let key: string;
let site: AgentSite;

const ranges = JSON.parse(readFileSync(SHIPPED_RANGES_FILE, 'utf8')).sources;
const inside = (source: string) => {
  const [net] = (ranges[source].ranges[0] as string).split('/');
  const parts = net!.split('.').map(Number);
  parts[3] = (parts[3] ?? 0) + 2;
  return parts.join('.');
};
const UA = {
  gptbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  claude:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  perplexity:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  chrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36',
};

const DAY = 86400_000;
let seq = 0;
function req(
  daysAgo: number,
  ua: string,
  ip: string,
  path: string,
  extra: Partial<IngestRequest> = {},
): IngestRequest {
  const time = new Date(Date.now() - daysAgo * DAY - 3600_000 - seq * 1000);
  return {
    time,
    method: 'GET',
    path,
    status: 200,
    ip,
    userAgent: ua,
    referer: null,
    hash: requestHash(`test ${seq++}`),
    ...extra,
  };
}

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'intelligence');
  const account = String((await call(t.url, '/api/v1/account', { key })).body.id);
  ({ site } = await registerSite(t.handle.db, { accountId: account, url: 'https://stats.example.com/' }));
  const gpt = inside('openai-gptbot');
  const claude = inside('anthropic');
  const batch: IngestRequest[] = [];
  // Days 1, 2 and 4 ago have data; day 3 ago is a gap.
  for (let i = 0; i < 30; i++) batch.push(req(1, UA.gptbot, gpt, `/docs/${i % 3}`));
  for (let i = 0; i < 10; i++)
    batch.push(req(2, UA.claude, claude, '/docs/0', { status: i < 4 ? 404 : 200 }));
  for (let i = 0; i < 5; i++) batch.push(req(4, UA.gptbot, '203.0.113.1', '/pricing'));
  for (let i = 0; i < 5; i++) batch.push(req(4, UA.perplexity, '203.0.113.2', '/pricing'));
  batch.push(req(1, UA.chrome, '198.51.100.1', '/docs/0', { referer: 'https://www.perplexity.ai/search' }));
  batch.push(req(1, UA.chrome, '198.51.100.1', '/docs/1'));
  const counts = await ingest(t.handle.db, site, 'collect', batch, verifier, { retentionDays: null });
  assert.equal(counts.stored, 50);
  // An event 40 days ago falls outside the default window.
  await ingest(t.handle.db, site, 'collect', [req(40, UA.gptbot, gpt, '/old')], verifier, {
    retentionDays: null,
  });
  // A scanned page carries its citability score into /pages.
  await t.handle.db
    .insertInto('scans')
    .values({
      id: 'sc_pagescore',
      url: 'https://stats.example.com/docs/0',
      domain: 'stats.example.com',
      mode: 'quick',
      status: 'done',
      results: JSON.stringify({
        'agent-readability': { overallScore: 60, grade: 'D', dimensions: [{ id: 'citability', score: 42 }] },
      }),
    })
    .execute();
  await t.handle.db
    .updateTable('scans')
    .set({ finished_at: new Date() })
    .where('id', '=', 'sc_pagescore')
    .execute();
});
after(() => t.close());

const path = (p: string) => `/api/v1/sites/${site.id}${p}`;

describe('agent-traffic statistics', () => {
  it('stats: platforms, types, verification, referrals, top pages and a daily trend with gaps', async () => {
    const res = await call(t.url, path('/stats'), { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/stats', res);
    const s = res.body;
    assert.equal(s.visits, 50);
    assert.equal(s.verifiedVisits, 40);
    assert.equal(s.spoofedVisits, 10);
    assert.equal(s.verifiedShare, 80);
    assert.deepEqual(
      s.platforms.map((p: { platform: string; visits: number }) => [p.platform, p.visits]),
      [
        ['OpenAI', 35],
        ['Anthropic', 10],
        ['Perplexity', 5],
      ],
    );
    assert.deepEqual(
      Object.fromEntries(s.types.map((x: { type: string; visits: number }) => [x.type, x.visits])),
      { training: 45, search: 5 },
    );
    assert.equal(s.aiReferrals.visits, 1);
    assert.equal(s.aiReferrals.platforms[0].platform, 'Perplexity');
    assert.equal(s.topPages[0].path, '/docs/0');
    assert.equal(s.topPages[0].visits, 20);
    const byDay = Object.fromEntries(s.daily.map((d: { date: string }) => [d.date, d]));
    const dayOf = (n: number) => new Date(Date.now() - n * DAY - 3600_000).toISOString().slice(0, 10);
    assert.equal(byDay[dayOf(1)].visits, 30);
    assert.equal(byDay[dayOf(3)].covered, false, 'a day without data is a gap');
    assert.equal(byDay[dayOf(3)].visits, null);
    assert.ok(s.coverage.daysMissing.includes(dayOf(3)));

    const wide = await call(
      t.url,
      `${path('/stats')}?since=${new Date(Date.now() - 60 * DAY).toISOString()}`,
      { key },
    );
    assert.equal(wide.body.visits, 51);
    const bad = await call(t.url, `${path('/stats')}?since=yesterday`, { key });
    assert.equal(bad.status, 400);
  });

  it('since: 2000-01-01 or later on every window; earlier is a 400 naming query.since', async () => {
    // since=0001-01-01 built a daily[] of 730,000 days (83 MB); since=0000-01-01 reached Postgres,
    // which has no year 0 (422).
    for (const since of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '1999-12-31T23:59:59Z']) {
      for (const p of ['/agents', '/pages', '/insights', '/stats']) {
        const res = await call(t.url, `${path(p)}?since=${since}`, { key });
        assert.equal(res.status, 400, `${p}?since=${since}: ${res.status} ${res.text.slice(0, 200)}`);
        assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
        assert.deepEqual(
          res.body.errors.map((e: { field: string }) => e.field),
          ['query.since'],
        );
        assert.match(res.body.detail, /2000-01-01/);
      }
    }
    // The floor itself is a window (the rollups outlive the raw events, so no retention bound).
    const res = await call(t.url, `${path('/stats')}?since=2000-01-01T00:00:00Z`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/stats', res);
    assert.equal(res.body.visits, 51);
    assert.equal(res.body.daily[0].date, '2000-01-01');
  });

  it('agents: per platform and agent with share, first/last seen and verification mix', async () => {
    const res = await call(t.url, path('/agents'), { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/agents', res);
    const openai = res.body.platforms.find((p: { platform: string }) => p.platform === 'OpenAI');
    assert.equal(openai.visits, 35);
    assert.equal(openai.share, 70);
    assert.deepEqual(openai.verification, {
      signature: 0,
      ip: 30,
      rdns: 0,
      none: 0,
      pending: 0,
      unverified: 0,
      spoofed: 5,
    });
    assert.equal(openai.agents[0].agent, 'GPTBot');
    assert.ok(openai.firstSeen < openai.lastSeen);
  });

  it('pages: ranked by agent visits with the platform split, 404s and citability', async () => {
    const res = await call(t.url, path('/pages'), { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/pages', res);
    const [first] = res.body.pages;
    assert.equal(first.path, '/docs/0');
    assert.equal(first.visits, 20);
    assert.deepEqual(first.platforms, { OpenAI: 10, Anthropic: 10 });
    assert.equal(first.notFound, 4);
    assert.deepEqual(first.citability?.score, 42);
    assert.equal(res.body.pages.find((p: { path: string }) => p.path === '/pricing').citability, null);
  });

  it("filters: agent, page and referrer narrow /stats, /agents and /pages as the dashboard's chips do", async () => {
    const get = async (p: string, op: string) => {
      const res = await call(t.url, path(p), { key });
      assert.equal(res.status, 200, `${p}: ${res.text}`);
      spec.check('GET', `/api/v1/sites/{id}${op}`, res);
      return res.body;
    };
    const platforms = (b: { platforms: { platform: string; visits: number }[] }) =>
      b.platforms.map((x) => [x.platform, x.visits]);

    const gpt = await get('/stats?agent=GPTBot', '/stats');
    assert.equal(gpt.visits, 35);
    assert.deepEqual(platforms(gpt), [['OpenAI', 35]]);
    assert.equal(gpt.aiReferrals.visits, 1, 'referrals are people: an agent filter leaves them');

    const docs0 = await get('/stats?page=/docs/0', '/stats');
    assert.equal(docs0.visits, 20);
    assert.deepEqual(platforms(docs0).sort(), [
      ['Anthropic', 10],
      ['OpenAI', 10],
    ]);
    const pricing = await get('/stats?page=/pricing', '/stats');
    assert.equal(pricing.aiReferrals.visits, 0, 'nobody was sent to /pricing');

    const perplexity = await get('/stats?referrer=Perplexity', '/stats');
    assert.equal(perplexity.aiReferrals.visits, 1);
    assert.equal(perplexity.visits, 20, 'agent visits to the page Perplexity sent people to');

    const both = await get('/stats?agent=ClaudeBot&page=/docs/0', '/stats');
    assert.equal(both.visits, 10);

    const claude = await get('/agents?agent=ClaudeBot', '/agents');
    assert.deepEqual(platforms(claude), [['Anthropic', 10]]);
    const ranked = await get('/pages?agent=GPTBot', '/pages');
    assert.deepEqual(
      ranked.pages.map((x: { path: string; visits: number }) => [x.path, x.visits]),
      [
        ['/docs/0', 10],
        ['/docs/1', 10],
        ['/docs/2', 10],
        ['/pricing', 5],
      ],
    );
    assert.equal((await get('/stats?agent=NobodyBot', '/stats')).visits, 0);

    const empty = await call(t.url, path('/stats?agent='), { key });
    assert.equal(empty.status, 400);
    assert.deepEqual(
      empty.body.errors.map((e: { field: string }) => e.field),
      ['query.agent'],
    );
  });

  it('events: newest first, cursor pagination without gaps or repeats, filters', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await call(t.url, path(`/events${q}`), { key });
      assert.equal(res.status, 200, res.text);
      if (pages === 0) spec.check('GET', '/api/v1/sites/{id}/events', res);
      for (const e of res.body.events) seen.push(e.timestamp + e.id);
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(seen.length, 51);
    assert.equal(new Set(seen).size, 51);
    assert.deepEqual([...seen].sort().reverse(), seen, 'newest first');
    assert.equal(pages, 8);

    const spoofed = await call(t.url, path('/events?verification=spoofed&limit=1000'), { key });
    assert.equal(spoofed.body.events.length, 10);
    const anth = await call(t.url, path('/events?platform=Anthropic&path=/docs/0'), { key });
    assert.equal(anth.body.events.length, 10);
    assert.equal(anth.body.events[0].pageUrl, 'https://stats.example.com/docs/0');
    assert.equal((await call(t.url, path('/events?limit=1001'), { key })).status, 400);
    assert.equal((await call(t.url, path('/events?cursor=nonsense'), { key })).status, 400);
  });

  it('a window starting inside a day: every endpoint counts from 00:00 UTC of the day that contains since', async () => {
    // Pages, paths, AI referrals and coverage are kept per UTC day, agent visits per hour. The
    // start is the midnight of since's day for every part (moving it to the next midnight dropped
    // up to 24 hours of the day asked for), and each answer says so.
    const { site: early } = await registerSite(t.handle.db, {
      accountId: site.account_id,
      url: 'https://early.example.com/',
    });
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const yesterday = midnight.getTime() - DAY;
    const at = (ms: number, p: string, status: number, i: number): IngestRequest => ({
      time: new Date(ms + i * 1000),
      method: 'GET',
      path: p,
      status,
      ip: '198.51.100.20',
      userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
      referer: null,
      hash: requestHash(`early ${p} ${i}`),
    });
    const todayMs = midnight.getTime() + Math.floor((Date.now() - midnight.getTime()) / 2);
    const batch = [
      ...Array.from({ length: 4 }, (_, i) => at(yesterday - 3600_000, '/before', 200, i)),
      ...Array.from({ length: 5 }, (_, i) => at(yesterday + 3600_000, '/early', 404, i)),
      ...Array.from({ length: 2 }, (_, i) => at(midnight.getTime() - 1800_000, '/late', 200, i)),
      ...Array.from({ length: 3 }, (_, i) => at(todayMs, '/today', 200, i)),
    ];
    assert.equal(
      (await ingest(t.handle.db, early, 'collect', batch, verifier, { retentionDays: null })).stored,
      14,
    );

    const since = new Date(midnight.getTime() - 3600_000).toISOString(); // yesterday 23:00
    const get = async (p: string, s = since) => {
      const res = await call(t.url, `/api/v1/sites/${early.id}${p}?since=${s}`, { key });
      assert.equal(res.status, 200, res.text);
      spec.check('GET', `/api/v1/sites/{id}${p}`, res);
      return res.body;
    };
    const yesterdayIso = new Date(yesterday).toISOString();
    const stats = await get('/stats');
    // Yesterday's midnight: the whole day since names counts, the day before does not.
    assert.equal(stats.since, yesterdayIso);
    assert.equal(stats.requestedSince, since);
    assert.equal(stats.windowRule, 'utc-day-of-since');
    assert.equal(stats.visits, 10);
    assert.deepEqual(
      stats.topPages.map((p: { path: string; visits: number }) => [p.path, p.visits]),
      [
        ['/early', 5],
        ['/today', 3],
        ['/late', 2],
      ],
    );
    assert.deepEqual(
      stats.daily.map((d: { date: string; visits: number | null }) => [d.date, d.visits]),
      [
        [yesterdayIso.slice(0, 10), 7],
        [midnight.toISOString().slice(0, 10), 3],
      ],
    );
    const agents = await get('/agents');
    assert.equal(agents.since, stats.since);
    assert.equal(agents.windowRule, 'utc-day-of-since');
    assert.equal(agents.visits, stats.visits);
    const pages = await get('/pages');
    assert.equal(pages.since, stats.since);
    assert.deepEqual(
      pages.pages.map((p: { path: string; visits: number; notFound: number }) => [
        p.path,
        p.visits,
        p.notFound,
      ]),
      [
        ['/early', 5, 5],
        ['/today', 3, 0],
        ['/late', 2, 0],
      ],
    );
    const insights = await get('/insights');
    assert.equal(insights.since, stats.since);
    assert.ok(!JSON.stringify(insights).includes('/before'), 'traffic of the day before since counted');

    // A window inside today starts at today's midnight.
    const inToday = new Date(
      midnight.getTime() + Math.floor(((Date.now() - midnight.getTime()) * 3) / 4),
    ).toISOString();
    const today = await get('/stats', inToday);
    assert.equal(today.since, midnight.toISOString());
    assert.equal(today.requestedSince, inToday);
    assert.equal(today.visits, 3);
    assert.equal(today.topPages[0].visits, 3);
  });

  it("another account's site is 404 on every endpoint, by id and by tracking id; A keys get 403", async () => {
    const stranger = await t.newKey('B', 'optimisation');
    for (const p of ['/stats', '/events', '/agents', '/pages']) {
      for (const id of [site.id, site.tracking_id]) {
        const res = await call(t.url, `/api/v1/sites/${id}${p}`, { key: stranger });
        assert.equal(res.status, 404, `${p} ${res.text}`);
        assert.equal(res.body.code, 'not_found');
      }
    }
    assert.equal((await call(t.url, path('/stats'), { key: await t.newKey('A', 'agent') })).status, 403);
    assert.equal((await call(t.url, `/api/v1/sites/${site.tracking_id}/stats`, { key })).status, 200);
  });
});
