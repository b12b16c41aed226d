import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type IngestRequest, ingest, requestHash } from '../../../shared/agent-traffic/ingest.ts';
import { pageKey } from '../../../shared/agent-traffic/page-key.ts';
import { foldPages } from '../../../shared/agent-traffic/page-rollups.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { newAgentSite, offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// Page keys: the query string is left out (tracking parameters, session ids and cache busters do
// not split a page), except the parameters that select a feed, so a site's RSS, Atom and JSON
// feeds stay distinguishable from its home page and from each other.

describe('pageKey', () => {
  it('leaves out query strings', () => {
    assert.equal(pageKey('/pricing?ref=x&utm_source=chatgpt.com'), '/pricing');
    assert.equal(pageKey('/?s=hello'), '/');
    assert.equal(pageKey('?a=1'), '/');
    assert.equal(pageKey(''), '/');
    assert.equal(pageKey('/docs'), '/docs');
    assert.equal(pageKey('/report?format=pdf'), '/report', 'a format that is not a feed');
    assert.equal(pageKey('/list?type=rss'), '/list', "Joomla's type only beside format=feed");
  });

  it('keeps the parameters that select a feed (RSS, Atom, JSON Feed), canonically', () => {
    assert.equal(pageKey('/?feed=rss2'), '/?feed=rss2');
    assert.equal(pageKey('/?feed=atom&utm_source=x'), '/?feed=atom');
    assert.equal(pageKey('/?flav=rss20'), '/?flav=rss20');
    assert.equal(pageKey('/?flav=atom'), '/?flav=atom');
    assert.equal(pageKey('/blog?format=RSS'), '/blog?format=rss');
    assert.equal(pageKey('/blog?format=atom'), '/blog?format=atom');
    assert.equal(pageKey('/feed?format=json'), '/feed?format=json');
    assert.equal(pageKey('/index.php?type=atom&format=feed'), '/index.php?format=feed&type=atom');
    assert.equal(pageKey('/feeds/posts/default?alt=rss'), '/feeds/posts/default?alt=rss');
    assert.equal(pageKey('/news?output=atom&x=1'), '/news?output=atom');
    assert.equal(pageKey('/?feed=comments-rss2'), '/?feed=comments-rss2');
    assert.notEqual(pageKey('/?feed=rss2'), pageKey('/?feed=atom'));
  });

  it('bounds the key at 2,048 characters', () => {
    assert.equal(pageKey(`/${'a'.repeat(5000)}?feed=rss2`).length, 2048);
    assert.equal(pageKey(`/${'a'.repeat(5000)}`).length, 2048);
  });
});

describe('feeds in the stored events and page rollups', () => {
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

  it('counts /?flav=rss20 and /?feed=atom apart from /, and /?utm_source=… as /', async () => {
    const site = await newAgentSite(handle.db, 'feeds@example.test', 'https://feeds.example.com/');
    const at = (path: string, i: number): IngestRequest => ({
      time: new Date(Date.now() - 3600_000 + i * 1000),
      method: 'GET',
      path,
      status: 200,
      ip: '198.51.100.9',
      userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
      referer: null,
      hash: requestHash(`feeds ${path} ${i}`),
    });
    const paths = ['/', '/?utm_source=x', '/?flav=rss20', '/?flav=rss20&x=2', '/?feed=atom'];
    await ingest(handle.db, site, 'collect', paths.map(at), verifier, { retentionDays: null });
    await foldPages(handle.db, site.id);
    const rows = await handle.db
      .selectFrom('agent_path_rollups')
      .select(['path', 'visits'])
      .where('site_id', '=', site.id)
      .orderBy('path')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.path, Number(r.visits)]),
      [
        ['/', 2],
        ['/?feed=atom', 1],
        ['/?flav=rss20', 2],
      ],
    );
  });
});
