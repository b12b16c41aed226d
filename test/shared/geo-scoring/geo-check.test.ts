import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentProfile } from '../../../shared/geo-scoring/content.ts';
import { assessCrawlerAccess } from '../../../shared/geo-scoring/crawler-access.ts';
import { scoreGeo } from '../../../shared/geo-scoring/geo-check.ts';
import { GEO_MAX_SCORE, GEO_SIGNALS, geoModel } from '../../../shared/geo-scoring/models/geo.ts';
import type {
  AgentFetchesArtifact,
  ArtifactSet,
  LlmsTxtArtifact,
  PageArtifact,
  RobotsTxtArtifact,
  SitemapArtifact,
} from '../../../shared/scan-engine/artifacts.ts';
import { checksById } from '../../../shared/scan-engine/checks/index.ts';
import { runCheck } from '../../../shared/scan-engine/engine.ts';
import { parseLlmsTxt } from '../../../shared/scan-engine/parsers/llms-txt.ts';

const SITE = 'https://example.com';

function page(body: string, head = '', over: Partial<PageArtifact> = {}): PageArtifact {
  const html = `<!doctype html><html lang="en"><head><title>T</title>${head}</head><body>${body}</body></html>`;
  return {
    requestedUrl: `${SITE}/`,
    finalUrl: `${SITE}/`,
    redirectChain: [],
    status: 200,
    headers: { 'content-type': 'text/html', 'strict-transport-security': 'max-age=31536000' },
    setCookies: [],
    tls: { protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', validTo: null, authorized: true },
    contentType: 'text/html',
    html,
    truncated: false,
    timings: { ttfbMs: 40, totalMs: 80 },
    bytes: { transferred: html.length, decoded: html.length },
    contentEncoding: null,
    httpRedirectsToHttps: true,
    ...over,
  };
}

const robots = (body: string, status: number | null = 200): RobotsTxtArtifact => ({
  url: `${SITE}/robots.txt`,
  status,
  contentType: 'text/plain',
  body,
});

function llms(body: string | null, full = false): LlmsTxtArtifact {
  return {
    url: `${SITE}/llms.txt`,
    status: body === null ? 404 : 200,
    contentType: body === null ? null : 'text/markdown',
    body: body ?? '',
    parsed: body === null ? null : parseLlmsTxt(body),
    fullUrl: full ? `${SITE}/llms-full.txt` : null,
  };
}

const sitemap = (lastmods: string[] = []): SitemapArtifact => ({
  sources: [`${SITE}/sitemap.xml`],
  found: true,
  urls: [`${SITE}/`],
  urlCount: 1,
  lastmods,
  errors: [],
});

const fetchesAll = (status: number, over: Record<string, number> = {}): AgentFetchesArtifact => ({
  baselineStatus: 200,
  fetches: ['GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'PerplexityBot', 'CCBot'].map(
    (agent) => ({
      agent,
      userAgent: agent,
      status: over[agent] ?? status,
      bytes: 6000,
    }),
  ),
});

const GOOD_LLMS = `# Example Energy

> Independent guides to heat pumps, solar panels and home energy costs in the UK.

## Guides

- [Heat pump running costs](https://example.com/heat-pumps.md): yearly costs by house size
- [Solar payback](https://example.com/solar.md): payback periods by region
- [Insulation grants](https://example.com/grants.md): schemes and eligibility

## Tools

- [Savings calculator](https://example.com/calculator.md): estimate your bill
- [API](https://example.com/openapi.json): tariff data for developers

## Optional

- [About us](https://example.com/about.md): who writes the guides
`;

const ANSWER = (topic: string) =>
  `A ${topic} costs about £1,050 a year to run in a typical three-bedroom home, based on 12,000 kWh of heat demand and an efficiency of 3.2. Our survey of 1,200 owners in 2024 found 78% would choose one again, and running costs fell by 15% after insulation upgrades were made.`;
const SECTION = (q: string, topic: string) =>
  `<h2>${q}</h2><p>${ANSWER(topic)}</p><p>Prices vary by region: in 2023 the average tariff was 28p per kWh in London and 26p in Leeds, so the same ${topic} costs £60 less a year in the north. Installers quote between £7,000 and £13,000 before the £7,500 grant, and 9 in 10 installs take two days.</p><ul><li>Survey: £99</li><li>Install: 2 days</li></ul>`;

const GOOD_ARTICLE = `<header><nav><a href="/">Home</a><a href="/pricing">Pricing</a></nav></header>
<main><article><h1>What does a heat pump cost to run?</h1>
<p>By Jane Smith, <time datetime="2024-06-10">10 June 2024</time></p>
${SECTION('How much does a heat pump cost per year?', 'heat pump')}
${SECTION('Is a heat pump cheaper than gas?', 'air-source unit')}
${SECTION('What grants are available?', 'ground-source unit')}
<blockquote>"Running costs are the question we hear most," said Dr Alan Reed of the Energy Saving Trust.</blockquote>
<p>According to <a href="https://www.gov.uk/boiler-upgrade-scheme">GOV.UK</a> and <a href="https://www.ofgem.gov.uk/price-cap">Ofgem</a>, the grant and price cap figures above applied from April 2024 onwards across the whole country.</p>
<table><tr><th>Home</th><th>Cost</th></tr><tr><td>Flat</td><td>£640</td></tr></table>
</article></main><footer>© 2024</footer>`;

const GOOD_HEAD = `<meta name="author" content="Jane Smith"><meta name="indexnow-key" content="3f9a1c2b4d5e6f708192a3b4c5d6e7f8">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Example Energy"},{"@type":"Article","headline":"Heat pump costs","author":{"@type":"Person","name":"Jane Smith"},"datePublished":"2024-06-10"},{"@type":"BreadcrumbList","itemListElement":[]},{"@type":"FAQPage","mainEntity":[]}]}</script>`;

function goodSite(): ArtifactSet {
  return {
    Page: page(GOOD_ARTICLE, GOOD_HEAD),
    RobotsTxt: robots(
      'User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: PerplexityBot\nUser-agent: Claude-SearchBot\nAllow: /\n\nUser-agent: *\nDisallow: /admin\n',
    ),
    LlmsTxt: llms(GOOD_LLMS, true),
    Sitemap: sitemap(['2024-06-10']),
    AgentFetches: fetchesAll(200),
  };
}

function poorSite(): ArtifactSet {
  return {
    Page: page('<div id="app"></div><noscript>Please enable JavaScript</noscript>', '', {
      finalUrl: 'http://example.com/',
      tls: null,
      headers: { 'content-type': 'text/html' },
      httpRedirectsToHttps: false,
    }),
    RobotsTxt: robots('User-agent: *\nDisallow: /\n'),
    LlmsTxt: llms(null),
    AgentFetches: fetchesAll(403),
  };
}

interface Case {
  check: string;
  name: string;
  artifacts: ArtifactSet;
  outcome: 'pass' | 'warn' | 'fail' | 'not_applicable';
  message?: RegExp;
}

const cases: Case[] = [
  {
    check: 'geo-ai-crawler-access',
    name: 'no robots.txt lets every agent in',
    artifacts: { RobotsTxt: robots('', 404) },
    outcome: 'pass',
  },
  {
    check: 'geo-ai-crawler-access',
    name: 'blocking answer engines warns',
    artifacts: { RobotsTxt: robots('User-agent: PerplexityBot\nUser-agent: Perplexity-User\nDisallow: /\n') },
    outcome: 'warn',
    message: /blocks answer agents PerplexityBot, Perplexity-User/,
  },
  {
    check: 'geo-ai-crawler-access',
    name: 'a firewall refusing an allowed answer agent warns',
    artifacts: { RobotsTxt: robots('', 404), AgentFetches: fetchesAll(200, { 'OAI-SearchBot': 403 }) },
    outcome: 'warn',
    message: /refuses OAI-SearchBot \(403\) although robots\.txt allows/,
  },
  {
    check: 'geo-ai-crawler-access',
    name: 'disallowing all fails',
    artifacts: { RobotsTxt: robots('User-agent: *\nDisallow: /\n') },
    outcome: 'fail',
  },
  {
    check: 'geo-schema-coverage',
    name: 'entity, content, breadcrumbs and answers pass',
    artifacts: { Page: page('<p>x</p>', GOOD_HEAD) },
    outcome: 'pass',
  },
  {
    check: 'geo-schema-coverage',
    name: 'an Article alone fails and lists the gaps',
    artifacts: {
      Page: page(
        '<p>x</p>',
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"x"}</script>',
      ),
    },
    outcome: 'fail',
    message: /missing entity, breadcrumbs, answers/,
  },
  {
    check: 'geo-schema-coverage',
    name: 'organization plus article warns',
    artifacts: {
      Page: page(
        '<p>x</p>',
        '<script type="application/ld+json">[{"@context":"https://schema.org","@type":"Organization"},{"@context":"https://schema.org","@type":"Article"}]</script>',
      ),
    },
    outcome: 'warn',
  },
  {
    check: 'geo-schema-coverage',
    name: 'no structured data fails',
    artifacts: { Page: page('<p>x</p>') },
    outcome: 'fail',
  },
  {
    check: 'geo-indexnow',
    name: 'a key noted in robots.txt passes',
    artifacts: {
      Page: page('<p>x</p>'),
      RobotsTxt: robots('# IndexNow-Key: 3f9a1c2b4d5e6f70\nUser-agent: *\nAllow: /\n'),
    },
    outcome: 'pass',
    message: /robots\.txt/,
  },
  {
    check: 'geo-indexnow',
    name: 'a key file linked from the page passes',
    artifacts: { Page: page('<p>x</p>', '<link rel="indexnow" href="/a1b2c3d4e5f6a7b8.txt">') },
    outcome: 'pass',
  },
  {
    check: 'geo-indexnow',
    name: 'Bing webmaster verification earns part credit',
    artifacts: { Page: page('<p>x</p>', '<meta name="msvalidate.01" content="ABC">') },
    outcome: 'warn',
  },
  {
    check: 'geo-indexnow',
    name: 'sitemap lastmod dates earn a little',
    artifacts: { Page: page('<p>x</p>'), Sitemap: sitemap(['2024-01-01']) },
    outcome: 'warn',
  },
  {
    check: 'geo-indexnow',
    name: 'no key known: "cannot be verified", neutral, not failed',
    artifacts: { Page: page('<p>x</p>'), RobotsTxt: robots('# indexnow: not a key!\n') },
    outcome: 'warn',
    message: /cannot be verified/,
  },
  {
    check: 'geo-indexnow',
    name: 'a declared key whose file holds the key passes',
    artifacts: {
      Page: page('<p>x</p>'),
      IndexNow: {
        key: 'a1b2c3d4e5f6a7b8',
        source: 'declared',
        keyFileUrl: 'https://example.test/a1b2c3d4e5f6a7b8.txt',
        status: 200,
        matches: true,
      },
    },
    outcome: 'pass',
    message: /verified/,
  },
  {
    check: 'geo-indexnow',
    name: 'an advertised key whose file answers 404 fails',
    artifacts: {
      Page: page('<p>x</p>'),
      IndexNow: {
        key: 'a1b2c3d4e5f6a7b8',
        source: 'robots.txt',
        keyFileUrl: 'https://example.test/a1b2c3d4e5f6a7b8.txt',
        status: 404,
        matches: false,
      },
    },
    outcome: 'fail',
    message: /HTTP 404/,
  },
  {
    check: 'geo-https',
    name: 'HTTPS with redirect and HSTS passes',
    artifacts: { Page: page('<p>x</p>') },
    outcome: 'pass',
  },
  {
    check: 'geo-https',
    name: 'HTTPS without redirect or HSTS warns',
    artifacts: { Page: page('<p>x</p>', '', { headers: {}, httpRedirectsToHttps: false }) },
    outcome: 'warn',
    message: /does not redirect.*no HSTS/,
  },
  {
    check: 'geo-https',
    name: 'plain HTTP fails',
    artifacts: { Page: page('<p>x</p>', '', { finalUrl: 'http://example.com/', tls: null }) },
    outcome: 'fail',
  },
];

