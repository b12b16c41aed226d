import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey } from '../../../shared/accounts/accounts.ts';
import { takeToken } from '../../../shared/accounts/rate-limit.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { call } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { type FixtureServer, slowPage, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// A B site's raw event stream and its citability scan in the console, as REST gives them: the
// events page reads GET /api/v1/sites/:id/events' function with its filters and cursor; the scan
// form runs POST .../citability/scan's function with a real worker, shows the worker's phases and
// the result, and is counted in the account's bucket at its tier's limit (a 429 page when spent).
// Another account's site is a 404 page everywhere.

let t: TestStack;
let site: FixtureServer;

before(async () => {
  site = await startFixtureServer({
    routes: { '/': slowPage('Slow shop', 1500), '/guide': slowPage('A guide', 10) },
  });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
});
after(async () => {
  await t?.close();
  await site?.close();
});

const UAS = {
  gpt: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
  claude:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
};

/** Sends `n` agent visits through POST /api/v1/collect, one a second back from now. */
async function collect(token: string, trackingId: string, n: number) {
  const now = Date.now();
  const requests = Array.from({ length: n }, (_, i) => ({
    time: new Date(now - i * 1000).toISOString(),
    method: 'GET',
    path: i % 3 === 0 ? '/pricing' : `/guides/${i}`,
    status: 200,
    ip: `198.51.100.${(i % 50) + 1}`,
    user_agent: i % 2 === 0 ? UAS.gpt : UAS.claude,
  }));
  const sent = await fetch(`${t.url}/api/v1/collect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ site: trackingId, requests }),
  });
  assert.equal(sent.status, 202, await sent.text());
}

/** The event ids a page's table shows, in order (the `time` of each row is unique here). */
const shownTimes = (page: string) =>
  [...page.matchAll(/<time datetime="([^"]+)">[^<]*<\/time><\/td>/g)].map((m) => m[1]);

describe('a B site in the console: events and citability scans', () => {
  it('pages the raw events as REST does, with its filters and cursor, and 404s another account', async () => {
    const me = await signedInPerson(t, 'events@console.test', { tier: 'intelligence' });
    const key = (await issueKey(t.handle.db, me.accountId)).key;
    const made = await registerSite(t.handle.db, {
      accountId: me.accountId,
      url: 'https://shop.example/',
      label: 'Shop',
    });
    await collect(made.ingestToken, made.site.tracking_id, 150);
    const id = made.site.id;

    const dashboard = await me.get(`/console/agent-sites/${id}`);
    assert.match(dashboard.text, new RegExp(`href="/console/agent-sites/${id}/events"`));

    const first = await me.get(`/console/agent-sites/${id}/events`);
    assert.equal(first.status, 200);
    const rest = (await call(t.url, `/api/v1/sites/${id}/events`, { key })).body;
    assert.equal(rest.events.length, 100);
    assert.deepEqual(
      shownTimes(first.text),
      rest.events.map((e: { timestamp: string }) => e.timestamp),
    );
    assert.match(first.text, /class="table-wrap" tabindex="0" role="region"/);
    // The "Older events" link carries REST's nextCursor; the next page is REST's next page.
    const older = /href="([^"]+)" rel="next">Older events/.exec(first.text)![1]!.replaceAll('&#38;', '&');
    assert.equal(new URL(older, t.url).searchParams.get('cursor'), rest.nextCursor);
    const second = await me.get(older);
    const restNext = (await call(t.url, `/api/v1/sites/${id}/events?cursor=${rest.nextCursor}`, { key }))
      .body;
    assert.equal(restNext.events.length, 50);
    assert.deepEqual(
      shownTimes(second.text),
      restNext.events.map((e: { timestamp: string }) => e.timestamp),
    );
    assert.doesNotMatch(second.text, /Older events/);
    assert.match(second.text, /Newest events/);

    // Filters: the same query fields as REST; an empty field of the GET form is no filter.
    const filtered = await me.get(
      `/console/agent-sites/${id}/events?platform=Anthropic&type=&verification=&path=%2Fpricing`,
    );
    const restFiltered = (
      await call(t.url, `/api/v1/sites/${id}/events?platform=Anthropic&path=%2Fpricing`, { key })
    ).body;
    assert.ok(restFiltered.events.length > 0);
    assert.deepEqual(
      shownTimes(filtered.text),
      restFiltered.events.map((e: { timestamp: string }) => e.timestamp),
    );
    assert.match(filtered.text, /ClaudeBot/);
    assert.doesNotMatch(filtered.text, /GPTBot\/1\.1/);
    assert.match(filtered.text, /Clear filters/);
    const none = await me.get(`/console/agent-sites/${id}/events?verification=signature`);
    assert.match(none.text, /No events match these filters/);

    // Bad filters and foreign cursors are named on a 400 page, as REST answers 400.
    const bad = await me.get(`/console/agent-sites/${id}/events?type=robot&limit=0`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /type:/);
    assert.match(bad.text, /limit:/);
    const badCursor = await me.get(`/console/agent-sites/${id}/events?cursor=nope`);
    assert.equal(badCursor.status, 400);
    assert.match(badCursor.text, /cursor is not valid/);

    // Another account's site (by id and tracking id) is a 404 page; an A account gets 404 too.
    const other = await signedInPerson(t, 'other-events@console.test', { tier: 'intelligence' });
    assert.equal((await other.get(`/console/agent-sites/${id}/events`)).status, 404);
    assert.equal((await other.get(`/console/agent-sites/${made.site.tracking_id}/events`)).status, 404);
    const a = await signedInPerson(t, 'a-events@console.test', { tier: 'agent' });
    assert.equal((await a.get(`/console/agent-sites/${id}/events`)).status, 404);
  });

  it('scans the site through the REST function with the account’s limit, showing phases and the result', async () => {
    const me = await signedInPerson(t, 'scan@console.test', { tier: 'intelligence' });
    const made = await registerSite(t.handle.db, {
      accountId: me.accountId,
      url: site.url,
      label: 'Fixture',
    });
    const id = made.site.id;
    const dashboard = await me.get(`/console/agent-sites/${id}`);
    assert.match(dashboard.text, new RegExp(`href="/console/agent-sites/${id}/citability">Scan [^<]+ now`));
    const page = await me.get(`/console/agent-sites/${id}/citability`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Not scanned yet/);
    assert.match(page.text, /100 calls an hour/);

    const asked = await me.post(`/console/agent-sites/${id}/citability/scan`, { mode: 'quick' });
    assert.equal(asked.status, 303);
    const scanPath = asked.location!;
    assert.match(scanPath, new RegExp(`^/console/agent-sites/${id}/citability/scans/sc_`));
    const scanId = scanPath.split('/').at(-1)!;
    // The same record the REST route writes: an on-demand b_site_scans row for this site.
    const record = await t.handle.db
      .selectFrom('b_site_scans')
      .selectAll()
      .where('scan_id', '=', scanId)
      .executeTakeFirstOrThrow();
    assert.equal(record.trigger, 'on_demand');
    assert.equal(String(record.site_id), String(id));
    // Asking again while it runs follows the same scan (one pending scan per site).
    assert.equal(
      (await me.post(`/console/agent-sites/${id}/citability/scan`, { mode: 'quick' })).location,
      scanPath,
    );

    // The site's page says a scan is under way and links to it.
    assert.match(
      (await me.get(`/console/agent-sites/${id}/citability`)).text,
      new RegExp(`is under way: <a href="${scanPath}">follow it`),
    );
    const progress = await me.get(scanPath);
    assert.equal(progress.status, 200);
    assert.match(progress.text, new RegExp(`data-poll="/r/${scanId}/state"`));
    assert.match(progress.text, /(Waiting for a free worker|Starting|Fetching the page and its files)…/);
    assert.match(progress.text, /http-equiv="refresh"/, 'works without JavaScript');

    let done = progress;
    for (let i = 0; i < 120 && /data-poll=/.test(done.text); i++) {
      await new Promise((r) => setTimeout(r, 250));
      done = await me.get(scanPath);
    }
    assert.match(done.text, /Scan done: \d+ out of 100, grade [A-F]/);
    for (const dim of ['Structure', 'Citability', 'Discoverability', 'Agent Interface', 'Transactability'])
      assert.match(done.text, new RegExp(dim, 'i'));
    const key = (await issueKey(t.handle.db, me.accountId)).key;
    const rest = (await call(t.url, `/api/v1/sites/${id}/citability`, { key })).body;
    assert.equal(rest.scanId, scanId);
    assert.match(done.text, new RegExp(`Scan done: ${rest.overallScore} out of 100, grade ${rest.grade}`));
    const latest = await me.get(`/console/agent-sites/${id}/citability`);
    assert.match(latest.text, new RegExp(`href="/r/${scanId}">Full report`));

    // One page of the site: a scan of its own, at its own address; a path off the site is refused.
    const offSite = await me.post(`/console/agent-sites/${id}/citability/scan`, {
      mode: 'quick',
      path: '//evil.example/',
    });
    assert.equal(offSite.status, 400);
    assert.match(offSite.text, /The page must be a path on the site/);
    assert.match(offSite.text, /value="\/\/evil\.example\/"/, 'the path is kept in the form');
    const pageAsked = await me.post(`/console/agent-sites/${id}/citability/scan`, {
      mode: 'quick',
      path: '/guide',
    });
    assert.equal(pageAsked.status, 303);
    assert.notEqual(pageAsked.location, scanPath);
    let pageDone = await me.get(pageAsked.location!);
    for (let i = 0; i < 120 && /data-poll=/.test(pageDone.text); i++) {
      await new Promise((r) => setTimeout(r, 250));
      pageDone = await me.get(pageAsked.location!);
    }
    assert.match(pageDone.text, /Scan done: \d+ out of 100/);
    assert.match(pageDone.text, new RegExp(`href="${site.origin}/guide"`));
    // REST takes the same path, through the same function; and refuses one off the site (400).
    const restPage = await call(t.url, `/api/v1/sites/${id}/citability/scan`, {
      key,
      method: 'POST',
      body: { mode: 'quick', path: '/guide', wait: 60 },
    });
    assert.equal(restPage.status, 200, restPage.text);
    assert.equal(restPage.body.url, `${site.origin}/guide`);
    const restOff = await call(t.url, `/api/v1/sites/${id}/citability/scan`, {
      key,
      method: 'POST',
      body: { path: 'https://evil.example/' },
    });
    assert.equal(restOff.status, 400);
    assert.equal(restOff.body.errors[0].field, 'body.path');

    // Every post above counted in the account's bucket; once the tier's 100 are spent: a 429 page.
    for (let i = 0; i < 100; i++) {
      if (!(await takeToken(t.handle.db, `account:${me.accountId}`, 100)).allowed) break;
    }
    const scans = async () =>
      (await t.handle.db.selectFrom('b_site_scans').select('id').where('site_id', '=', id).execute()).length;
    const before = await scans();
    const limited = await fetch(`${t.url}/console/agent-sites/${id}/citability/scan`, {
      method: 'POST',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: me.cookie,
      },
      body: new URLSearchParams({
        _csrf: /name="_csrf" value="([^"]+)"/.exec(latest.text)![1]!,
        mode: 'quick',
      }),
      redirect: 'manual',
    });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal(limited.headers.get('x-ratelimit-limit'), '100');
    const text = await limited.text();
    assert.match(text, /Your account has used its 100 calls this hour/);
    assert.match(text, /You can scan again from \d+ \w+ \d{4}, \d\d:\d\d UTC/);
    assert.equal(await scans(), before, 'nothing scanned');

    // Another account: 404 for the page, the form and the scan.
    const other = await signedInPerson(t, 'other-scan@console.test', { tier: 'intelligence' });
    assert.equal((await other.get(`/console/agent-sites/${id}/citability`)).status, 404);
    assert.equal(
      (await other.post(`/console/agent-sites/${id}/citability/scan`, { mode: 'quick' })).status,
      404,
    );
    assert.equal((await other.get(scanPath)).status, 404);
  });
});
