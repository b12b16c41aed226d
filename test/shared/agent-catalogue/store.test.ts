import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { agentsInUse, classifyUserAgent } from '../../../shared/agent-catalogue/classify.ts';
import { readSnapshot, type Snapshot } from '../../../shared/agent-catalogue/snapshot.ts';
import { parseList } from '../../../shared/agent-catalogue/sources/index.ts';
import {
  addLocalAgent,
  catalogueVersion,
  compareVersions,
  getAgent,
  listAgents,
  loadSnapshot,
  mergeSynced,
} from '../../../shared/agent-catalogue/store.ts';
import { refreshCatalogue } from '../../../shared/agent-catalogue/watch.ts';
import { rdnsDomains } from '../../../shared/agent-verification/verify.ts';
import { migrate } from '../../../shared/db/migrate.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// The catalogue in the database: the shipped snapshot loaded at migrate (idempotent), a newer
// snapshot updating shared rows but never local ones, and processes reloading on a new revision.

let database: TestDatabase;
let handle: Db;
before(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
});
after(async () => {
  await handle.close();
  await database.drop();
});

const shipped = readSnapshot();

describe('agent catalogue store', () => {
  it('migrate loaded the shipped snapshot once; migrating again changes nothing', async () => {
    const v = await catalogueVersion(handle.db);
    assert.equal(v.snapshot, shipped.version);
    assert.equal((await listAgents(handle.db)).length, shipped.agents.length);
    await migrate(database.url);
    assert.deepEqual(await catalogueVersion(handle.db), v, 'the revision did not move');
    assert.equal(await loadSnapshot(handle.db, shipped), 'current');
  });

  it('a newer snapshot updates shared rows and drops those it lost, never local ones; an older one is ignored', async () => {
    await addLocalAgent(handle.db, { token: 'Bytespider', platform: 'Our Label', purpose: 'browse' });
    const robots = JSON.stringify({ KoalaBot: { operator: 'Koala', function: 'AI Search Crawlers' } });
    await mergeSynced(handle.db, 'ai.robots.txt', parseList(robots, 'ai.robots.txt'));
    assert.equal((await getAgent(handle.db, 'KoalaBot'))?.origin, 'synced');

    const [date, count] = shipped.version.split('.');
    const newer: Snapshot = structuredClone(shipped);
    newer.version = `${date}.${Number(count) + 1}`;
    const dropped = newer.agents.find((a) => !a.sources.includes('sightline'))!;
    newer.agents = newer.agents.filter((a) => a !== dropped);
    for (const a of newer.agents) if (a.token === 'Bytespider' || a.token === 'CCBot') a.category = 'renamed';
    newer.agents.push({ ...newer.agents[0]!, token: 'KoalaBot', platform: 'Koala', category: 'shipped now' });
    assert.equal(await loadSnapshot(handle.db, newer), 'loaded');

    assert.equal((await getAgent(handle.db, 'CCBot'))?.category, 'renamed');
    const koala = await getAgent(handle.db, 'KoalaBot');
    assert.equal(koala?.origin, 'snapshot');
    assert.equal(koala?.category, 'shipped now');
    assert.equal(await getAgent(handle.db, dropped.token), undefined);
    const local = await getAgent(handle.db, 'Bytespider');
    assert.equal(local?.origin, 'local');
    assert.equal(local?.platform, 'Our Label');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from agent_catalogue
      where token_key = 'bytespider' and not is_local and category = 'renamed'`.execute(handle.db);
    assert.equal(rows[0]!.n, 1, 'the shared row under the local one was updated too');

    assert.equal(await loadSnapshot(handle.db, shipped), 'older');
    assert.equal((await catalogueVersion(handle.db)).snapshot, newer.version);
    assert.ok(compareVersions('2026-11-28.9', '2026-11-28.10') < 0);
    assert.ok(compareVersions('2026-12-01.1', '2026-11-28.300') > 0);
  });

  it('a process reloads the catalogue when its revision moves and classifies with local entries', async () => {
    const ua = 'Mozilla/5.0 (compatible; PlatypusReader/2.0; +https://platypus.example/reader)';
    assert.equal(await refreshCatalogue(handle.db), true);
    assert.equal(await refreshCatalogue(handle.db), false, 'same revision: nothing to load');
    assert.equal(classifyUserAgent(ua).agent, undefined);
    assert.equal(classifyUserAgent('Bytespider').platform, 'Our Label', 'the local entry wins');

    await addLocalAgent(handle.db, { token: 'PlatypusReader', platform: 'Platypus', purpose: 'search' });
    assert.equal(await refreshCatalogue(handle.db), true);
    const c = classifyUserAgent(ua);
    assert.equal(c.agent, 'PlatypusReader');
    assert.equal(c.platform, 'Platypus');
    assert.equal(c.type, 'search');
    assert.ok(c.isAi);
    assert.equal(agentsInUse()[0]?.listed, false, 'local entries are ours, matched before list patterns');
  });

  it('a newer copy of a list withdraws the entries it no longer names; a copy cut short withdraws nothing', async () => {
    const citing = (await listAgents(handle.db)).filter(
      (a) => a.origin !== 'local' && a.sources.includes('ai.robots.txt'),
    );
    const copyOf = (agents: { token: string; operator: string; category?: string | null }[]) =>
      parseList(
        JSON.stringify(
          Object.fromEntries(agents.map((a) => [a.token, { operator: a.operator, function: a.category }])),
        ),
        'ai.robots.txt',
      );
    // A copy that adds WombatAIBot, which no other source names.
    const wombat = { token: 'WombatAIBot', operator: 'Wombat', category: 'AI Search Crawlers' };
    assert.equal((await mergeSynced(handle.db, 'ai.robots.txt', copyOf([...citing, wombat]))).added, 1);
    // An entry arcjet names too.
    const shared = citing.find((a) => a.sources.includes('arcjet'))!;

    const cut = await mergeSynced(handle.db, 'ai.robots.txt', copyOf([wombat]));
    assert.equal(cut.withdrawn, 0, 'a copy naming 1 of the list entries looks cut short');
    assert.ok(await getAgent(handle.db, shared.token));

    const newer = copyOf(citing.filter((a) => a !== shared));
    const r = await mergeSynced(handle.db, 'ai.robots.txt', newer);
    assert.equal(r.withdrawn, 2);
    assert.equal(await getAgent(handle.db, wombat.token), undefined, 'no source names it: gone');
    assert.deepEqual(
      (await getAgent(handle.db, shared.token))?.sources,
      shared.sources.filter((x) => x !== 'ai.robots.txt'),
      'still named by the other lists',
    );
    assert.equal(
      (await mergeSynced(handle.db, 'ai.robots.txt', newer)).withdrawn,
      0,
      'the same copy again: nothing',
    );
  });

  it('verification holds for synced entries: reverse DNS by platform, IP ranges kept from the snapshot', async () => {
    const robots = JSON.stringify({ 'Google-Pinpoint': { operator: 'Google', function: 'AI Assistants' } });
    assert.equal(rdnsDomains('Google-Pinpoint', 'Google'), undefined, 'not in the catalogue yet');
    await mergeSynced(handle.db, 'ai.robots.txt', parseList(robots, 'ai.robots.txt'));
    await refreshCatalogue(handle.db);
    assert.equal(classifyUserAgent('Mozilla/5.0 (compatible; Google-Pinpoint/1.0)').platform, 'Google');
    assert.deepEqual(rdnsDomains('Google-Pinpoint', 'Google'), [
      '.googlebot.com',
      '.google.com',
      '.googleusercontent.com',
    ]);
    // A list that syncs GPTBot again leaves its verification source alone.
    await mergeSynced(
      handle.db,
      'ai.robots.txt',
      parseList(JSON.stringify({ GPTBot: { operator: 'OpenAI' } })),
    );
    assert.equal((await getAgent(handle.db, 'GPTBot'))?.verification.ipRanges, 'openai-gptbot');
  });
});
