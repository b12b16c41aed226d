import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_CSP } from '../../../api/pages/layout.ts';
import { loadConfig } from '../../../shared/config.ts';
import { freePort } from '../../../shared/db/embedded.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createMailer } from '../../../shared/people/mail.ts';
import { acceptInvite, createInvite } from '../../../shared/people/people.ts';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Sightline's own full scan (render, axe, Lighthouse) of the variant B console pages: the sites
// list, the answer that shows a new site's ingest token and snippets, a site's agent-traffic
// dashboard with data (also over 7 days, filtered to one page), its raw event stream and its agent-readability scan page. As in console-self-scan.test.ts, the pages need a session, so their HTML is
// taken signed in and served unchanged (same CSP, same /assets) from a snapshot host.

const chromiumPath = findChromium()?.path;
const PASSWORD = 'correct horse battery staple';
const UAS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
];

describe('Sightline scans its own B console pages', {
  skip: chromiumPath ? false : 'no Chromium installed',
}, () => {
  let t: TestStack;
  let snap: FixtureServer;
  const pages = new Map<string, string>();
  const NAMES = [
    '/agent-sites',
    '/agent-site-new',
    '/agent-site',
    '/agent-site-filtered',
    '/agent-site-events',
    '/agent-site-citability',
  ];

  before(async () => {
    const apiPort = await freePort();
    const apiOrigin = `http://127.0.0.1:${apiPort}`;
    const routes: Record<string, (req: unknown, res: import('node:http').ServerResponse) => unknown> = {};
    for (const name of NAMES) {
      routes[name] = (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP })
          .end(pages.get(name));
    }
    for (const asset of ['app.css', 'app.js', 'uplot.js', 'uplot.css', 'favicon.svg']) {
      routes[`/assets/${asset}`] = async (_req, res) => {
        const r = await fetch(`${apiOrigin}/assets/${asset}`);
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
        res.end(Buffer.from(await r.arrayBuffer()));
      };
    }
    snap = await startFixtureServer({ routes });
    t = await startTestStack({
      PORT: String(apiPort),
      SCAN_ALLOW_HOSTS: `127.0.0.1:${apiPort},127.0.0.1:${snap.port}`,
    });
  });
  after(async () => {
    await t?.close();
    await snap?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on the B pages', async () => {
    const config = loadConfig({ ...process.env, PUBLIC_SITE_URL: t.url });
    const mailer = createMailer({ MAIL_FROM: 'x@sightline.test' }, createLogger('test', undefined, 'silent'));
    const invite = await createInvite(
      { db: t.handle.db, config },
      { email: 'self.b@example.test', tier: 'intelligence' },
    );
    const made = await acceptInvite(
      { db: t.handle.db, config, mailer },
      invite.link.split('/invite/')[1]!,
      PASSWORD,
    );
    assert.ok(made);

    const signin = await fetch(`${t.url}/signin`, { headers: { accept: 'text/html' } });
    const csrfCookie = signin.headers.getSetCookie()[0]!.split(';')[0]!;
    const anon = /name="_csrf" value="([^"]+)"/.exec(await signin.text())![1]!;
    const session = await fetch(`${t.url}/signin`, {
      method: 'POST',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: csrfCookie,
      },
      body: new URLSearchParams({ _csrf: anon, email: made.email, password: PASSWORD }),
      redirect: 'manual',
    });
    assert.equal(session.status, 303);
    const cookie = session.headers
      .getSetCookie()
      .find((c) => c.startsWith('sl_session='))!
      .split(';')[0]!;
    const get = async (path: string) => {
      const r = await fetch(t.url + path, { headers: { accept: 'text/html', cookie } });
      assert.equal(r.status, 200, path);
      return r.text();
    };

    // Register a site through the console form: that answer shows the token and the snippets.
    const list = await get('/console/agent-sites');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(list)![1]!;
    const reg = await fetch(`${t.url}/console/agent-sites`, {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, url: 'https://shop.example/', label: 'Shop' }),
    });
    assert.equal(reg.status, 201);
    const registered = await reg.text();
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
    const results: string[] = [];
    const failures: string[] = [];
    for (const name of NAMES) {
      const url = snap.origin + name;
      const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(url)}&mode=full&wait=120`, {
        key,
      });
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      const dim = (id: string) => res.body.dimensions.find((d: { id: string }) => d.id === id);
      const a11y = dim('accessibility');
      const mobile = dim('mobile');
      const scan = await t.handle.db
        .selectFrom('scans')
        .select('artifacts')
        .where('id', '=', res.body.scanId)
        .executeTakeFirstOrThrow();
      const lh = (scan.artifacts as { Lighthouse?: { categories?: Record<string, number | null> } })
        .Lighthouse;
      const lhA11y = Math.round((lh?.categories?.accessibility ?? 0) * 100);
      results.push(
        `${name}: accessibility ${a11y.score}, mobile ${mobile.score}, Lighthouse accessibility ${lhA11y}`,
      );
      if (a11y.score < 95) failures.push(`${name} accessibility ${a11y.score}: ${a11y.issues.join('; ')}`);
      if (mobile.score < 90) failures.push(`${name} mobile ${mobile.score}: ${mobile.issues.join('; ')}`);
      if (lhA11y < 95) failures.push(`${name} Lighthouse accessibility ${lhA11y}`);
    }
    console.log(results.join('\n'));
    assert.deepEqual(failures, [], failures.join('\n'));
  });
});