describe('GEO checks', () => {
  for (const c of cases) {
    it(`${c.check}: ${c.name}`, () => {
      const check = checksById.get(c.check);
      assert.ok(check, `check ${c.check} is registered`);
      const r = runCheck(check, c.artifacts);
      assert.equal(r.outcome, c.outcome, `${c.check} said: ${r.message}`);
      if (c.message) assert.match(r.message, c.message);
    });
  }

  it('judges each agent: explicit allow > wildcard > training blocked >> answer engines blocked', () => {
    const url = `${SITE}/`;
    const explicit = assessCrawlerAccess(
      robots('User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: PerplexityBot\nAllow: /\n'),
      url,
    ).score;
    const wildcard = assessCrawlerAccess(robots('User-agent: *\nAllow: /\n'), url).score;
    const trainingBlocked = assessCrawlerAccess(
      robots(
        'User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: ClaudeBot\nUser-agent: Google-Extended\nDisallow: /\n',
      ),
      url,
    ).score;
    const answerBlocked = assessCrawlerAccess(
      robots('User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: PerplexityBot\nDisallow: /\n'),
      url,
    ).score;
    assert.ok(explicit > wildcard, `${explicit} > ${wildcard}`);
    assert.ok(wildcard > trainingBlocked, `${wildcard} > ${trainingBlocked}`);
    // Blocking four training crawlers costs less than a tenth of what blocking three answer agents does.
    assert.ok(wildcard - trainingBlocked < (wildcard - answerBlocked) / 10);
  });
});

