import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import type { AgentSite } from '../../../shared/db/tables/agent-traffic.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// Classic search crawlers (msnbot, Slurp, Baiduspider, YandexBot, Exalead's Exabot) are stored as
// agents of purpose `search-engine`: shown beside the AI agents, never in the AI totals.

let t: TestApi;
let spec: SpecChecker;
let key: string;
let site: AgentSite;

const UA = {
  gptbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  yandex: 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
  slurp: 'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
  baidu: 'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
  msnbot: 'msnbot/2.0b (+http://search.msn.com/msnbot.htm)',
  exabot: 'Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)',
};

let seq = 0;
const req = (ua: string): IngestRequest => ({
  time: new Date(Date.now() - 3600_000 - seq * 1000),
  method: 'GET',
  path: '/feed',
  status: 200,
  ip: '203.0.113.9',
  userAgent: ua,
  referer: null,
  hash: requestHash(`search-engines ${seq++}`),
});

before(async () => {
  t = await startTestApi();
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'intelligence');
  const account = String((await call(t.url, '/api/v1/account', { key })).body.id);
  ({ site } = await registerSite(t.handle.db, { accountId: account, url: 'https://engines.example.com/' }));
  const batch = [
    ...Array.from({ length: 3 }, () => req(UA.gptbot)),
    ...Array.from({ length: 4 }, () => req(UA.yandex)),
    ...Array.from({ length: 2 }, () => req(UA.slurp)),
    req(UA.baidu),
    req(UA.msnbot),
    req(UA.exabot),
  ];
  const counts = await ingest(t.handle.db, site, 'collect', batch, verifier, { retentionDays: null });
  assert.equal(counts.stored, 12, 'every search-engine visit is stored, none dropped');
  assert.equal(counts.bots_ignored, 0);
});
after(() => t.close());

describe('classic search engines beside the AI agents', () => {
  it('stats count them apart from the AI totals', async () => {
    const res = await call(t.url, `/api/v1/sites/${site.id}/stats`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/stats', res);
    const s = res.body;
    assert.equal(s.visits, 3, 'AI visits only');
    assert.deepEqual(
      s.platforms.map((p: { platform: string }) => p.platform),
      ['OpenAI'],
    );
    assert.deepEqual(s.types, [{ type: 'training', visits: 3, share: 100 }]);
    assert.equal(s.searchEngines.visits, 9);
    assert.deepEqual(s.searchEngines.platforms, [
      { platform: 'Yandex', visits: 4 },
      { platform: 'Yahoo', visits: 2 },
      { platform: 'Baidu', visits: 1 },
      { platform: 'Exalead', visits: 1 },
      { platform: 'Microsoft', visits: 1 },
    ]);
  });

  it('events name them with their purpose', async () => {
    const res = await call(t.url, `/api/v1/sites/${site.id}/events?type=search-engine`, { key });
    assert.equal(res.status, 200, res.text);
    spec.check('GET', '/api/v1/sites/{id}/events', res);
    const agents = new Set(res.body.events.map((e: { agent: string }) => e.agent));
    assert.deepEqual([...agents].sort(), ['Baiduspider', 'Exalead', 'Slurp', 'YandexBot', 'msnbot']);
  });
});
