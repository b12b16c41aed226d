import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { monitorJobKey } from '../../../shared/monitoring/jobs.ts';
import { addSite } from '../../../shared/monitoring/sites.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// A monitored site's console page does what a key does over REST: scan now, edit, pause and
// resume, remove, through the same domain functions, with post/redirect/get and errors shown on
// the page. Another account's session gets 404 for every action.

let t: TestApi;
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({ routes: { '/': (_q, r) => r.end('<title>ok</title>') } });
  t = await startTestApi({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
});
after(async () => {
  await t?.close();
  await site?.close();
});

const row = (id: string) =>
  t.handle.db.selectFrom('monitored_sites').selectAll().where('id', '=', id).executeTakeFirst();

describe('a monitored site in the console', () => {
  it('scans now, edits, pauses and resumes, and removes the site, as REST does', async () => {
    const me = await signedInPerson(t, 'owner@site-actions.test', { plan: 'growth' });
    const added = await addSite(t.api.services, me.accountId, { url: `${site.origin}/`, siteType: 'own' });
    const base = `/console/sites/${added.id}`;

    const page = await me.get(base);
    assert.equal(page.status, 200);
    for (const action of ['scan', 'status', 'settings', 'remove'])
      assert.match(page.text, new RegExp(`action="${base}/${action}"`), action);

    // Scan now: one job, and asking again while it waits adds none.
    const scan = await me.post(`${base}/scan`, {});
    assert.equal(scan.status, 303);
    assert.equal(scan.location, `${base}?notice=scan-queued`);
    assert.match((await me.get(scan.location!)).text, /Scan queued/);
    assert.equal((await me.post(`${base}/scan`, {})).location, `${base}?notice=scan-pending`);
    const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs
      where key = ${monitorJobKey(added.id)}`.execute(t.handle.db);
    assert.equal(jobs.rows[0]!.n, 1);

    // Edit: label and threshold saved; an empty webhook field means none.
    const saved = await me.post(`${base}/settings`, {
      label: 'Main shop',
      alert_threshold: '25',
      webhook_url: '',
    });
    assert.equal(saved.location, `${base}?notice=saved`);
    let now = await row(added.id);
    assert.equal(now?.label, 'Main shop');
    assert.equal(now?.alert_threshold, 25);
    assert.equal(now?.webhook_endpoint_id, null);
    // Refused input is shown beside its field, with what was typed; nothing changes.
    const bad = await me.post(`${base}/settings`, {
      label: 'Main shop',
      alert_threshold: '250',
      webhook_url: '',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /A whole number of points from 1 to 100/);
    assert.match(bad.text, /value="250"/);
    const unresolvable = await me.post(`${base}/settings`, {
      label: 'Main shop',
      alert_threshold: '25',
      webhook_url: 'https://no-such-host.invalid/hook',
    });
    assert.equal(unresolvable.status, 400);
    assert.match(unresolvable.text, /could not be resolved|not allowed|resolve/i);
    assert.equal((await row(added.id))?.alert_threshold, 25);

    // Pause: no scan now (the page says why), then resume.
    assert.equal((await me.post(`${base}/status`, { status: 'paused' })).location, `${base}?notice=paused`);
    assert.equal((await row(added.id))?.status, 'paused');
    const pausedPage = await me.get(base);
    assert.doesNotMatch(pausedPage.text, /Scan now/);
    assert.match(pausedPage.text, /Resume scans/);
    const refused = await me.post(`${base}/scan`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.text, /is paused/);
    assert.equal((await me.post(`${base}/status`, { status: 'active' })).location, `${base}?notice=resumed`);
    assert.equal((await row(added.id))?.status, 'active');

    // Another account's session finds nothing to act on.
    const other = await signedInPerson(t, 'other@site-actions.test', { plan: 'growth' });
    for (const action of ['scan', 'status', 'settings', 'remove'])
      assert.equal(
        (await other.post(`${base}/${action}`, { label: 'x', status: 'paused' })).status,
        404,
        action,
      );
    assert.equal((await other.get(base)).status, 404);
    now = await row(added.id);
    assert.equal(now?.label, 'Main shop');

    const removed = await me.post(`${base}/remove`, {});
    assert.equal(removed.location, '/console/sites?removed=1');
    assert.equal(await row(added.id), undefined);
    assert.match((await me.get(removed.location!)).text, /Site removed/);
  });
});
