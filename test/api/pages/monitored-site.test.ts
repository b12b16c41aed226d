import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { setSubscription } from '../../../shared/accounts/accounts.ts';
import { loadConfig } from '../../../shared/config.ts';
import { createLogger } from '../../../shared/logger.ts';
import { monitorJobKey } from '../../../shared/monitoring/jobs.ts';
import { addSite } from '../../../shared/monitoring/sites.ts';
import { createMailer } from '../../../shared/people/mail.ts';
import { acceptInvite, createInvite } from '../../../shared/people/people.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';

// A monitored site's console page does what a key does over REST: scan now, edit, pause and
// resume, remove, through the same domain functions, with post/redirect/get and errors shown on
// the page. Another account's session gets 404 for every action.

const PASSWORD = 'correct horse battery staple';
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

/** A signed-in person of variant A with a Growth plan: their session cookie and account. */
async function person(email: string) {
  const config = loadConfig({ ...process.env, PUBLIC_SITE_URL: t.url });
  const mailer = createMailer({ MAIL_FROM: 'x@sightline.test' }, createLogger('test', undefined, 'silent'));
  const invite = await createInvite({ db: t.handle.db, config }, { email, tier: 'agent' });
  const made = await acceptInvite(
    { db: t.handle.db, config, mailer },
    invite.link.split('/invite/')[1]!,
    PASSWORD,
  );
  assert.ok(made);
  await setSubscription(t.handle.db, made.accountId, 'growth');
  const signin = await fetch(`${t.url}/signin`, { headers: { accept: 'text/html' } });
  const anon = signin.headers.getSetCookie()[0]!.split(';')[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(await signin.text())![1]!;
  const res = await fetch(`${t.url}/signin`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: anon },
    body: new URLSearchParams({ _csrf: token, email, password: PASSWORD }),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('sl_session='))!
    .split(';')[0]!;
  return { cookie, accountId: made.accountId };
}

async function get(path: string, cookie: string) {
  const res = await fetch(t.url + path, { headers: { accept: 'text/html', cookie }, redirect: 'manual' });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

async function post(path: string, cookie: string, form: Record<string, string>) {
  const page = await get('/console', cookie);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  const res = await fetch(t.url + path, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, ...form }),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

const row = (id: string) =>
  t.handle.db.selectFrom('monitored_sites').selectAll().where('id', '=', id).executeTakeFirst();

describe('a monitored site in the console', () => {
  it('scans now, edits, pauses and resumes, and removes the site, as REST does', async () => {
    const me = await person('owner@site-actions.test');
    const added = await addSite(t.api.services, me.accountId, { url: `${site.origin}/`, siteType: 'own' });
    const base = `/console/sites/${added.id}`;

    const page = await get(base, me.cookie);
    assert.equal(page.status, 200);
    for (const action of ['scan', 'status', 'settings', 'remove'])
      assert.match(page.text, new RegExp(`action="${base}/${action}"`), action);

    // Scan now: one job, and asking again while it waits adds none.
    const scan = await post(`${base}/scan`, me.cookie, {});
    assert.equal(scan.status, 303);
    assert.equal(scan.location, `${base}?notice=scan-queued`);
    assert.match((await get(scan.location!, me.cookie)).text, /Scan queued/);
    assert.equal((await post(`${base}/scan`, me.cookie, {})).location, `${base}?notice=scan-pending`);
    const jobs = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs
      where key = ${monitorJobKey(added.id)}`.execute(t.handle.db);
    assert.equal(jobs.rows[0]!.n, 1);

    // Edit: label and threshold saved; an empty webhook field means none.
    const saved = await post(`${base}/settings`, me.cookie, {
      label: 'Main shop',
      alert_threshold: '25',
      webhook_url: '',
    });
    assert.equal(saved.location, `${base}?notice=saved`);
    let now = await row(added.id);
    assert.equal(now?.label, 'Main shop');
    assert.equal(now?.alert_threshold, 25);
    assert.equal(now?.webhook_url, null);
    // Refused input is shown beside its field, with what was typed; nothing changes.
    const bad = await post(`${base}/settings`, me.cookie, {
      label: 'Main shop',
      alert_threshold: '250',
      webhook_url: '',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /A whole number of points from 1 to 100/);
    assert.match(bad.text, /value="250"/);
    const unresolvable = await post(`${base}/settings`, me.cookie, {
      label: 'Main shop',
      alert_threshold: '25',
      webhook_url: 'https://no-such-host.invalid/hook',
    });
    assert.equal(unresolvable.status, 400);
    assert.match(unresolvable.text, /could not be resolved|not allowed|resolve/i);
    assert.equal((await row(added.id))?.alert_threshold, 25);

    // Pause: no scan now (the page says why), then resume.
    assert.equal(
      (await post(`${base}/status`, me.cookie, { status: 'paused' })).location,
      `${base}?notice=paused`,
    );
    assert.equal((await row(added.id))?.status, 'paused');
    const pausedPage = await get(base, me.cookie);
    assert.doesNotMatch(pausedPage.text, /Scan now/);
    assert.match(pausedPage.text, /Resume scans/);
    const refused = await post(`${base}/scan`, me.cookie, {});
    assert.equal(refused.status, 409);
    assert.match(refused.text, /is paused/);
    assert.equal(
      (await post(`${base}/status`, me.cookie, { status: 'active' })).location,
      `${base}?notice=resumed`,
    );
    assert.equal((await row(added.id))?.status, 'active');

    // Another account's session finds nothing to act on.
    const other = await person('other@site-actions.test');
    for (const action of ['scan', 'status', 'settings', 'remove'])
      assert.equal(
        (await post(`${base}/${action}`, other.cookie, { label: 'x', status: 'paused' })).status,
        404,
        action,
      );
    assert.equal((await get(base, other.cookie)).status, 404);
    now = await row(added.id);
    assert.equal(now?.label, 'Main shop');

    const removed = await post(`${base}/remove`, me.cookie, {});
    assert.equal(removed.location, '/console/sites?removed=1');
    assert.equal(await row(added.id), undefined);
    assert.match((await get(removed.location!, me.cookie)).text, /Site removed/);
  });
});
