import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { scoreCitability } from '../../shared/geo-scoring/citability.ts';
import { contentProfile } from '../../shared/geo-scoring/content.ts';
import { htmlPage } from '../helpers/artifact-factory.ts';

// Issue 14, citability that discriminates. A page built for answer engines and a property
// listing with no GEO work once scored 73 and 70, the listing's "statistical density" coming
// from <select> option values (bedroom counts). The expected ordering, documented here and in
// docs/scoring.md: the GEO-rich article (test/fixtures/pages) >= 85; the listing <= 40 and at
// least 40 points below it; real prose from the corpus in between.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');

function cite(file: string) {
  const html = readFileSync(file, 'utf8');
  const url = 'https://site.test/page';
  return scoreCitability({ Page: htmlPage(html, { requestedUrl: url, finalUrl: url }) }, url);
}
const fixture = (name: string) => path.resolve('test/fixtures/pages', name);

describe('citability ordering', () => {
  const rich = cite(fixture('geo-rich-article.html'));
  const listing = cite(fixture('property-listing.html'));

  it('a GEO-rich article outscores a thin listing page by a clear margin', () => {
    assert.ok(rich.overall >= 85, `GEO-rich ${rich.overall}`);
    assert.ok(listing.overall <= 40, `listing ${listing.overall}`);
    assert.ok(rich.overall - listing.overall >= 40, `${rich.overall} vs ${listing.overall}`);
  });

  it("every dimension of the listing is at most the article's", () => {
    for (const [k, v] of Object.entries(listing.dimensions))
      assert.ok(
        v <= rich.dimensions[k as keyof typeof rich.dimensions],
        `${k}: listing ${v} vs rich ${rich.dimensions[k as keyof typeof rich.dimensions]}`,
      );
  });

  it('form controls, navigation and fact lists are not statistics: option values add no figures', () => {
    const html = readFileSync(fixture('property-listing.html'), 'utf8');
    const p = contentProfile(html, 'https://site.test/page');
    assert.equal(
      p.figures,
      0,
      'bedroom counts and prices in <select>, cards and "3 beds" lists are not prose',
    );
    assert.equal(listing.dimensions.statisticalDensity, 0);
    // The same selects dropped into the article change nothing.
    const article = readFileSync(fixture('geo-rich-article.html'), 'utf8');
    const selects = /<div class="search">[\s\S]*?<\/div>/.exec(html)![0];
    const withSelects = article.replace('<h1>', `${selects}<h1>`);
    assert.equal(
      contentProfile(withSelects, 'https://site.test/x').figures,
      contentProfile(article, 'https://site.test/page').figures,
    );
  });

  it('an attributed quotation in an <aside> counts as a quotation', () => {
    const p = contentProfile(
      readFileSync(fixture('geo-rich-article.html'), 'utf8'),
      'https://site.test/page',
    );
    assert.equal(p.blockquotes, 1);
    assert.equal(p.attributedQuotes, 1);
  });

  it('real prose from the corpus falls between the two', { skip: !existsSync(SITES) && 'no corpus' }, () => {
    for (const f of ['underscorejs-org/index.html', 'w3c-bad-demo/after/news.html']) {
      const r = cite(path.join(SITES, f));
      assert.ok(r.overall > listing.overall && r.overall < rich.overall, `${f}: ${r.overall}`);
    }
    // The h5bp skeleton has no content at all: it is at the bottom.
    assert.ok(cite(path.join(SITES, 'h5bp-boilerplate-dist/index.html')).overall <= listing.overall);
  });
});
