import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SITEMAP_URLS, parseSitemap } from '../../../../shared/scan-engine/parsers/sitemap.ts';

describe('parseSitemap', () => {
  it('reads a urlset with loc and lastmod, decoding entities', () => {
    const s = parseSitemap(`<?xml version="1.0" encoding="UTF-8"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://example.com/ </loc><lastmod>2024-05-01</lastmod><priority>1.0</priority></url>
  <url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod></url>
  <url><loc>https://example.com/b</loc></url>
</urlset>`);
    assert.equal(s.kind, 'urlset');
    assert.deepEqual(s.urls, [
      { loc: 'https://example.com/', lastmod: '2024-05-01' },
      { loc: 'https://example.com/a?x=1&y=2', lastmod: '2024-05-01T10:00:00+02:00' },
      { loc: 'https://example.com/b' },
    ]);
    assert.deepEqual(s.sitemaps, []);
    assert.deepEqual(s.errors, []);
  });

  it('reads a sitemap index', () => {
    const s = parseSitemap(
      '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://e.com/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap><sitemap><loc>https://e.com/s2.xml</loc></sitemap></sitemapindex>',
    );
    assert.equal(s.kind, 'sitemapindex');
    assert.deepEqual(s.sitemaps, ['https://e.com/s1.xml', 'https://e.com/s2.xml']);
    assert.deepEqual(s.urls, []);
  });

  it('accepts namespace prefixes', () => {
    const s = parseSitemap(
      '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://e.com/x</sm:loc></sm:url></sm:urlset>',
    );
    assert.deepEqual(s.urls, [{ loc: 'https://e.com/x' }]);
  });

  it('reports entries without loc, relative URLs and bad lastmod values, keeping the good ones', () => {
    const s = parseSitemap(
      '<urlset><url><lastmod>2024-01-01</lastmod></url><url><loc>/relative</loc></url><url><loc>https://e.com/ok</loc><lastmod>yesterday</lastmod></url></urlset>',
    );
    assert.equal(s.kind, 'urlset');
    assert.deepEqual(s.urls, [{ loc: 'https://e.com/ok', lastmod: 'yesterday' }]);
    assert.equal(s.errors.length, 3);
    assert.match(s.errors[0] ?? '', /no <loc>/);
    assert.match(s.errors[1] ?? '', /not an absolute/);
    assert.match(s.errors[2] ?? '', /W3C datetime/);
  });

  it('reads plain-text sitemaps, one URL per line', () => {
    const s = parseSitemap('https://e.com/a\r\nhttps://e.com/b\n\nnot a url\n');
    assert.equal(s.kind, 'urlset');
    assert.deepEqual(s.urls, [{ loc: 'https://e.com/a' }, { loc: 'https://e.com/b' }]);
    assert.deepEqual(s.errors, ['Line 4 is not an absolute http(s) URL']);
  });

  it('reads RSS and Atom feeds as URL sets', () => {
    const rss = parseSitemap(
      '<rss version="2.0"><channel><link>https://e.com/</link><item><link>https://e.com/p1</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item></channel></rss>',
    );
    assert.deepEqual(rss.urls, [{ loc: 'https://e.com/p1', lastmod: 'Mon, 01 Jan 2024 00:00:00 GMT' }]);
    const atom = parseSitemap(
      '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://e.com/a1"/><updated>2024-01-01T00:00:00Z</updated></entry></feed>',
    );
    assert.deepEqual(atom.urls, [{ loc: 'https://e.com/a1', lastmod: '2024-01-01T00:00:00Z' }]);
  });

  const invalid: [name: string, body: string, error: RegExp][] = [
    ['empty', '  \n', /empty/],
    ['an HTML page', '<!DOCTYPE html><html><body>Not found</body></html>', /HTML/],
    [
      'another XML document',
      '<?xml version="1.0"?><note><to>x</to></note>',
      /Unexpected root element <note>/,
    ],
    ['plain text without URLs', 'Not Found\n', /No URLs/],
  ];
  for (const [name, body, error] of invalid) {
    it(`${name} is invalid`, () => {
      const s = parseSitemap(body);
      assert.equal(s.kind, 'invalid');
      assert.deepEqual(s.urls, []);
      assert.match(s.errors[0] ?? '', error);
    });
  }

  it('says when a urlset lists nothing', () => {
    const s = parseSitemap('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>');
    assert.equal(s.kind, 'urlset');
    assert.deepEqual(s.errors, ['The sitemap lists no URLs']);
  });

  it(`stops at ${MAX_SITEMAP_URLS} URLs and says so`, () => {
    const lines = Array.from({ length: MAX_SITEMAP_URLS + 3 }, (_, i) => `https://e.com/${i}`).join('\n');
    const s = parseSitemap(lines);
    assert.equal(s.urls.length, MAX_SITEMAP_URLS);
    assert.deepEqual(s.errors, [`More than ${MAX_SITEMAP_URLS} URLs: 3 were not read`]);
  });
});
