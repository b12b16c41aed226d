import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { assertOwnPagesPass, type SelfScan, startSelfScan } from '../../helpers/self-scan.ts';

// Sightline's own full scan (render, axe, Lighthouse) of the variant B console pages: the sites
// list, the answer that shows a new site's ingest token and snippets, a site's agent-traffic
// dashboard with data (also over 7 days, filtered to one page), its raw event stream and its
// agent-readability scan page. The pages need a session, so their HTML is taken signed in and
// served unchanged from the snapshot host (helpers/self-scan.ts).

const chromiumPath = findChromium()?.path;
const UAS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
];

describe('Sightline scans its own B console pages', {
  skip: chromiumPath ? false : 'no Chromium installed',
}, () => {
  let self: SelfScan;
  const NAMES = [
    '/agent-sites',
    '/agent-site-new',
    '/agent-site',
    '/agent-site-filtered',
    '/agent-site-events',
    '/agent-site-citability',
  ];

  before(async () => {
    self = await startSelfScan(NAMES);
  });
  after(async () => {
    await self?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on the B pages', async () => {
    const { t, snap, pages } = self;
    const me = await signedInPerson(t, 'self.b@example.test', { tier: 'intelligence' });
    const get = async (path: string) => {
      const r = await me.get(path);
      assert.equal(r.status, 200, path);
      return r.text;
    };

    // Register a site through the console form: that answer shows the token and the snippets.
    const reg = await me.post('/console/agent-sites', { url: 'https://shop.example/', label: 'Shop' });
    assert.equal(reg.status, 201);
    const registered = reg.text;
    pages.set('/agent-site-new', registered);
    const token = /id="ingest-token" class="mono" type="text" readonly value="([^"]+)"/.exec(registered)![1]!;
    const trackingId = /<dd><code>(site_[0-9A-Za-z]{16})<\/code><\/dd>/.exec(registered)![1]!;
    const siteId = /href="\/console\/agent-sites\/(\d+)"/.exec(registered)![1]!;

    // Some agent traffic over a week, so the dashboard has its chart, tables and insights.
    const now = Date.now();
    const requests = Array.from({ length: 400 }, (_, i) => ({
      time: new Date(now - (i % 7) * 86_400_000 - i * 1000).toISOString(),
      method: 'GET',
      path: i % 40 === 0 ? '/llms.txt' : `/guides/${i % 9}`,
      status: i % 40 === 0 ? 404 : 200,
      ip: `198.51.100.${(i % 50) + 1}`,
      user_agent: UAS[i % UAS.length]!,
    }));
    const sent = await fetch(`${t.url}/api/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site: trackingId, requests }),
    });
    assert.equal(sent.status, 202, await sent.text());
    pages.set('/agent-sites', await get('/console/agent-sites'));
    pages.set('/agent-site', await get(`/console/agent-sites/${siteId}`));
    // The same dashboard over 7 days, filtered to one page (range picker, chips, filter links).
    pages.set(
      '/agent-site-filtered',
      await get(`/console/agent-sites/${siteId}?range=7d&page=%2Fguides%2F1`),
    );
    pages.set('/agent-site-events', await get(`/console/agent-sites/${siteId}/events`));
    pages.set('/agent-site-citability', await get(`/console/agent-sites/${siteId}/citability`));

    const key = await t.newKey('A', 'agent', { rateLimit: 10_000 });
    await assertOwnPagesPass(
      t,
      key,
      NAMES.map((name) => snap.origin + name),
    );
  });
});
