import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { main } from '../../cli/main.ts';
import { registerSite } from '../../shared/agent-sites/sites.ts';
import { RELABEL_TASK } from '../../shared/agent-traffic/relabel.ts';
import { resetConfig } from '../../shared/config.ts';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { type FixtureServer, type RouteHandler, startFixtureServer } from '../helpers/fixture-server.ts';

// `sightline agents sync|list|show|add|remove` against a real API and database: the three list
// formats served from loopback (and a file), local entries winning over synced ones, and a
// collect after `agents add` stored under the new agent once the API has reloaded the catalogue.

const ROBOTS_JSON = {
  ZephyrBot: {
    operator: '[Zephyr Labs](https://zephyr.example/)',
    function: 'AI Assistants',
    description: 'Fetches pages when a Zephyr user asks.',
  },
  GPTBot: { operator: 'OpenAI', function: 'Scrapes data to train OpenAI products.' },
};
const WELL_KNOWN_BOTS = [
  {
    id: 'quokka-ai',
    categories: ['ai'],
    pattern: { accepted: ['QuokkaAI\\/'] },
    url: 'https://quokka.example/bot',
    instances: { accepted: ['Mozilla/5.0 (compatible; QuokkaAI/1.0; +https://quokka.example/bot)'] },
  },
  { id: 'plain-seo', categories: ['search-engine-optimization'], pattern: { accepted: ['PlainSeo'] } },
];
const CRAWLER_USER_AGENTS = [
  {
    pattern: 'WombatCrawler',
    tags: ['ai-crawler'],
    url: 'https://wombat.example/',
    instances: ['WombatCrawler/2.0 (+https://wombat.example/)'],
    description: 'Collects pages for training data',
  },
  { pattern: 'UptimeThing', url: 'https://uptime.example', instances: ['UptimeThing/1'] },
];

let t: TestApi;
let lists: FixtureServer;
let dir: string;
const json =
  (body: unknown): RouteHandler =>
  (_q, r) => {
    r.setHeader('content-type', 'application/json');
    r.end(JSON.stringify(body));
  };

before(async () => {
  lists = await startFixtureServer({
    routes: {
      '/robots.json': json(ROBOTS_JSON),
      '/well-known-bots.json': json(WELL_KNOWN_BOTS),
      '/crawler-user-agents.json': json(CRAWLER_USER_AGENTS),
      '/not-a-list.json': json({ hello: 'world' }),
      '/gptbot.json': json({
        creationTime: '2026-11-20T00:00:00Z',
        prefixes: [{ ipv4Prefix: '192.0.2.0/24' }],
      }),
    },
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'agents-cli-'));
  writeFileSync(path.join(dir, 'crawler-user-agents.json'), JSON.stringify(CRAWLER_USER_AGENTS));
  t = await startTestApi({ AGENT_CATALOGUE_RELOAD_MS: '100' });
  process.env.DATABASE_URL = t.database.url;
  process.env.SCAN_ALLOW_HOSTS = `127.0.0.1:${lists.port}`; // the lists' loopback server
  resetConfig();
});
after(async () => {
  delete process.env.DATABASE_URL;
  delete process.env.SCAN_ALLOW_HOSTS;
  resetConfig();
  await t.close();
  await lists.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.join('\n')) };
}

const relabelJobs = async () =>
  Number(
    (
      await sql<{ n: number }>`select count(*)::int as n from graphile_worker.jobs
        where task_identifier = ${RELABEL_TASK}`.execute(t.handle.db)
    ).rows[0]!.n,
  );

