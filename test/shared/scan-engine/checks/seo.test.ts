import seoCanonical from '../../../../shared/scan-engine/checks/seo/seo-canonical.ts';
import seoH1 from '../../../../shared/scan-engine/checks/seo/seo-h1.ts';
import seoHreflang from '../../../../shared/scan-engine/checks/seo/seo-hreflang.ts';
import seoHtmlLang from '../../../../shared/scan-engine/checks/seo/seo-html-lang.ts';
import seoHttpStatus from '../../../../shared/scan-engine/checks/seo/seo-http-status.ts';
import seoIndexable from '../../../../shared/scan-engine/checks/seo/seo-indexable.ts';
import seoLighthouse from '../../../../shared/scan-engine/checks/seo/seo-lighthouse.ts';
import seoMetaDescription from '../../../../shared/scan-engine/checks/seo/seo-meta-description.ts';
import seoOpenGraph from '../../../../shared/scan-engine/checks/seo/seo-open-graph.ts';
import seoRobotsTxt from '../../../../shared/scan-engine/checks/seo/seo-robots-txt.ts';
import seoSitemap from '../../../../shared/scan-engine/checks/seo/seo-sitemap.ts';
import seoStructuredData from '../../../../shared/scan-engine/checks/seo/seo-structured-data.ts';
import seoTitle from '../../../../shared/scan-engine/checks/seo/seo-title.ts';
import {
  checkTable,
  html,
  htmlPage,
  lighthouse,
  page,
  robots,
  sitemap,
  TEST_URL,
} from '../../../helpers/artifact-factory.ts';

const head = (h: string) => ({ Page: htmlPage(html('<h1>Hi</h1>', h)) });
const desc = (text: string) =>
  head(`<title>Example page title</title><meta name="description" content="${text}">`);
const og = (tags: Record<string, string>) =>
  head(
    Object.entries(tags)
      .map(([p, c]) => `<meta property="${p}" content="${c}">`)
      .join(''),
  );
const canonical = (href: string, url = TEST_URL) => ({
  Page: htmlPage(html('<h1>Hi</h1>', `<link rel="canonical" href="${href}">`), { finalUrl: url }),
});
const jsonLd = (...blocks: string[]) =>
  head(blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join(''));
const hreflang = (links: [string, string][], url = TEST_URL) => ({
  Page: htmlPage(
    html('', links.map(([l, h]) => `<link rel="alternate" hreflang="${l}" href="${h}">`).join('')),
    { finalUrl: url },
  ),
});

checkTable(seoTitle, [
  ['missing title', head(''), { outcome: 'fail', message: /^Page has no <title>$/ }],
  ['empty title', head('<title>  </title>'), { outcome: 'fail', message: /Page has no <title>.*empty/ }],
  [
    'an SVG title is not the page title',
    { Page: htmlPage(html('<svg><title>Icon</title></svg>', '')) },
    { outcome: 'fail' },
  ],
  ['very short title', head('<title>Home</title>'), { outcome: 'warn', message: /very short/ }],
  [
    'title too long for results',
    head(`<title>${'Word '.repeat(17)}</title>`),
    { outcome: 'warn', message: /cut it off/ },
  ],
  [
    'two titles',
    head('<title>Example page one</title><title>Example page two</title>'),
    { outcome: 'warn', message: /2 <title>/ },
  ],
  [
    'descriptive title',
    head('<title>Fresh bread delivered daily | Bakery</title>'),
    { outcome: 'pass', score: [1, 1] },
  ],
]);

checkTable(seoMetaDescription, [
  ['missing', head('<title>t</title>'), { outcome: 'fail', message: /^Meta description is missing$/ }],
  ['empty content', desc(''), { outcome: 'fail', message: /Meta description is missing.*empty/ }],
  ['too short', desc('Bread.'), { outcome: 'warn', message: /short/ }],
  ['too long', desc('x'.repeat(200)), { outcome: 'warn', message: /200 characters/ }],
  [
    'good length',
    desc('Sourdough, rye and spelt loaves baked every morning and delivered across town before 8am.'),
    { outcome: 'pass' },
  ],
]);

checkTable(seoCanonical, [
  ['none declared', head(''), { outcome: 'warn', message: /No canonical/ }],
  ['self-referencing', canonical('https://example.test/'), { outcome: 'pass' }],
  ['relative href resolves', canonical('/blog/post', 'https://example.test/blog/post'), { outcome: 'pass' }],
  [
    'deep page pointing at the root',
    canonical('https://example.test/', 'https://example.test/blog/post'),
    { outcome: 'fail', message: /site root/ },
  ],
  ['another site', canonical('https://elsewhere.test/page'), { outcome: 'warn', message: /another site/ }],
  ['unparseable URL', canonical('http://'), { outcome: 'fail', message: /invalid/ }],
  [
    'conflicting tags',
    { Page: htmlPage(html('', '<link rel="canonical" href="/a"><link rel="canonical" href="/b">')) },
    { outcome: 'fail', message: /2 conflicting/ },
  ],
  [
    'from the Link header',
    { Page: page({ headers: { link: '<https://example.test/>; rel="canonical"' } }) },
    { outcome: 'pass' },
  ],
]);

