import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { crawlRefs } from '../../../shared/audits/crawl-refs.ts';
import { toJsonb } from '../../../shared/db/json.ts';
import type { ArtifactSet } from '../../../shared/scan-engine/artifacts.ts';
import { pageRefs } from '../../../shared/scan-engine/gatherers/page-refs.ts';
import { sitemapDigest } from '../../../shared/scan-engine/parsers/sitemap.ts';
import { scoreArtifacts } from '../../../shared/scan-engine/score.ts';
import {
  closeScoreThread,
  crawlRefsInThread,
  pageRefsInThread,
  scoreInThread,
  scoreToStoreInThread,
  sitemapDigestInThread,
} from '../../../shared/scan-engine/score-thread.ts';
import { SCORING_NICE } from '../../../shared/scan-engine/score-worker.ts';
import { threadNice } from '../../../worker/browser/processes.ts';
import {
  gatherError,
  html,
  lighthouse,
  page,
  rendered,
  resources,
  robots,
  sitemap,
} from '../../helpers/artifact-factory.ts';

// Scans score in a worker thread (under tsx here, as in development): its answers must be exactly
// what scoring in this thread gives, errors included, and several sets in flight keep their order.

const content = html(
  '<header><a href="/">Home</a><a href="/contact">Contact</a></header><main><h1>Opening hours</h1>' +
    '<p>Call us on +44 20 7946 0958 or write to info@example.test.</p><ul><li>Mon</li><li>Tue</li></ul></main>',
);
const sets: ArtifactSet[] = [
  { Page: page({ html: content }), Resources: resources(), RobotsTxt: robots('User-agent: *\nAllow: /') },
  { Page: page(), Sitemap: sitemap(), Rendered: rendered(), Lighthouse: lighthouse() },
  { Page: page({ status: 404 }), Resources: gatherError('connection refused') },
];

after(() => closeScoreThread());

