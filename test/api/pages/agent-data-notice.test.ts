import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { staleDataNotice } from '../../../api/pages/agent-sites-pages.ts';
import { IP_RANGE_SOURCES } from '../../../shared/agent-verification/ip-ranges.ts';
import { agentDataFreshness } from '../../../shared/agent-verification/sources-age.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';
import { type ConsolePerson, signedInPerson } from '../../helpers/console.ts';

// The console tells a B customer when the agent data behind their dashboard is old: the catalogue
// snapshot or a verification source older than 30 days is named in a notice on the sites list and
// on each site's dashboard; fresh data shows none.

let t: TestApi;
let person: ConsolePerson;
before(async () => {
  t = await startTestApi();
  person = await signedInPerson(t, 'stale@example.test', { tier: 'intelligence' });
});
after(() => t.close());

const age = (source: string, ageDays: number | null) => ({
  source,
  origin: 'shipped' as const,
  asOf: null,
  ageDays,
  stale: ageDays !== null && ageDays > 30,
});

describe('stale agent data notice', () => {
  it('names each stale source with its age, and nothing when all are fresh', () => {
    const fresh = {
      staleAfterDays: 30,
      stale: false,
      catalogue: { ...age('catalogue', 2), version: '2026-11-26.195' },
      verificationSources: [age('bing', 12), age('rdns:Apple', null)],
    };
    assert.equal(staleDataNotice(fresh), '');
    const old = { ...fresh, stale: true, verificationSources: [age('bing', 45), age('openai-gptbot', 31)] };
    const text = String(staleDataNotice(old));
    assert.match(text, /class="notice info" role="status"/);
    assert.match(text, /older than 30 days/);
    assert.match(text, /<code>bing<\/code> \(45 days\), <code>openai-gptbot<\/code> \(31 days\)/);
    assert.doesNotMatch(text, /catalogue/);
  });

  it('shows on the sites list and a site dashboard exactly when the data is stale', async () => {
    const stale = (await agentDataFreshness(t.handle.db)).stale;
    const list = await person.get('/console/agent-sites');
    assert.equal(list.status, 200);
    assert.equal(/Agent data is older than 30 days/.test(list.text), stale);
    const made = await person.post('/console/agent-sites', { url: 'https://notice.example.com/' });
    assert.equal(made.status, 201, made.text.slice(0, 300));
    const id = /href="\/console\/agent-sites\/(\d+)"/.exec(made.text)?.[1];
    assert.ok(id);

    // Every vendor list synced today: nothing is stale (the catalogue snapshot is dated by its build).
    for (const source of Object.keys(IP_RANGE_SOURCES))
      await sql`insert into agent_ip_ranges (source, origin, ranges) values (${source}, 'test', '{192.0.2.0/24}')`.execute(
        t.handle.db,
      );
    const now = await agentDataFreshness(t.handle.db);
    assert.equal(now.verificationSources.filter((s) => s.stale).length, 0);
    const page = await person.get(`/console/agent-sites/${id}`);
    assert.equal(page.status, 200);
    assert.equal(/Agent data is older than 30 days/.test(page.text), now.catalogue.stale);

    // A sync 40 days ago is stale again, and named.
    await sql`update agent_ip_ranges set fetched_at = now() - interval '40 days' where source = 'bing'`.execute(
      t.handle.db,
    );
    const aged = await agentDataFreshness(t.handle.db);
    const bing = aged.verificationSources.find((s) => s.source === 'bing')!;
    if (bing.origin === 'synced') {
      const again = await person.get(`/console/agent-sites/${id}`);
      assert.match(again.text, /<code>bing<\/code> \(40 days\)/);
    }
  });
});
