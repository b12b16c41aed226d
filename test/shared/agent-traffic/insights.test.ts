import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { agentCorrelation, spearman } from '../../../shared/agent-traffic/correlation.ts';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { SHIPPED_RANGES_FILE } from '../../../shared/agent-verification/ip-data.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// Insights (each rule from its evidence), deployment benchmarks (aggregates only, the account's
// own percentile ranks) with trends, and agent_correlation on the B scan result.

let t: TestApi;
let spec: SpecChecker;
let key: string;
let site: AgentSite;
const UA = {
  searchbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  gptbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  ccbot: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
};
const searchbotNet = JSON.parse(readFileSync(SHIPPED_RANGES_FILE, 'utf8')).sources['openai-searchbot']
  .ranges[0] as string;
/** An address inside OpenAI's first published OAI-SearchBot prefix: a verified search agent. */
const searchbotIp = searchbotNet.split('/')[0]!.replace(/\.(\d+)$/, (_m, d) => `.${Number(d) + 1}`);
let seq = 0;
const req = (ua: string, ip: string, path: string, status = 200, hoursAgo = 2): IngestRequest => ({
  time: new Date(Date.now() - hoursAgo * 3600_000 - seq * 1000),
  method: 'GET',
  path,
  status,
  ip,
  userAgent: ua,
  referer: null,
  hash: requestHash(`insight ${seq++}`),
});

const dims = (score: number, citability = score) => [
  { id: 'structure', weight: 0.25, score },
  { id: 'citability', weight: 0.25, score: citability },
  { id: 'discoverability', weight: 0.15, score },
  { id: 'agent_interface', weight: 0.2, score },
  { id: 'transactability', weight: 0.15, score },
];
async function scan(id: string, url: string, overall: number, citability = overall, robots?: string) {
  await t.handle.db
    .insertInto('scans')
    .values({
      id,
      url,
      domain: new URL(url).hostname,
      mode: 'quick',
      status: 'done',
      results: JSON.stringify({
        'agent-readability': {
          overallScore: overall,
          grade: 'C',
          modelVersion: '2.0.1',
          dimensions: dims(overall, citability),
        },
      }),
      artifacts: JSON.stringify(
        robots
          ? { RobotsTxt: { url: `${url}robots.txt`, status: 200, contentType: 'text/plain', body: robots } }
          : {},
      ),
    })
    .execute();
  await t.handle.db.updateTable('scans').set({ finished_at: new Date() }).where('id', '=', id).execute();
}

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'optimisation');
  const account = String((await call(t.url, '/api/v1/account', { key })).body.id);
  ({ site } = await registerSite(t.handle.db, { accountId: account, url: 'https://insight.example.com/' }));
  await scan('sc_insightroot', 'https://insight.example.com/', 70, 70, 'User-agent: *\nAllow: /\n');
  await scan('sc_insightdocs', 'https://insight.example.com/docs', 40, 30);
  await scan('sc_insightblog', 'https://insight.example.com/blog', 60);
  const batch: IngestRequest[] = [];
  for (let i = 0; i < 10; i++) batch.push(req(UA.searchbot, searchbotIp, '/docs', i < 6 ? 403 : 200));
  for (let i = 0; i < 4; i++) batch.push(req(UA.gptbot, '203.0.113.41', '/blog')); // spoofed: outside OpenAI ranges
  for (let i = 0; i < 3; i++) batch.push(req(UA.ccbot, '198.51.100.1', '/llms.txt', 404));
  for (let i = 0; i < 2; i++) batch.push(req(UA.ccbot, '198.51.100.1', '/old-page', 404));
  for (let i = 0; i < 100; i++) batch.push(req(UA.ccbot, '198.51.100.1', '/docs'));
  for (let i = 0; i < 30; i++) batch.push(req(UA.ccbot, '198.51.100.1', '/', 200, 30));
  await ingest(t.handle.db, site, 'collect', batch, verifier, { retentionDays: null });
  // Another account's site and scans: part of the aggregates, never shown by name.
  const other = String(
    (await call(t.url, '/api/v1/account', { key: await t.newKey('B', 'intelligence') })).body.id,
  );
  const { site: otherSite } = await registerSite(t.handle.db, {
    accountId: other,
    url: 'https://secret-competitor.example.com/',
  });
  await scan('sc_othersite01', 'https://secret-competitor.example.com/', 90);
  await ingest(t.handle.db, otherSite, 'collect', [req(UA.ccbot, '198.51.100.9', '/')], verifier, {
    retentionDays: null,
  });
  // A third site seen by OpenAI's search agent only: no (platform, type) pair covers all three.
  const third = String(
    (await call(t.url, '/api/v1/account', { key: await t.newKey('B', 'intelligence') })).body.id,
  );
  const { site: thirdSite } = await registerSite(t.handle.db, {
    accountId: third,
    url: 'https://third.example.com/',
  });
  await ingest(t.handle.db, thirdSite, 'collect', [req(UA.searchbot, searchbotIp, '/')], verifier, {
    retentionDays: null,
  });
});
after(() => t.close());