describe('scoring thread', () => {
  it('gives the same results as scoring in this thread, for sets in flight together', async () => {
    const threaded = await Promise.all(sets.map((s) => scoreInThread(s)));
    assert.equal(threaded.length, sets.length);
    sets.forEach((s, i) => {
      assert.deepEqual(threaded[i], scoreArtifacts(s));
    });
  });

  it('scores the models asked for', async () => {
    const r = await scoreInThread(sets[0]!, ['agent-readability']);
    assert.deepEqual(Object.keys(r), ['agent-readability']);
  });

  it('rejects with the error scoring in this thread would throw', async () => {
    await assert.rejects(scoreInThread(sets[0]!, ['no-such-model']), /unknown scoring model no-such-model/);
  });

  it("runs below the main thread's priority, which it leaves alone", {
    skip: process.platform !== 'linux',
  }, async () => {
    await scoreInThread(sets[0]!); // the thread is running
    const nice = threadNices();
    assert.equal(nice.get(process.pid), 0, 'the main thread keeps its priority');
    assert.ok(
      [...nice.values()].includes(SCORING_NICE),
      `a thread at nice ${SCORING_NICE}: ${JSON.stringify([...nice])}`,
    );
  });

  it("reads a page's links for the gatherers there, exactly as in this thread, errors kept per part", async () => {
    const pages = [
      page({
        html: html(
          '<img src="/i.png">',
          '<title>Links</title><link rel="stylesheet" href="/a.css"><link rel="preload" as="font" href="/f.woff2">' +
            '<script src="/s.js"></script><link rel="service-desc" href="/api/openapi.json">' +
            '<meta name="indexnow-key" content="0123456789abcdef">',
        ),
      }),
      // A <base> that is not a URL: reading the OpenAPI links throws; the resources still resolve.
      page({
        html: html('<p>Bad base</p>', '<base href="http://[bad"><link rel="stylesheet" href="/a.css">'),
      }),
      page({ contentType: 'application/pdf', html: '' }),
    ];
    const threaded = await Promise.all(pages.map((p) => pageRefsInThread(p)));
    pages.forEach((p, i) => {
      assert.deepEqual(threaded[i], pageRefs(p));
    });
    assert.deepEqual(threaded[0]!.resources, {
      value: [
        { url: 'https://example.test/a.css', type: 'stylesheet', renderBlocking: true },
        { url: 'https://example.test/s.js', type: 'script', renderBlocking: true },
        { url: 'https://example.test/f.woff2', type: 'font', renderBlocking: false },
        { url: 'https://example.test/i.png', type: 'image', renderBlocking: false },
      ],
    });
    assert.deepEqual(threaded[0]!.openApi, { value: ['https://example.test/api/openapi.json'] });
    assert.deepEqual(threaded[0]!.indexnow, { value: { key: '0123456789abcdef', location: null } });
    assert.ok('error' in threaded[1]!.openApi, JSON.stringify(threaded[1]));
    assert.ok('value' in threaded[1]!.resources);
  });

  it("reads the audit crawl's links and page identities there, as in this thread", async () => {
    const docs = [
      {
        finalUrl: 'https://example.test/docs/index.html',
        html: html(
          '<a href="intro.html#top">a</a> <a href="/about">b</a> <a href="https://other.test/">c</a> <a href="x.pdf">d</a>',
          '<base href="https://example.test/docs/"><link rel="canonical" href="https://example.test/docs/">',
        ),
      },
      // A canonical URL on another origin is not an identity; a <base> that is not a URL falls back.
      {
        finalUrl: 'https://example.test/b',
        html: html(
          '<a href="/c">c</a>',
          '<base href="http://[bad"><link rel="canonical" href="https://else.test/">',
        ),
      },
    ];
    const threaded = await Promise.all(docs.map((d) => crawlRefsInThread(d, 'https://example.test')));
    docs.forEach((d, i) => {
      assert.deepEqual(threaded[i], crawlRefs(d, 'https://example.test'));
    });
    assert.deepEqual(threaded[0]!.links, [
      'https://example.test/docs/intro.html',
      'https://example.test/about',
    ]);
    assert.equal(threaded[0]!.identities.length, 2, 'body and same-origin canonical');
    assert.deepEqual(threaded[1]!.links, ['https://example.test/c']);
    assert.equal(threaded[1]!.identities.length, 1, 'body only');
  });

  it('parses sitemaps there into the digest the gatherer keeps, as in this thread', async () => {
    const urlset = (n: number) =>
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from(
        { length: n },
        (_, i) =>
          `<url><loc>https://example.test/p${i % (n - 5)}</loc><lastmod>2026-11-0${1 + (i % 9)}</lastmod></url>`,
      ).join('')}<url><loc>not a url</loc></url></urlset>`;
    const files = [
      urlset(1200), // more than kept, with repeats
      '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.test/a.xml</loc></sitemap></sitemapindex>',
      'https://example.test/one\nhttps://example.test/two',
      '<html><body>not a sitemap</body></html>',
    ];
    for (const xml of files) assert.deepEqual(await sitemapDigestInThread(xml, 500), sitemapDigest(xml, 500));
    const big = await sitemapDigestInThread(files[0]!, 500);
    assert.equal(big.urlCount, 1200);
    assert.equal(big.locs.length, 500);
    assert.equal(new Set(big.locs).size, 500);
    assert.equal(big.lastmods.length, 500);
    assert.ok(big.errors.length === 1 && /not an absolute/.test(big.errors[0]!), JSON.stringify(big.errors));
  });

  it("writes a scan's set and results as jsonb text there, NULs dropped, also when done here", async () => {
    const hostile: ArtifactSet = { Page: page({ html: html(`<p>a\0b</p>${'\0'.repeat(100_000)}\ud800`) }) };
    const expected = {
      results: scoreArtifacts(hostile),
      artifactsJsonb: toJsonb(hostile),
      resultsJsonb: toJsonb(scoreArtifacts(hostile)),
    };
    assert.doesNotMatch(expected.artifactsJsonb, /\\u0000|\\ud800/);
    assert.deepEqual(await scoreToStoreInThread(hostile), expected);
    const inFlight = scoreToStoreInThread(hostile);
    await closeScoreThread();
    assert.deepEqual(await inFlight, expected);
  });

  it('scores in this thread when the thread has been closed mid-flight', async () => {
    const inFlight = scoreInThread(sets[1]!);
    await closeScoreThread();
    assert.deepEqual(await inFlight, scoreArtifacts(sets[1]!));
  });
});

/** This process's threads by id, with their nice values. */
function threadNices(): Map<number, number | null> {
  return new Map(readdirSync('/proc/self/task').map((tid) => [Number(tid), threadNice('self', Number(tid))]));
}