describe('sightline agents', () => {
  it('sync merges the three list formats from URLs and files, then finds nothing new', async () => {
    const from = [
      `${lists.origin}/robots.json`,
      `${lists.origin}/well-known-bots.json`,
      path.join(dir, 'crawler-user-agents.json'),
    ];
    const r = await cli('agents', 'sync', ...from.flatMap((f) => ['--from', f]));
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.match(
      r.out[0]!,
      /^ai\.robots\.txt \(.*robots\.json\): 2 agents, 1 added, 0 updated, 1 unchanged$/,
    );
    assert.match(r.out[1]!, /^arcjet \(.*\): 1 agents, 1 added, 0 updated, 0 unchanged$/);
    assert.match(r.out[2]!, /^crawler-user-agents \(.*\): 1 agents, 1 added, 0 updated, 0 unchanged$/);
    assert.match(r.out[3]!, /3 added, 0 updated, 1 unchanged; relabelling stored events/);
    assert.ok(
      r.err.some((l) => l.startsWith('syncing ')),
      'progress per source',
    );
    assert.equal(await relabelJobs(), 1, 'the change queued a relabel run');

    const zephyr = (await cli('agents', 'show', 'zephyrbot', '--json')).json();
    assert.equal(zephyr.token, 'ZephyrBot');
    assert.equal(zephyr.origin, 'synced');
    assert.equal(zephyr.purpose, 'browse');
    assert.equal(zephyr.category, 'AI Assistants');
    assert.deepEqual(zephyr.sources, ['ai.robots.txt']);
    const quokka = (await cli('agents', 'show', 'QuokkaAI', '--json')).json();
    assert.equal(quokka.pattern, '(?:QuokkaAI\\/)');
    // Our own entry keeps its facts; the list is only added as a source (it was one already).
    const gpt = (await cli('agents', 'show', 'GPTBot', '--json')).json();
    assert.equal(gpt.origin, 'snapshot');
    assert.equal(gpt.verification.ipRanges, 'openai-gptbot');

    // The same lists again, crawler-user-agents from loopback this time: nothing new.
    const urls = [...from.slice(0, 2), `${lists.origin}/crawler-user-agents.json`];
    const again = await cli('agents', 'sync', '--json', ...urls.flatMap((f) => ['--from', f]));
    assert.equal(again.code, 0);
    const body = again.json();
    assert.deepEqual(
      body.sources.map((s: { added: number; updated: number }) => [s.added, s.updated]),
      [
        [0, 0],
        [0, 0],
        [0, 0],
      ],
    );
    assert.equal(body.relabelJob, null, 'nothing changed, nothing to relabel');

    const api = await call(t.url, '/api/v1/agents', { key: await t.newKey('B', 'intelligence') });
    const wombat = api.body.agents.find((a: { token: string }) => a.token === 'WombatCrawler');
    assert.equal(wombat.origin, 'synced');
    const src = api.body.sources.find((s: { name: string }) => s.name === 'crawler-user-agents');
    assert.equal(src.location, `${lists.origin}/crawler-user-agents.json`);
    assert.equal(api.body.version, (await cli('agents', 'list', '--json')).json().version);
  });

  it('sync names the source it cannot read or recognise', async () => {
    const bad = await cli('agents', 'sync', '--from', `${lists.origin}/not-a-list.json`);
    assert.equal(bad.code, 1);
    assert.match(bad.err.join('\n'), /not-a-list\.json: not a known agent list/);
    const missing = await cli('agents', 'sync', '--from', `${lists.origin}/gone.json`);
    assert.equal(missing.code, 1);
    assert.match(missing.err.join('\n'), /gone\.json answered HTTP 404/);
    assert.equal((await cli('agents', 'sync')).code, 2);
    const help = await cli('agents');
    assert.equal(help.code, 2);
    assert.match(
      help.err.join('\n'),
      /sightline agents add --token T --platform P --purpose training\|search\|browse/,
    );
    const list = await cli('agents', 'list');
    assert.equal(list.out[0], 'token\tplatform\tpurpose\tai\torigin\tsources');
    assert.ok(list.out.some((l) => l.startsWith('GPTBot\tOpenAI\ttraining\tai\tsnapshot\t')));
    assert.match(list.out.at(-1)!, /^\d+ agents, catalogue \d{4}-\d\d-\d\d\.\d+\+\d+$/);
    // A vendor's IP-range file goes to the verification sources, not the catalogue.
    const ranges = await cli('agents', 'sync', '--from', `${lists.origin}/gptbot.json`);
    assert.equal(ranges.code, 0, ranges.err.join('\n'));
    assert.match(ranges.out[0]!, /gptbot\.json: IP ranges openai-gptbot \(1 prefixes\)$/);
    assert.match(ranges.out[1]!, /0 added, 0 updated, 0 unchanged; 1 verification source\(s\) stored$/);
  });

  it('a local entry wins over a synced one; remove brings the synced one back, and refuses shared entries', async () => {
    const add = await cli(
      'agents',
      'add',
      '--token',
      'ZephyrBot',
      '--platform',
      'Zephyr',
      '--purpose',
      'search',
      '--operator',
      'Zephyr Labs Inc',
      '--json',
    );
    assert.equal(add.code, 0, add.err.join('\n'));
    const shown = (await cli('agents', 'show', 'ZephyrBot', '--json')).json();
    assert.equal(shown.origin, 'local');
    assert.equal(shown.purpose, 'search');
    assert.deepEqual(shown.sources, ['local', 'ai.robots.txt']);
    const listed = (await cli('agents', 'list', '--json'))
      .json()
      .agents.filter((a: { token: string }) => a.token === 'ZephyrBot');
    assert.equal(listed.length, 1, 'one entry in effect per token');

    assert.equal((await cli('agents', 'remove', 'ZephyrBot')).code, 0);
    assert.equal((await cli('agents', 'show', 'ZephyrBot', '--json')).json().origin, 'synced');

    const shared = await cli('agents', 'remove', 'GPTBot');
    assert.equal(shared.code, 1);
    assert.match(
      shared.err.join('\n'),
      /^not_local: GPTBot comes from the shipped snapshot or a synced list/,
    );
    const unknown = await cli('agents', 'remove', 'NoSuchBot');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err.join('\n'), /not_found: no agent NoSuchBot/);
    const browser = await cli(
      'agents',
      'add',
      '--token',
      'Safari',
      '--platform',
      'Apple',
      '--purpose',
      'browse',
    );
    assert.equal(browser.code, 1);
    assert.match(browser.err.join('\n'), /invalid_request: Safari is part of ordinary browsers' user agents/);
    assert.equal((await cli('agents', 'show', 'Safari')).code, 1, 'nothing was added');
    const badPurpose = await cli('agents', 'add', '--token', 'Xyz', '--platform', 'Y', '--purpose', 'spying');
    assert.equal(badPurpose.code, 2);
    assert.match(badPurpose.err.join('\n'), /--purpose must be one of training, search, browse/);
  });

  it('a collect after `agents add` is stored as the new agent', async () => {
    const key = await t.newKey('B', 'intelligence');
    const account = String((await call(t.url, '/api/v1/account', { key })).body.id);
    const { site, ingestToken } = await registerSite(t.handle.db, {
      accountId: account,
      url: 'https://catalogue-cli.example.com/',
    });
    const ua = 'NumbatFetch/3.1 (+https://numbat.example/fetch)';
    const collect = (path: string) =>
      call(t.url, '/api/v1/collect', {
        method: 'POST',
        key: ingestToken,
        body: {
          site: site.tracking_id,
          requests: [
            {
              time: new Date(Date.now() - 60_000).toISOString(),
              method: 'GET',
              path,
              status: 200,
              ip: '198.51.100.40',
              user_agent: ua,
            },
          ],
        },
      });
    const before = await collect('/before');
    assert.equal(before.status, 202, before.text);
    assert.equal(before.body.stored, 0, 'an unlisted, non-AI fetcher is not an agent');

    const add = await cli(
      'agents',
      'add',
      '--token',
      'NumbatFetch',
      '--platform',
      'Numbat',
      '--purpose',
      'browse',
    );
    assert.equal(add.code, 0, add.err.join('\n'));
    let stored = 0;
    for (let i = 0; i < 50 && stored === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      stored = (await collect(`/after-${i}`)).body.stored;
    }
    assert.equal(stored, 1, 'the API reloaded the catalogue');
    const rows = await t.handle.db
      .selectFrom('agent_events')
      .select(['agent', 'platform', 'type'])
      .where('site_id', '=', site.id)
      .execute();
    assert.deepEqual(rows, [{ agent: 'NumbatFetch', platform: 'Numbat', type: 'browse' }]);
  });
});
