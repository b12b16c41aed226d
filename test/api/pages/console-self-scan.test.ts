import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { call } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { assertOwnPagesPass, type SelfScan, startSelfScan } from '../../helpers/self-scan.ts';
import type { TestStack } from '../../helpers/stack.ts';

// Sightline scores its own pages with its own full scan (browser render, axe, Lighthouse): the
// console must pass the accessibility and mobile checks it sells. Public pages are scanned where
// they are served; console pages need a session, which a scanner does not have, so their HTML is
// taken with a signed-in session and served unchanged from the snapshot host (helpers/self-scan.ts).

const chromiumPath = findChromium()?.path;

describe('Sightline scans its own pages', { skip: chromiumPath ? false : 'no Chromium installed' }, () => {
  let self: SelfScan;

  before(async () => {
    self = await startSelfScan(['/console', '/keys', '/sites', '/site', '/account'], {
      AUDIT_FULL_PAGES: '0',
    });
  });
  after(async () => {
    await self?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on the main pages', async () => {
    const { t, snap, pages } = self;
    // A signed-in person with monitoring, so the console pages carry real content and charts.
    const me = await signedInPerson(t, 'self@example.test', { plan: 'growth' });
    const site = await t.handle.db
      .insertInto('monitored_sites')
      .values({ account_id: me.accountId, url: 'https://shop.example/', label: 'Shop', site_type: 'own' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 5; i++) {
      await sql`insert into monitor_scans (site_id, due_at, status, overall_score, dimension_scores, issues, model_version, scanned_at)
        values (${site.id}, now() - make_interval(days => ${5 - i}), 'ok', ${70 + i * 4},
          ${JSON.stringify({ seo: 80, speed: 60 + i, copy: 75, social: 50, local: 40, ai: 30 + i })}::jsonb,
          '[]'::jsonb, '1.0.0', now() - make_interval(days => ${5 - i}))`.execute(t.handle.db);
    }

    for (const [name, path] of [
      ['/console', '/console'],
      ['/keys', '/console/keys'],
      ['/sites', '/console/sites'],
      ['/site', `/console/sites/${site.id}`],
      ['/account', '/console/account'],
    ]) {
      const r = await me.get(path!);
      assert.equal(r.status, 200, path);
      pages.set(name!, r.text);
    }

    const key = await t.newKey('A', 'agent', { rateLimit: 10_000 });
    const auditReport = await deliveredAuditReport(t, key);
    // The free scan's report page too: the report of the first scan (of `/`).
    await assertOwnPagesPass(
      t,
      key,
      [
        `${t.url}/`,
        `${t.url}/signin`,
        `${t.url}/signup`,
        `${snap.origin}/console`,
        `${snap.origin}/keys`,
        `${snap.origin}/sites`,
        `${snap.origin}/site`,
        `${snap.origin}/account`,
        auditReport,
      ],
      { reportOfFirst: true },
    );
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
