import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engineEnv, type FakeEngine, startFakeEngine } from '../../helpers/answer-engine.ts';
import { signedInPerson } from '../../helpers/console.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// GEO in the console: a person with a Growth plan adds prompts, runs a GEO check and a visibility
// run against a loopback answer engine (OpenAI's wire format) and reads the results, through the
// same domain functions as /api/v1/geo; another account's session gets 404.

let site: FixtureServer;
let fake: FakeEngine;
let t: TestStack;

before(async () => {
  site = await startFixtureServer({
    routes: {
      '/': (_q, r) =>
        r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><html lang="en"><title>Pottery studio</title><h1>Pottery</h1><p>Mugs and bowls.</p></html>',
          ),
    },
  });
  fake = await startFakeEngine(() => ({
    kind: 'answer',
    text: 'Try this studio:',
    cite: [`${site.origin}/`],
  }));
  t = await startTestStack({
    ...engineEnv(fake, 'openai'),
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port},127.0.0.1:${fake.port}`,
    GEO_RUNS_PER_PROMPT: '1',
  });
});
after(async () => {
  await t?.close();
  await fake?.close();
  await site?.close();
});

/** GETs `path` until its page matches `re` (the page refreshes itself while work is pending). */
async function until(
  get: (p: string) => Promise<{ text: string }>,
  path: string,
  re: RegExp,
): Promise<string> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { text } = await get(path);
    if (re.test(text)) return text;
    assert.ok(Date.now() < deadline, `${path} never showed ${re}:\n${text.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('GEO in the console', () => {
  it('adds prompts, runs a check and a visibility run, and shows their results', async () => {
    const me = await signedInPerson(t, 'geo@console.test', { plan: 'growth' });
    const added = await me.post('/console/sites', {
      url: `${site.origin}/`,
      label: 'Studio',
      site_type: 'own',
    });
    assert.equal(added.status, 201, added.text.slice(0, 500));
    const { id } = await t.handle.db
      .selectFrom('monitored_sites')
      .select('id')
      .where('account_id', '=', me.accountId)
      .executeTakeFirstOrThrow();
    const geo = `/console/sites/${id}/geo`;

    const first = await me.get(geo);
    assert.equal(first.status, 200);
    assert.match(first.text, /No GEO check yet/);
    assert.match(first.text, /No prompts yet/);
    assert.match((await me.get(`/console/sites/${id}`)).text, new RegExp(`href="${geo}"`));

    // A visibility run needs prompts: the page says so instead of failing.
    const noPrompts = await me.post(`${geo}/visibility`, {});
    assert.equal(noPrompts.status, 409);
    assert.match(noPrompts.text, /no canonical prompts/);

    const empty = await me.post(`${geo}/prompts`, { label: '', prompt: 'Where can I buy a mug?' });
    assert.equal(empty.status, 400);
    assert.match(empty.text, /Give the prompt a short label/);
    const prompt = await me.post(`${geo}/prompts`, {
      label: 'Mugs',
      prompt: 'Where can I buy a hand-made mug?',
    });
    assert.equal(prompt.status, 303);
    assert.equal(prompt.location, `${geo}?notice=prompt-added`);

    const check = await me.post(`${geo}/check`, {});
    assert.equal(check.status, 303);
    const checked = await until(me.get, check.location!, /GEO check <span class="score">\d+\/85/);
    assert.match(checked, /HTTPS|llms\.txt|IndexNow/);

    const run = await me.post(`${geo}/visibility`, {});
    assert.equal(run.location, `${geo}?notice=run-started`);
    const ran = await until(me.get, geo, /Cited in <strong>1<\/strong> of 1 prompts/);
    assert.match(ran, /citation rate <strong>100%<\/strong>/);
    assert.match(ran, /Visibility run: done/);
    const stored = await t.handle.db.selectFrom('geo_runs').select('trigger').executeTakeFirstOrThrow();
    assert.equal(stored.trigger, 'console');
    assert.ok(fake.requests.some((r) => r.prompt === 'Where can I buy a hand-made mug?'));

    const other = await signedInPerson(t, 'other@console.test', { plan: 'growth' });
    assert.equal((await other.get(geo)).status, 404);
    assert.equal((await other.post(`${geo}/check`, {})).status, 404);

    const { id: promptId } = await t.handle.db
      .selectFrom('geo_prompts')
      .select('id')
      .executeTakeFirstOrThrow();
    const removed = await me.post(`${geo}/prompts/${promptId}/remove`, {});
    assert.equal(removed.location, `${geo}?notice=prompt-removed`);
    assert.match((await me.get(geo)).text, /No prompts yet/);
  });
});