checkTable(seoH1, [
  ['no h1', { Page: htmlPage(html('<h2>Sub</h2>')) }, { outcome: 'fail', message: /no <h1>/ }],
  ['one h1', { Page: htmlPage(html('<h1>Bakery</h1>')) }, { outcome: 'pass', message: /"Bakery"/ }],
  ['empty h1', { Page: htmlPage(html('<h1> </h1>')) }, { outcome: 'fail', message: /empty/ }],
  ['two h1s', { Page: htmlPage(html('<h1>A</h1><h1>B</h1>')) }, { outcome: 'warn', message: /2 <h1>/ }],
]);

checkTable(seoHtmlLang, [
  [
    'no lang attribute',
    { Page: htmlPage(html('', '', '')) },
    { outcome: 'fail', message: /^<html> has no lang attribute$/ },
  ],
  [
    'empty lang',
    { Page: htmlPage(html('', '', 'lang=""')) },
    { outcome: 'fail', message: /<html> has no lang attribute/ },
  ],
  [
    'underscore instead of hyphen',
    { Page: htmlPage(html('', '', 'lang="en_US"')) },
    { outcome: 'warn', message: /not a valid/ },
  ],
  ['a word instead of a code', { Page: htmlPage(html('', '', 'lang="english"')) }, { outcome: 'warn' }],
  ['valid tag', { Page: htmlPage(html('', '', 'lang="en-GB"')) }, { outcome: 'pass', message: /en-GB/ }],
]);

checkTable(seoIndexable, [
  ['indexable', { Page: page() }, { outcome: 'pass' }],
  [
    'meta robots noindex',
    head('<meta name="robots" content="noindex, follow">'),
    { outcome: 'fail', message: /noindex/ },
  ],
  ['meta googlebot none', head('<meta name="googlebot" content="none">'), { outcome: 'fail' }],
  [
    'X-Robots-Tag noindex',
    { Page: page({ headers: { 'x-robots-tag': 'noindex' } }) },
    { outcome: 'fail', message: /X-Robots-Tag/ },
  ],
  [
    'X-Robots-Tag for another bot only',
    { Page: page({ headers: { 'x-robots-tag': 'otherbot: noindex' } }) },
    { outcome: 'pass' },
  ],
  [
    'X-Robots-Tag googlebot noindex',
    { Page: page({ headers: { 'x-robots-tag': 'googlebot: noindex, nofollow' } }) },
    { outcome: 'fail' },
  ],
  [
    'unavailable_after is not noindex',
    { Page: page({ headers: { 'x-robots-tag': 'unavailable_after: 25 Jun 2030 15:00:00 PST' } }) },
    { outcome: 'pass' },
  ],
  [
    'robots.txt blocks the page',
    { Page: page(), RobotsTxt: robots('User-agent: *\nDisallow: /') },
    { outcome: 'fail', message: /robots\.txt blocks/ },
  ],
  [
    'robots.txt blocks another path',
    { Page: page(), RobotsTxt: robots('User-agent: *\nDisallow: /private/') },
    { outcome: 'pass' },
  ],
]);

checkTable(seoRobotsTxt, [
  [
    'permissive file',
    { RobotsTxt: robots('User-agent: *\nDisallow:\nSitemap: https://example.test/sitemap.xml') },
    { outcome: 'pass' },
  ],
  ['missing (404)', { RobotsTxt: robots('', 404) }, { outcome: 'warn', message: /No robots\.txt/ }],
  ['server error', { RobotsTxt: robots('', 503) }, { outcome: 'fail', message: /503/ }],
  [
    'unreachable',
    { RobotsTxt: { ...robots('', null), error: 'ECONNRESET' } },
    { outcome: 'fail', message: /ECONNRESET/ },
  ],
  [
    'blocks everything',
    { RobotsTxt: robots('User-agent: *\nDisallow: /') },
    { outcome: 'fail', message: /disallows the whole site for SightlineBot and Googlebot/ },
  ],
  [
    'blocks only our bot',
    { RobotsTxt: robots('User-agent: sightlinebot\nDisallow: /\n\nUser-agent: *\nAllow: /') },
    { outcome: 'fail', message: /for SightlineBot$/ },
  ],
  [
    'Yandex host directive is not a mistake',
    { RobotsTxt: robots('User-agent: *\nDisallow: /tmp\nHost: example.test') },
    { outcome: 'pass' },
  ],
  [
    'unknown directive',
    { RobotsTxt: robots('User-agent: *\nDissallow-all: /tmp') },
    { outcome: 'warn', message: /Dissallow-all/ },
  ],
]);