describe('scoreGeo', () => {
  it('returns the six signals with their fixed maxima, totalling 85', () => {
    assert.equal(GEO_MAX_SCORE, 85);
    const r = scoreGeo(goodSite(), SITE);
    assert.deepEqual(
      r.signals.map((s) => [s.id, s.maxScore]),
      [
        ['crawlers', 20],
        ['llmstxt', 15],
        ['schema', 15],
        ['citability', 15],
        ['indexnow', 10],
        ['https', 10],
      ],
    );
    assert.equal(r.maxScore, 85);
    assert.equal(
      r.overallScore,
      r.signals.reduce((s, x) => s + x.score, 0),
    );
    const sumOfWeights = geoModel.dimensions.reduce((s, d) => s + d.weight, 0);
    assert.ok(Math.abs(sumOfWeights - 1) < 1e-9);
    assert.deepEqual(
      GEO_SIGNALS.map((s) => s.id),
      geoModel.dimensions.map((d) => d.id),
    );
  });

  it('scores a well-prepared site high and an app shell behind a wall low', () => {
    const good = scoreGeo(goodSite(), SITE);
    const poor = scoreGeo(poorSite(), SITE);
    assert.ok(
      good.overallScore >= 70,
      `good site scored ${good.overallScore}: ${JSON.stringify(good.signals)}`,
    );
    assert.match(good.grade, /^[AB]$/);
    assert.ok(
      poor.overallScore <= 15,
      `poor site scored ${poor.overallScore}: ${JSON.stringify(poor.signals)}`,
    );
    assert.equal(poor.grade, 'F');
    for (const s of poor.signals) assert.ok(s.score <= s.maxScore && s.score >= 0);
  });

  it('sets fix exactly on non-passing signals and names the biggest gain in the summary', () => {
    for (const r of [scoreGeo(goodSite(), SITE), scoreGeo(poorSite(), SITE)]) {
      for (const s of r.signals) {
        assert.ok(['pass', 'warn', 'fail'].includes(s.status));
        assert.equal(s.fix === undefined, s.status === 'pass', `${s.id}: ${s.status} fix=${s.fix}`);
        assert.ok(s.detail.length > 0);
      }
    }
    const poor = scoreGeo(poorSite(), SITE);
    assert.match(
      poor.summary,
      /^GEO score \d+\/85 \(grade F\): 0 of 6 signals pass\. Biggest gain: AI crawler access/,
    );
    const crawlers = poor.signals.find((s) => s.id === 'crawlers');
    assert.equal(crawlers?.status, 'fail');
    // Only the training crawlers' "legitimate block" credit is left.
    assert.ok((crawlers?.score ?? 20) <= 3);
  });

  it('reports a firewall that refuses agents robots.txt allows', () => {
    const site = {
      ...goodSite(),
      AgentFetches: fetchesAll(200, { 'OAI-SearchBot': 403, 'ChatGPT-User': 403 }),
    };
    const crawlers = scoreGeo(site, SITE).signals.find((s) => s.id === 'crawlers');
    assert.equal(crawlers?.status, 'warn');
    assert.match(crawlers?.fix ?? '', /Allowlist OAI-SearchBot, ChatGPT-User/);
    assert.ok((crawlers?.score ?? 20) < 17);
  });

  it('degrades to failing signals, not an exception, when artifacts are missing', () => {
    const r = scoreGeo({ Page: { error: { message: 'connect ECONNREFUSED' } } }, SITE);
    assert.equal(r.overallScore, 0);
    assert.ok(r.signals.every((s) => s.status === 'fail' && s.fix));
  });
});

describe('content profile quotes', () => {
  it('counts quotes outside scripts and templates, attributed by cite, a cite or footer, or a captioned figure', () => {
    const html = `<html><body>
      <blockquote>plain</blockquote>
      <blockquote cite="https://example.com">by attribute</blockquote>
      <blockquote>by <cite>a cite</cite></blockquote>
      <blockquote>by <footer>a footer</footer></blockquote>
      <figure><blockquote>in a captioned figure</blockquote><figcaption>Someone</figcaption></figure>
      <figure><blockquote>in a figure without a caption</blockquote></figure>
      <figure><figcaption>A caption</figcaption><div><p>Said <q>nested deep</q></p></div></figure>
      <p>An inline <q>quote</q>.</p>
      <template><blockquote>in a template</blockquote></template>
      <noscript><blockquote>in noscript</blockquote></noscript>
    </body></html>`;
    const p = contentProfile(html, 'https://example.com/quotes');
    assert.equal(p.blockquotes, 6);
    assert.equal(p.inlineQuotes, 2);
    assert.equal(p.attributedQuotes, 5);
  });
});
