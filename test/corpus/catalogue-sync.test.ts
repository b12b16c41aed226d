import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listAgents } from '../../shared/agent-catalogue/store.ts';
import { syncSource } from '../../shared/agent-catalogue/sync.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// `agents sync` over the real public lists of the corpora, served from loopback: each format is
// recognised, and since the shipped snapshot was built from these same lists, merging them into
// a freshly migrated catalogue adds, changes and withdraws nothing (sync and snapshot agree).

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'ai-user-agents');
const LISTS = [
  ['robots-json', 'ai.robots.txt', 'ai.robots.txt/robots.json'],
  ['well-known-bots', 'arcjet', 'arcjet-well-known-bots/well-known-bots.json'],
  ['crawler-user-agents', 'crawler-user-agents', 'crawler-user-agents/crawler-user-agents.json'],
] as const;

let database: TestDatabase;
let handle: Db;
let server: FixtureServer;

describe('catalogue sync of the corpora lists', {
  skip: !existsSync(DIR) && `corpus not found at ${DIR}`,
}, () => {
  before(async () => {
    database = await createTestDatabase();
    handle = createDb(database.url, { max: 2 });
    server = await startFixtureServer({
      routes: Object.fromEntries(
        LISTS.map(([, , file]) => [
          `/${path.basename(file)}`,
          (_q, r) => r.end(readFileSync(path.join(DIR, file))),
        ]),
      ),
    });
  });
  after(async () => {
    await handle?.close();
    await database?.drop();
    await server?.close();
  });

  for (const [format, source, file] of LISTS)
    it(`${source} (${format}) merges into the shipped catalogue without changes`, async () => {
      const before = (await listAgents(handle.db)).length;
      const s = await syncSource(handle.db, `${server.origin}/${path.basename(file)}`, {
        allowHosts: `127.0.0.1:${server.port}`,
      });
      assert.equal(s.kind, 'catalogue');
      const r = (s as Extract<typeof s, { kind: 'catalogue' }>).result;
      console.log(
        `sync ${source}: ${r.agents} agents, ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged, ${r.withdrawn} no longer listed`,
      );
      assert.equal(r.format, format);
      assert.equal(r.source, source);
      assert.ok(r.agents > 20, 'the list has its AI agents');
      assert.equal(
        r.added + r.updated + r.withdrawn,
        0,
        'the snapshot is out of date with the corpora: npm run catalogue:snapshot',
      );
      assert.equal((await listAgents(handle.db)).length, before);
    });
});
