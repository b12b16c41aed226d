import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PAGE_CSP } from '../../../api/pages/layout.ts';
import { setSubscription } from '../../../shared/accounts/accounts.ts';
import { loadConfig } from '../../../shared/config.ts';
import { freePort } from '../../../shared/db/embedded.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createMailer } from '../../../shared/people/mail.ts';
import { acceptInvite, createInvite } from '../../../shared/people/people.ts';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Sightline scores its own pages with its own full scan (browser render, axe, Lighthouse): the
// console must pass the accessibility and mobile checks it sells. Public pages are scanned where
// they are served; console pages need a session, which a scanner does not have, so their HTML is
// taken with a signed-in session and served unchanged (same CSP, same /assets) from a snapshot host.

const chromiumPath = findChromium()?.path;
const PASSWORD = 'correct horse battery staple';

describe('Sightline scans its own pages', { skip: chromiumPath ? false : 'no Chromium installed' }, () => {
  let t: TestStack;
  let snap: FixtureServer;
  const pages = new Map<string, string>();

  before(async () => {
    const apiPort = await freePort();
    const apiOrigin = `http://127.0.0.1:${apiPort}`;
    const routes: Record<string, (req: unknown, res: import('node:http').ServerResponse) => unknown> = {};
    for (const name of ['/console', '/keys', '/sites', '/site', '/account']) {
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
      AUDIT_FULL_PAGES: '0',
    });
  });
  after(async () => {
    await t?.close();
    await snap?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on the main pages', async () => {
    // A signed-in person with monitoring, so the console pages carry real content and charts.
    const config = loadConfig({ ...process.env, PUBLIC_SITE_URL: t.url });
    const mailer = createMailer({ MAIL_FROM: 'x@sightline.test' }, createLogger('test', undefined, 'silent'));
    const invite = await createInvite(
      { db: t.handle.db, config },
      { email: 'self@example.test', tier: 'agent' },
    );
    const made = await acceptInvite(
      { db: t.handle.db, config, mailer },
      invite.link.split('/invite/')[1]!,
      PASSWORD,
    );
    assert.ok(made);
    await setSubscription(t.handle.db, made.accountId, 'growth');
    const site = await t.handle.db
      .insertInto('monitored_sites')
      .values({ account_id: made.accountId, url: 'https://shop.example/', label: 'Shop', site_type: 'own' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 5; i++) {
      await sql`insert into monitor_scans (site_id, due_at, status, overall_score, dimension_scores, issues, model_version, scanned_at)
        values (${site.id}, now() - make_interval(days => ${5 - i}), 'ok', ${70 + i * 4},
          ${JSON.stringify({ seo: 80, speed: 60 + i, copy: 75, social: 50, local: 40, ai: 30 + i })}::jsonb,
          '[]'::jsonb, '1.0.0', now() - make_interval(days => ${5 - i}))`.execute(t.handle.db);
    }

    const signin = await fetch(`${t.url}/signin`, { headers: { accept: 'text/html' } });
    const csrfCookie = signin.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(await signin.text())![1]!;
    const session = await fetch(`${t.url}/signin`, {
      method: 'POST',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: csrfCookie,
      },
      body: new URLSearchParams({ _csrf: token, email: made.email, password: PASSWORD }),
      redirect: 'manual',
    });
    assert.equal(session.status, 303);
    const cookie = session.headers
      .getSetCookie()
      .find((c) => c.startsWith('sl_session='))!
      .split(';')[0]!;
    for (const [name, path] of [
      ['/console', '/console'],
      ['/keys', '/console/keys'],
      ['/sites', '/console/sites'],
      ['/site', `/console/sites/${site.id}`],
      ['/account', '/console/account'],
    ]) {
      const r = await fetch(t.url + path, { headers: { accept: 'text/html', cookie } });
      assert.equal(r.status, 200, path);
      pages.set(name!, await r.text());
    }

    const key = await t.newKey('A', 'agent', { rateLimit: 10_000 });
    const auditReport = await deliveredAuditReport(t, key);
    const targets = [
      `${t.url}/`,
      `${t.url}/signin`,
      `${t.url}/signup`,
      `${snap.origin}/console`,
      `${snap.origin}/keys`,
      `${snap.origin}/sites`,
      `${snap.origin}/site`,
      `${snap.origin}/account`,
      auditReport,
    ];
    // The free scan's report page too: the report of the first scan (of `/`), once it exists.
    let reportAdded = false;
    const results: string[] = [];
    const failures: string[] = [];
    for (const url of targets) {
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
      const lh = (
        scan.artifacts as { Lighthouse?: { categories?: Record<string, number | null>; error?: string } }
      ).Lighthouse;
      const lhA11y = Math.round((lh?.categories?.accessibility ?? 0) * 100);
      if (!reportAdded) {
        targets.push(`${t.url}/r/${res.body.scanId}`);
        reportAdded = true;
      }
      results.push(
        `${url}: accessibility ${a11y.score}, mobile ${mobile.score}, Lighthouse accessibility ${lhA11y}`,
      );
      if (a11y.score < 95) failures.push(`${url} accessibility ${a11y.score}: ${a11y.issues.join('; ')}`);
      if (mobile.score < 90) failures.push(`${url} mobile ${mobile.score}: ${mobile.issues.join('; ')}`);
      if (lhA11y < 95)
        failures.push(`${url} Lighthouse accessibility ${lhA11y}${lh?.error ? ` (${lh.error})` : ''}`);
    }
    console.log(results.join('\n'));
    assert.deepEqual(failures, [], failures.join('\n'));
  });
});

/** An audit of our own `/`, ordered with the key and followed until delivered: its report URL. */
async function deliveredAuditReport(t: TestStack, key: string): Promise<string> {
  const placed = await call(t.url, '/api/v1/audit', {
    method: 'POST',
    key,
    body: { product: 'seo_audit', target_url: `${t.url}/` },
  });
  assert.equal(placed.status, 201, placed.text);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const order = await call(t.url, `/api/v1/audit/${placed.body.order_id}`, { key });
    if (order.body.status === 'delivered') return order.body.report_url as string;
    assert.notEqual(order.body.status, 'failed', order.text);
    assert.ok(Date.now() < deadline, `audit not delivered: ${order.text}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