describe('insights, benchmarks and agent_correlation', () => {
  it('insights: each rule fires from its evidence, high priority first', async () => {
    const res = await call(t.url, `/api/v1/sites/${site.id}/insights`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/insights', res);
    const ids = res.body.insights.map((i: { id: string }) => i.id);
    for (const id of [
      'answer_agent_errors',
      'spoofed_agents',
      'llms_txt_missing',
      'agent_404s',
      'crawled_but_weak_citability',
      'training_dominates',
      'coverage_gaps',
    ])
      assert.ok(ids.includes(id), `${id} missing from ${ids}`);
    const prios = res.body.insights.map((i: { priority: string }) =>
      ['high', 'medium', 'low'].indexOf(i.priority),
    );
    assert.deepEqual(prios, [...prios].sort());
    const errors = res.body.insights.find((i: { id: string }) => i.id === 'answer_agent_errors');
    assert.equal(errors.data.agent, 'OAI-SearchBot');
    assert.equal(errors.data.errors, 6);
    assert.equal(errors.data.robotsAllows, true);
    const weak = res.body.insights.find((i: { id: string }) => i.id === 'crawled_but_weak_citability');
    assert.deepEqual(
      weak.data.pages.map((p: { path: string }) => p.path),
      ['/docs'],
    );
    assert.ok(res.body.insights.every((i: { fix: string; evidence: string }) => i.fix && i.evidence));

    const stranger = await t.newKey('B', 'intelligence');
    assert.equal((await call(t.url, `/api/v1/sites/${site.id}/insights`, { key: stranger })).status, 404);
  });

  it('benchmarks: percentiles over every scanned site, own ranks, no other account’s data', async () => {
    const res = await call(t.url, '/api/v1/benchmarks', { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/benchmarks', res);
    const overall = res.body.dimensions.find((d: { id: string }) => d.id === 'overall');
    assert.equal(overall.sites, 4);
    assert.equal(overall.p50, 65);
    const mine = res.body.yourSites;
    assert.equal(mine.length, 1);
    assert.equal(mine[0].ranks.overall.score, 70);
    assert.equal(mine[0].ranks.overall.percentile, 67);
    assert.ok(!res.text.includes('secret-competitor'), 'another account’s site is never named');
    // Sites are counted once each, whatever platforms and types saw them.
    assert.equal(res.body.traffic.sitesWithTraffic, 3);
    // Fewer than 3 sites per platform: folded into Other.
    assert.deepEqual(
      res.body.traffic.platforms.map((p: { platform: string }) => p.platform),
      ['Other'],
    );

    const trends = await call(t.url, '/api/v1/benchmarks/trends?weeks=4', { key });
    assert.equal(trends.status, 200, trends.text);
    spec.check('GET', '/api/v1/benchmarks/trends', trends);
    assert.ok(trends.body.weeks.length >= 1);
    assert.equal(trends.body.weeks.at(-1).scans, 4);
    assert.equal(
      (await call(t.url, '/api/v1/benchmarks', { key: await t.newKey('A', 'agent') })).status,
      403,
    );
  });

  it('agent_correlation: Spearman between page readability and agent visits, null without traffic', async () => {
    assert.equal(spearman([1, 2, 3], [10, 20, 30]), 1);
    assert.equal(spearman([1, 2, 3], [30, 20, 10]), -1);
    assert.equal(spearman([1, 2], [1, 2]), null);
    // Pages: / (70, 30 visits), /docs (40, 106 visits), /blog (60, 4 visits).
    const url = 'https://insight.example.com/';
    assert.equal(await agentCorrelation(t.handle.db, url, { site }), 25); // rho = -0.5 -> 25
    assert.equal(await agentCorrelation(t.handle.db, url, { accountId: site.account_id }), 25);
    // The site owner's poll carries it; a keyless one never does (nobody's traffic is its own).
    const res = await call(t.url, '/api/v1/scans/sc_insightroot?view=b', { key });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.researchSignals, [{ id: 'agent_correlation', weight: 0, score: 25 }]);
    const anonymous = await call(t.url, '/api/v1/scans/sc_insightroot?view=b');
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.body.researchSignals[0].score, null);
    assert.equal(await agentCorrelation(t.handle.db, url), null);
    const none = await call(t.url, '/api/v1/scans/sc_othersite01?view=b', { key });
    assert.equal(none.body.researchSignals[0].score, null);
  });

  it('agent_correlation reads only the asking account’s site when two accounts register the same URL', async () => {
    // A second account registers the same URL and sends nothing: its number is null, not the
    // first account's (the site used to be picked by URL alone, the oldest registration first).
    const key2 = await t.newKey('B', 'intelligence');
    const account2 = String((await call(t.url, '/api/v1/account', { key: key2 })).body.id);
    const { site: site2 } = await registerSite(t.handle.db, { accountId: account2, url: site.url });
    const citability = async (id: string, k: string) => {
      const r = await call(t.url, `/api/v1/sites/${id}/citability`, { key: k });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.scanId, 'sc_insightroot');
      return r.body.researchSignals;
    };
    assert.deepEqual(await citability(site2.id, key2), [{ id: 'agent_correlation', weight: 0, score: null }]);
    assert.deepEqual(await citability(site.id, key), [{ id: 'agent_correlation', weight: 0, score: 25 }]);
    // So for a keyed poll of the scan.
    const polled = await call(t.url, '/api/v1/scans/sc_insightroot?view=b', { key: key2 });
    assert.equal(polled.body.researchSignals[0].score, null);
  });

  it('spoofed_agents: counted from the rollups like /stats spoofedVisits, past 10,000 and past retention', async () => {
    // The insight counted the newest 10,000 spoofed events (so it capped there while /stats showed
    // the true number) and walked every event of the window when spoofing was rare.
    const { site: busy } = await registerSite(t.handle.db, {
      accountId: site.account_id,
      url: 'https://spoofed.example.com/',
    });
    const ips = ['203.0.113.50', '203.0.113.51', '203.0.113.52', '203.0.113.53'];
    const start = Date.now() - 2 * 3600_000;
    const all: IngestRequest[] = Array.from({ length: 10_005 }, (_, i) => ({
      time: new Date(start - Math.floor(i / ips.length) * 400), // the newest request from each address at once
      method: 'GET',
      path: `/p${i % 50}`,
      status: 200,
      ip: ips[i % ips.length]!, // outside OpenAI's ranges: spoofed
      userAgent: UA.gptbot,
      referer: null,
      hash: requestHash(`spoofed ${i}`),
    }));
    for (let i = 0; i < all.length; i += 2500)
      await ingest(t.handle.db, busy, 'collect', all.slice(i, i + 2500), verifier, { retentionDays: null });
    // A rare second spoofer, hours before: its examples come from its own newest hour.
    const claude =
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
    const rare = {
      time: new Date(start - 20 * 3600_000),
      ip: '192.0.2.77',
      userAgent: claude,
      hash: requestHash('rare'),
    };
    await ingest(t.handle.db, busy, 'collect', [{ ...all[0]!, ...rare }], verifier, { retentionDays: null });
    const spoofedOf = async () => {
      const stats = await call(t.url, `/api/v1/sites/${busy.id}/stats`, { key });
      const res = await call(t.url, `/api/v1/sites/${busy.id}/insights`, { key });
      assert.equal(res.status, 200, res.text);
      spec.check('GET', '/api/v1/sites/{id}/insights', res);
      return {
        stats: stats.body,
        insight: res.body.insights.find((i: { id: string }) => i.id === 'spoofed_agents'),
      };
    };
    const { stats, insight } = await spoofedOf();
    assert.equal(stats.spoofedVisits, 10_006);
    assert.equal(insight.data.visits, stats.spoofedVisits);
    assert.equal(insight.priority, 'high');
    assert.match(insight.title, /^10006 requests/);
    assert.deepEqual(
      insight.data.agents.map((a: { agent: string; visits: number; ips: string[] }) => [
        a.agent,
        a.visits,
        a.ips,
      ]),
      [
        ['GPTBot', 10_005, ips],
        ['ClaudeBot', 1, ['192.0.2.77']],
      ],
    );

    // Retention drops raw events and keeps the rollups: the count stays, without examples.
    await t.handle.db.deleteFrom('agent_events').where('site_id', '=', busy.id).execute();
    const pruned = await spoofedOf();
    assert.equal(pruned.stats.spoofedVisits, 10_006);
    assert.equal(pruned.insight?.data.visits, 10_006);
    assert.deepEqual(pruned.insight.data.agents[0].ips, []);
    assert.doesNotMatch(pruned.insight.evidence, /e\.g\./);
  });
});
