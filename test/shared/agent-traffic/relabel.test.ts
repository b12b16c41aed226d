import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AgentInfo } from '../../../shared/agent-catalogue/catalogue.ts';
import { CATALOGUE_IN_USE, createClassifier } from '../../../shared/agent-catalogue/classify.ts';
import { registerSite } from '../../../shared/agent-sites/sites.ts';
import { createVerifier } from '../../../shared/agent-traffic/ingest.ts';
import { foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import {
  enqueueRelabel,
  latestRelabelRun,
  RELABEL_TASK,
  relabelAgentEvents,
} from '../../../shared/agent-traffic/relabel.ts';
import { VERIFY_TASK } from '../../../shared/agent-traffic/verify-pending.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { SpecChecker } from '../../helpers/openapi.ts';

// History follows the catalogue: an agent first stored as unrecognised (an AI-marked bot the
// catalogue does not name) is collected through the real API; the catalogue then learns it; a
// relabel moves its events and every rollup the statistics read to the new name, leaves every
// total as it was, is resumable when cut short and changes nothing when run again.

let t: TestApi;
let spec: SpecChecker;
let key: string;

// AI by its words ("ai-crawler") but with no product token to name it: stored as an unnamed AI agent.
const ZEPHYR = 'Mozilla/5.0 (compatible; zephyr ai-crawler; +https://zephyr-labs.example/bot)';
const CLAUDE = 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const ZEPHYR_AGENT: AgentInfo = {
  token: 'ZephyrAIBot',
  aliases: ['zephyr ai-crawler'],
  operator: 'Zephyr Labs',
  platform: 'Zephyr Labs',
  purpose: 'search',
  ai: true,
  match: 'word',
};
/** The catalogue after `agents add ZephyrAIBot`: the one in use plus the new entry. */
const learned = createClassifier([...CATALOGUE_IN_USE, ZEPHYR_AGENT]);

before(async () => {
  t = await startTestApi({ AGENT_VERIFY_RDNS: 'false', AGENT_INGEST_EVENTS_PER_HOUR: '1000' });
  spec = await SpecChecker.load(t.url);
  key = await t.newKey('B', 'intelligence');
});
after(() => t.close());

const accountOf = async (): Promise<string> =>
  String((await call(t.url, '/api/v1/account', { key })).body.id);

/** A new site of the test account, with `requests` taken through the real collect endpoint. */
async function siteWith(name: string, requests: Record<string, unknown>[]) {
  const { site, ingestToken } = await registerSite(t.handle.db, {
    accountId: await accountOf(),
    url: `https://${name}${Math.random().toString(36).slice(2, 8)}.example.com/`,
  });
  const res = await call(t.url, '/api/v1/collect', {
    method: 'POST',
    key: ingestToken,
    body: { site: site.tracking_id, requests },
  });
  assert.equal(res.status, 202, res.text);
  assert.equal(res.body.stored, requests.length);
  return site;
}

/** A site with `n` Zephyr and `n` Claude visits on each of the last three days, through collect. */
async function collectedSite(n: number) {
  const requests = [];
  for (let day = 0; day < 3; day++)
    for (let i = 0; i < n; i++)
      for (const ua of [ZEPHYR, CLAUDE])
        requests.push({
          time: new Date(Date.now() - day * 86_400_000 - 60_000 - i * 1000).toISOString(),
          method: 'GET',
          path: `/docs/${i % 2}`,
          status: i === 0 ? 404 : 200,
          ip: '198.51.100.7',
          user_agent: ua,
        });
  return siteWith('relabel', requests);
}

const since = () => new Date(Date.now() - 5 * 86_400_000).toISOString();
const agentsOf = async (siteId: string) => {
  const res = await call(t.url, `/api/v1/sites/${siteId}/agents?since=${since()}`, { key });
  assert.equal(res.status, 200, res.text);
  spec.check('GET', '/api/v1/sites/{id}/agents', res);
  return res.body;
};
const platformOf = (
  body: { platforms: { platform: string; visits: number; agents: { agent: string | null }[] }[] },
  name: string,
) => body.platforms.find((p) => p.platform === name);

/** Everything the statistics read for a site, summed per label. */
async function rollupTotals(siteId: string) {
  await foldPages(t.handle.db, siteId);
  const q = async (text: string) =>
    (await sql.raw<{ k: string; v: string }>(text.replaceAll('$site', siteId)).execute(t.handle.db)).rows
      .map((r) => `${r.k}=${r.v}`)
      .sort();
  return {
    events: await q(
      `select platform || '/' || agent as k, count(*) as v from agent_events where site_id = $site group by 1`,
    ),
    hourly: await q(
      `select platform || '/' || agent as k, sum(visits) || ':' || sum(errors) as v from agent_rollups where site_id = $site group by 1`,
    ),
    daily: await q(
      `select platform || '/' || agent as k, sum(visits) || ':' || sum(errors) as v from agent_daily_rollups where site_id = $site group by 1`,
    ),
    pages: await q(
      `select platform || ' ' || path as k, sum(visits) || ':' || sum(not_found) as v from agent_page_rollups where site_id = $site group by 1`,
    ),
    paths: await q(
      `select path as k, sum(visits) as v from agent_path_rollups where site_id = $site group by 1`,
    ),
    empty: await q(
      `select 'empty' as k, count(*) as v from agent_rollups where site_id = $site and visits <= 0`,
    ),
  };
}

describe('relabel_agent_events', () => {
  it('an agent first seen as unrecognised shows under its new name in /agents after a relabel', async () => {
    const site = await collectedSite(4);
    const before = await agentsOf(site.id);
    const other = platformOf(before, 'Other');
    assert.equal(other?.visits, 12);
    assert.deepEqual(
      other?.agents.map((a) => a.agent),
      [null],
      'stored unrecognised: no agent name',
    );
    assert.equal(platformOf(before, 'Zephyr Labs'), undefined);
    const stats = (await call(t.url, `/api/v1/sites/${site.id}/stats?since=${since()}`, { key })).body;

    const progress: number[] = [];
    const r = await relabelAgentEvents(t.handle.db, {
      classify: learned,
      catalogue: 'test-learned',
      retentionDays: null,
      verifier,
      onProgress: (p) => progress.push(p.done),
    });
    assert.equal(r.finished, true);
    assert.ok(r.changed >= 12, `changed ${r.changed}`);
    assert.equal(r.done, r.total);
    assert.ok(progress.length >= 2 && progress.at(-1) === r.total, `progress ${progress}`);

    const afterwards = await agentsOf(site.id);
    assert.equal(platformOf(afterwards, 'Other'), undefined, 'no event left under the old label');
    const zephyr = platformOf(afterwards, 'Zephyr Labs');
    assert.equal(zephyr?.visits, 12);
    assert.deepEqual(
      zephyr?.agents.map((a) => a.agent),
      ['ZephyrAIBot'],
    );
    assert.equal(platformOf(afterwards, 'Anthropic')?.visits, 12, 'other agents untouched');
    const stats2 = (await call(t.url, `/api/v1/sites/${site.id}/stats?since=${since()}`, { key })).body;
    assert.equal(stats2.visits, stats.visits, 'totals unchanged');
    assert.deepEqual(
      stats2.types.find((x: { type: string }) => x.type === 'search')?.visits,
      12,
      'the new entry brings its purpose',
    );
    const totals = await rollupTotals(site.id);
    assert.deepEqual(totals.events, ['Anthropic/ClaudeBot=12', 'Zephyr Labs/ZephyrAIBot=12']);
    assert.deepEqual(totals.hourly, ['Anthropic/ClaudeBot=12:3', 'Zephyr Labs/ZephyrAIBot=12:3']);
    assert.deepEqual(totals.daily, totals.hourly);
    assert.deepEqual(totals.pages, [
      'Anthropic /docs/0=6:3',
      'Anthropic /docs/1=6:0',
      'Zephyr Labs /docs/0=6:3',
      'Zephyr Labs /docs/1=6:0',
    ]);
    assert.deepEqual(totals.paths, ['/docs/0=12', '/docs/1=12']);
    assert.deepEqual(totals.empty, ['empty=0']);

    // Idempotent: the same catalogue again changes nothing.
    const again = await relabelAgentEvents(t.handle.db, {
      classify: learned,
      catalogue: 'test-learned',
      retentionDays: null,
      verifier,
    });
    assert.equal(again.changed, 0);
    assert.deepEqual(await rollupTotals(site.id), totals);
  });

  it('a run cut short resumes after the last day it finished, and ends where a whole run would', async () => {
    const a = await collectedSite(3);
    const b = await collectedSite(2);
    const stop = new AbortController();
    let days = 0;
    const first = await relabelAgentEvents(t.handle.db, {
      classify: learned,
      catalogue: 'test-resume',
      retentionDays: null,
      verifier,
      signal: stop.signal,
      onProgress: () => {
        if (++days === 3) stop.abort(); // the initial report, then two days
      },
    });
    assert.equal(first.finished, false);
    const mid = await latestRelabelRun(t.handle.db);
    assert.equal(mid?.state, 'running');
    assert.ok(mid && mid.done > 0 && mid.done < mid.total, `stopped part way: ${JSON.stringify(mid)}`);

    const second = await relabelAgentEvents(t.handle.db, {
      classify: learned,
      catalogue: 'test-resume',
      retentionDays: null,
      verifier,
    });
    assert.equal(second.resumed, true);
    assert.equal(second.run, first.run);
    assert.equal(second.finished, true);
    assert.equal(second.done, second.total);
    assert.equal(second.changed, 15, 'each Zephyr event of both sites moved exactly once');
    for (const site of [a, b]) {
      const totals = await rollupTotals(site.id);
      const n = site === a ? 9 : 6;
      assert.deepEqual(totals.hourly, [`Anthropic/ClaudeBot=${n}:3`, `Zephyr Labs/ZephyrAIBot=${n}:3`]);
      assert.deepEqual(totals.daily, totals.hourly);
    }
    assert.equal((await latestRelabelRun(t.handle.db))?.state, 'done');
  });

  it('a browser visit named by its signature keeps its label; the shipped catalogue moves everything back', async () => {
    const site = await collectedSite(1);
    await sql`insert into agent_events (site_id, time, hash, source, method, path, status, ip, user_agent, platform, agent, type, verification, confidence)
      values (${site.id}::bigint, now() - interval '1 minute', '\\x00ff', 'collect', 'GET', '/x', 200, null,
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36',
        'chatgpt.com', '', 'browse', 'signature', 1)`.execute(t.handle.db);
    // Without the learned entry (the shipped catalogue), Zephyr is unrecognised again everywhere.
    const r = await relabelAgentEvents(t.handle.db, { catalogue: 'shipped', retentionDays: null, verifier });
    assert.equal(r.finished, true);
    const totals = await rollupTotals(site.id);
    assert.ok(totals.events.includes('Other/=3'), totals.events.join(' '));
    assert.ok(totals.events.includes('chatgpt.com/=1'), 'the signed browser visit keeps its signer');
    const zephyrLeft = await sql<{ n: number }>`
      select count(*)::int as n from agent_events where agent = 'ZephyrAIBot'`.execute(t.handle.db);
    assert.equal(zephyrLeft.rows[0]?.n, 0);
  });

  it("an event whose name changes is verified again as the new name calls for (its vendor's IP ranges)", async () => {
    // Stored as an unnamed AI agent (verification none); the catalogue then learns that this user
    // agent is OpenAI's GPTBot, whose published ranges hold 20.171.206.0/24 but not 198.51.100.0/24.
    const ORBIT = 'Mozilla/5.0 (compatible; orbit ai-crawler; +https://orbit.example/bot)';
    const asGptBot = createClassifier([
      {
        ...ZEPHYR_AGENT,
        token: 'GPTBot',
        aliases: ['orbit ai-crawler'],
        operator: 'OpenAI',
        platform: 'OpenAI',
      },
      ...CATALOGUE_IN_USE,
    ]);
    const site = await siteWith(
      'reverify',
      ['20.171.206.10', '20.171.206.11', '198.51.100.7'].map((ip, i) => ({
        time: new Date(Date.now() - 60_000 - i * 1000).toISOString(),
        method: 'GET',
        path: '/docs',
        status: 200,
        ip,
        user_agent: ORBIT,
      })),
    );
    const verifications = async () =>
      (
        await sql<{ k: string }>`
          select platform || '/' || agent || ' ' || verification || ' ' || confidence || ' ' || count(*) as k
          from agent_events where site_id = ${site.id}::bigint group by platform, agent, verification, confidence
          order by 1`.execute(t.handle.db)
      ).rows.map((r) => r.k);
    assert.deepEqual(await verifications(), ['Other/ none 0.5 3']);

    await relabelAgentEvents(t.handle.db, {
      classify: asGptBot,
      catalogue: 'test-reverify',
      retentionDays: null,
      verifier,
    });
    assert.deepEqual(await verifications(), ['OpenAI/GPTBot ip 0.99 2', 'OpenAI/GPTBot spoofed 0.05 1']);
    const { rows: rollups } = await sql<{ k: string }>`
      select agent || ' ' || verification || ' ' || sum(visits) as k from agent_daily_rollups
      where site_id = ${site.id}::bigint and visits > 0 group by agent, verification order by 1`.execute(
      t.handle.db,
    );
    assert.deepEqual(
      rollups.map((r) => r.k),
      ['GPTBot ip 2', 'GPTBot spoofed 1'],
      'the rollups moved with the verdicts',
    );
    const agents = await agentsOf(site.id);
    assert.equal(platformOf(agents, 'OpenAI')?.visits, 3);

    // Named Applebot instead, which Apple verifies by reverse DNS: the events wait for the lookup
    // (pending) and the job that settles them is queued.
    const verifyJobs = async () =>
      (
        await sql`select 1 from graphile_worker.jobs where task_identifier = ${VERIFY_TASK}`.execute(
          t.handle.db,
        )
      ).rows.length;
    assert.equal(await verifyJobs(), 0);
    const asApplebot = createClassifier([
      {
        ...ZEPHYR_AGENT,
        token: 'Applebot',
        aliases: ['orbit ai-crawler'],
        operator: 'Apple',
        platform: 'Apple',
      },
      ...CATALOGUE_IN_USE,
    ]);
    const withRdns = createVerifier({
      AGENT_VERIFY_RDNS: true,
      AGENT_RDNS_TIMEOUT_MS: 100,
      AGENT_RDNS_SERVERS: '127.0.0.1:9',
      SCAN_ALLOW_HOSTS: '',
    });
    await relabelAgentEvents(t.handle.db, {
      classify: asApplebot,
      catalogue: 'test-reverify-rdns',
      retentionDays: null,
      verifier: withRdns,
    });
    assert.deepEqual(await verifications(), ['Apple/Applebot pending 0.5 3']);
    assert.equal(await verifyJobs(), 1, 'verify_agent_visits queued');
  });

  it('enqueueRelabel queues one job, on its own queue, replacing a queued one', async () => {
    await enqueueRelabel(t.handle.db);
    await enqueueRelabel(t.handle.db);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier = ${RELABEL_TASK}`.execute(
      t.handle.db,
    );
    assert.equal(rows[0]?.n, 1);
  });
});