checkTable(seoSitemap, [
  ['found with URLs', { Sitemap: sitemap({ urlCount: 42 }) }, { outcome: 'pass', message: /42 URLs/ }],
  [
    'not found',
    { Sitemap: sitemap({ found: false, urls: [], urlCount: 0 }) },
    { outcome: 'warn', message: /No XML sitemap/ },
  ],
  ['empty sitemap', { Sitemap: sitemap({ urls: [], urlCount: 0 }) }, { outcome: 'warn', message: /no URLs/ }],
  [
    'parse errors',
    { Sitemap: sitemap({ errors: ['line 3: unclosed tag'] }) },
    { outcome: 'warn', message: /unclosed/ },
  ],
]);

checkTable(seoStructuredData, [
  ['none', head(''), { outcome: 'warn', message: /No structured data/ }],
  [
    'valid JSON-LD with a graph',
    jsonLd(
      '{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Bakery"},{"@type":"WebSite"}]}',
    ),
    { outcome: 'pass', message: /Organization and WebSite/ },
  ],
  [
    'broken JSON',
    jsonLd('{"@context": "https://schema.org", "@type": "Organization",}'),
    { outcome: 'fail', message: /does not parse/ },
  ],
  ['no @context', jsonLd('{"@type":"Organization"}'), { outcome: 'warn', message: /@context/ }],
  ['no @type', jsonLd('{"@context":"https://schema.org"}'), { outcome: 'warn', message: /no @type/ }],
  [
    'microdata',
    { Page: htmlPage(html('<div itemscope itemtype="https://schema.org/Product"></div>')) },
    { outcome: 'pass', message: /Product/ },
  ],
]);

const allOg = {
  'og:title': 'T',
  'og:type': 'website',
  'og:image': 'https://example.test/i.png',
  'og:url': TEST_URL,
};
checkTable(seoOpenGraph, [
  ['all required tags', og(allOg), { outcome: 'pass' }],
  ['none', og({}), { outcome: 'fail', message: /^Open Graph tags are missing$/ }],
  [
    'all empty',
    og({ 'og:title': '', 'og:type': '', 'og:image': '', 'og:url': '' }),
    { outcome: 'fail', message: /empty/ },
  ],
  [
    'image missing',
    og({ ...allOg, 'og:image': '' }),
    { outcome: 'warn', message: /og:image/, score: [0.75, 0.75] },
  ],
]);

checkTable(seoHreflang, [
  ['no alternates', head(''), { outcome: 'not_applicable' }],
  [
    'consistent set',
    hreflang([
      ['en', 'https://example.test/'],
      ['de', 'https://example.test/de/'],
      ['x-default', 'https://example.test/'],
    ]),
    { outcome: 'pass', message: /3 language versions/ },
  ],
  [
    'underscore code',
    hreflang([['en_US', 'https://example.test/']]),
    { outcome: 'fail', message: /"en_US"/ },
  ],
  [
    'UK is not a region code',
    hreflang([['en-UK', 'https://example.test/']]),
    { outcome: 'fail', message: /"en-UK"/ },
  ],
  ['relative URL', hreflang([['en', '/']]), { outcome: 'fail', message: /relative/ }],
  [
    'two URLs for one code',
    hreflang([
      ['en', 'https://example.test/'],
      ['en', 'https://example.test/en/'],
    ]),
    { outcome: 'fail', message: /several URLs for en/ },
  ],
  ['page not listed', hreflang([['de', 'https://example.test/de/']]), { outcome: 'warn', message: /itself/ }],
]);

checkTable(seoHttpStatus, [
  ['200', { Page: page() }, { outcome: 'pass' }],
  ['404', { Page: page({ status: 404 }) }, { outcome: 'fail', message: /404/ }],
  ['500', { Page: page({ status: 500 }) }, { outcome: 'fail' }],
  [
    'long redirect chain',
    {
      Page: page({
        redirectChain: [1, 2, 3].map((i) => ({
          url: `${TEST_URL}${i}`,
          status: 301,
          location: `${TEST_URL}${i + 1}`,
        })),
      }),
    },
    { outcome: 'warn', message: /3 redirects/ },
  ],
]);

checkTable(seoLighthouse, [
  ['good score', { Lighthouse: lighthouse({ seo: 0.92 }) }, { outcome: 'pass', message: /92/ }],
  ['poor score', { Lighthouse: lighthouse({ seo: 0.4 }) }, { outcome: 'fail' }],
  ['category missing', { Lighthouse: lighthouse({ seo: null }) }, { outcome: 'not_applicable' }],
  ['quick mode', { Page: page() }, { outcome: 'not_applicable' }],
]);
