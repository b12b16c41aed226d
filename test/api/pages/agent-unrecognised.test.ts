import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getAgent } from '../../../shared/agent-catalogue/store.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { relabelAgentEvents } from '../../../shared/agent-traffic/relabel.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { signedInPerson } from '../../helpers/console.ts';

// The console's agent page lists the automated clients the catalogue does not name (token,
// visits, first seen) and reports one as an agent: a local catalogue entry, used at once.

let t: TestApi;
before(async () => {
  t = await startTestApi();
});
after(() => t.close());

const UNLISTED = 'Mozilla/5.0 (compatible; WallabyAI-Crawler/1.0; +https://wallaby.example/bot)';

describe('console agent page: unrecognised automated clients', () => {
  it('lists an unlisted AI crawler and reports it as an agent', async () => {
    const me = await signedInPerson(t, 'owner@unrecognised.test', { tier: 'intelligence' });
    const { site, ingestToken } = await registerSite(t.handle.db, {
      accountId: me.accountId,
      url: 'https://unrecognised.example.com/',
    });
    const at = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    const req = (ua: string, min: number) => ({
      time: at(min),
      method: 'GET',
      path: `/p${min}`,
      status: 200,
      ip: '198.51.100.50',
      user_agent: ua,
    });
    const sent = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: ingestToken,
      body: {
        site: site.tracking_id,
        requests: [req(UNLISTED, 5), req(UNLISTED, 90), req(UNLISTED, 30), req('GPTBot/1.2', 3)],
      },
    });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.stored, 4);

    const page = await me.get(`/console/agent-sites/${site.id}`);
    assert.equal(page.status, 200);
    const section = page.text.split('id="unrecognised-title"')[1]!.split('</section>')[0]!;
    assert.match(section, /<code>WallabyAI-Crawler<\/code>/);
    assert.match(section, /data-label="Visits">3</);
    assert.doesNotMatch(section, /GPTBot/, 'a catalogued agent is not unrecognised');
    assert.match(section, /Report as an agent/);

    const bad = await me.post(`/console/agent-sites/${site.id}/report-agent`, {
      token: 'WallabyAI-Crawler',
      platform: '',
      purpose: 'search',
    });
    assert.equal(bad.status, 400);
    assert.equal(await getAgent(t.handle.db, 'WallabyAI-Crawler'), undefined);
    const browser = await me.post(`/console/agent-sites/${site.id}/report-agent`, {
      token: 'Chrome',
      platform: 'Google',
      purpose: 'browse',
    });
    assert.equal(browser.status, 400);
    assert.match(browser.text, /part of ordinary browsers/);
    assert.equal(await getAgent(t.handle.db, 'Chrome'), undefined);

    const reported = await me.post(`/console/agent-sites/${site.id}/report-agent`, {
      token: 'WallabyAI-Crawler',
      platform: 'Wallaby',
      purpose: 'search',
    });
    assert.equal(reported.status, 303, reported.text);
    assert.equal(reported.location, `/console/agent-sites/${site.id}#unrecognised-title`);
    const entry = await getAgent(t.handle.db, 'wallabyai-crawler');
    assert.equal(entry?.origin, 'local');
    assert.equal(entry?.platform, 'Wallaby');
    assert.equal(entry?.purpose, 'search');

    const after = await me.get(`/console/agent-sites/${site.id}`);
    const now = after.text.split('id="unrecognised-title"')[1]!.split('</section>')[0]!;
    assert.doesNotMatch(now, /WallabyAI-Crawler/);
    assert.match(now, /None: every automated client seen is in the catalogue/);

    // The queued relabelling (run here in the process) files the stored visits under the new agent.
    const labels = () =>
      t.handle.db
        .selectFrom('agent_events')
        .select(['agent', 'platform', 'type'])
        .distinct()
        .where('site_id', '=', site.id)
        .where('user_agent', '=', UNLISTED)
        .execute();
    assert.notDeepEqual(await labels(), [
      { agent: 'WallabyAI-Crawler', platform: 'Wallaby', type: 'search' },
    ]);
    const r = await relabelAgentEvents(t.handle.db, { retentionDays: null, verifier });
    assert.ok(r.changed >= 3);
    assert.deepEqual(await labels(), [{ agent: 'WallabyAI-Crawler', platform: 'Wallaby', type: 'search' }]);
  });

  it('refuses to report through another account’s site', async () => {
    const owner = await signedInPerson(t, 'a@unrecognised.test', { tier: 'intelligence' });
    const other = await signedInPerson(t, 'b@unrecognised.test', { tier: 'intelligence' });
    const { site } = await registerSite(t.handle.db, {
      accountId: owner.accountId,
      url: 'https://a.example.org/',
    });
    const r = await other.post(`/console/agent-sites/${site.id}/report-agent`, {
      token: 'SomeBot',
      platform: 'Some',
      purpose: 'browse',
    });
    assert.equal(r.status, 404);
    assert.equal(await getAgent(t.handle.db, 'SomeBot'), undefined);
  });
});
