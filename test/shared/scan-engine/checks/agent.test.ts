import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  AgentFetchesArtifact,
  ArtifactSet,
  PageArtifact,
  RenderedArtifact,
  TextFileArtifact,
  WellKnownArtifact,
} from '../../../../shared/scan-engine/artifacts.ts';
import { checksById } from '../../../../shared/scan-engine/checks/index.ts';
import { runCheck } from '../../../../shared/scan-engine/engine.ts';

// Variant B checks as tables of cases: artifacts in, outcome out.

const URL_ = 'https://example.com/guide';

function page(body: string, head = ''): PageArtifact {
  const html = `<!doctype html><html lang="en"><head><title>Guide</title>${head}</head><body>${body}</body></html>`;
  return {
    requestedUrl: URL_,
    finalUrl: URL_,
    redirectChain: [],
    status: 200,
    headers: { 'content-type': 'text/html' },
    setCookies: [],
    tls: { protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256', validTo: null, authorized: true },
    contentType: 'text/html',
    html,
    truncated: false,
    timings: { ttfbMs: 40, totalMs: 80 },
    bytes: { transferred: html.length, decoded: html.length },
    contentEncoding: null,
    httpRedirectsToHttps: true,
  };
}

function file(
  path: string,
  status: number | null,
  body = '',
  contentType = 'application/json',
): TextFileArtifact {
  return {
    url: `https://example.com${path}`,
    status,
    contentType: status === 200 ? contentType : null,
    body,
  };
}

function wellKnown(over: Partial<WellKnownArtifact> = {}): WellKnownArtifact {
  return {
    mcp: file('/.well-known/mcp.json', 404),
    agent: file('/.well-known/agent.json', 404),
    aiPlugin: file('/.well-known/ai-plugin.json', 404),
    securityTxt: file('/.well-known/security.txt', 404),
    openapi: file('/openapi.json', 404),
    ...over,
  };
}

function rendered(visibleText: string): RenderedArtifact {
  const viewport = {
    width: 1350,
    height: 940,
    scrollWidth: 1350,
    tapTargets: { total: 0, tooSmall: 0, examples: [] },
    smallTextRatio: 0,
    aboveFoldText: '',
    aboveFoldCtas: [],
  };
  return {
    finalUrl: URL_,
    html: `<html><body><p>${visibleText}</p></body></html>`,
    visibleText,
    title: 'Guide',
    consoleErrors: [],
    failedRequests: [],
    blockedRequests: [],
    desktop: viewport,
    mobile: { ...viewport, width: 375 },
    axe: null,
    timings: { loadMs: 500 },
  };
}

function fetches(
  baselineStatus: number | null,
  statuses: Record<string, number | null>,
  bytes = 5000,
): AgentFetchesArtifact {
  return {
    baselineStatus,
    fetches: Object.entries(statuses).map(([agent, status]) => ({
      agent,
      userAgent: `${agent}/1.0`,
      status,
      bytes: status === null ? null : bytes,
      ...(status === null ? { error: 'connection reset' } : {}),
    })),
  };
}

const words = (n: number, word = 'content') =>
  Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ');
// A 45-word answer-ready paragraph that opens with a direct statement and states figures.
const ANSWER =
  'A heat pump costs about £1,050 a year to run in a typical three-bedroom home, based on 12,000 kWh of heat demand and an efficiency of 3.2. That is about 15% less than a new gas boiler at 2024 prices, and the gap widens as gas prices rise.';

interface Case {
  check: string;
  name: string;
  artifacts: ArtifactSet;
  outcome: 'pass' | 'warn' | 'fail' | 'not_applicable' | 'error';
  message?: RegExp;
}

const cases: Case[] = [
  // structure
  {
    check: 'agent-content-without-js',
    name: 'server-rendered text passes without a render',
    artifacts: { Page: page(`<main><p>${words(150)}</p></main>`) },
    outcome: 'pass',
  },
  {
    check: 'agent-content-without-js',
    name: 'an empty app shell fails',
    artifacts: {
      Page: page('<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>'),
    },
    outcome: 'fail',
    message: /app shell/,
  },
  {
    check: 'agent-content-without-js',
    name: 'thin raw text warns',
    artifacts: { Page: page(`<p>${words(60)}</p>`) },
    outcome: 'warn',
  },
  {
    check: 'agent-content-without-js',
    name: 'text that only the render shows fails',
    artifacts: { Page: page(`<p>${words(20)}</p>`), Rendered: rendered(words(400)) },
    outcome: 'fail',
    message: /5% of the rendered text/,
  },
  {
    check: 'agent-content-without-js',
    name: 'raw HTML carrying the rendered text passes',
    artifacts: { Page: page(`<p>${words(300)}</p>`), Rendered: rendered(words(320)) },
    outcome: 'pass',
  },
  {
    check: 'agent-semantic-structure',
    name: 'landmarks and a clean outline pass',
    artifacts: {
      Page: page(
        '<header><nav>x</nav></header><main><h1>T</h1><h2>A</h2><p>a</p><h2>B</h2><p>b</p></main><footer>f</footer>',
      ),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-semantic-structure',
    name: 'a skipped level and no landmarks warn',
    artifacts: { Page: page('<main><h1>T</h1><h3>A</h3><p>a</p></main>') },
    outcome: 'warn',
    message: /skipped heading level/,
  },
  {
    check: 'agent-semantic-structure',
    name: 'div soup fails',
    artifacts: { Page: page('<div><div><span>text</span></div></div>') },
    outcome: 'fail',
  },
  {
    check: 'agent-lists-tables',
    name: 'short pages do not need lists',
    artifacts: { Page: page(`<p>${words(40)}</p>`) },
    outcome: 'not_applicable',
  },
  {
    check: 'agent-lists-tables',
    name: 'long prose without lists fails',
    artifacts: { Page: page(`<p>${words(200)}</p>`) },
    outcome: 'fail',
  },
  {
    check: 'agent-lists-tables',
    name: 'a list and a headed table pass',
    artifacts: {
      Page: page(
        `<p>${words(200)}</p><ul><li>a</li></ul><table><tr><th>k</th></tr><tr><td>v</td></tr></table>`,
      ),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-clean-dom',
    name: 'a lean page passes',
    artifacts: { Page: page(`<main><p>${words(300)}</p></main>`) },
    outcome: 'pass',
  },
  {
    check: 'agent-clean-dom',
    name: 'text buried under inline script fails',
    artifacts: { Page: page(`<script>${'var x=1;'.repeat(20000)}</script><p>${words(20)}</p>`) },
    outcome: 'fail',
  },
  // citability
  {
    check: 'agent-answer-passages',
    name: 'three answer-ready passages pass',
    artifacts: { Page: page(`<p>${ANSWER}</p><p>${ANSWER}</p><p>${ANSWER}</p>`) },
    outcome: 'pass',
  },
  {
    check: 'agent-answer-passages',
    name: 'one answer-ready passage warns',
    artifacts: { Page: page(`<p>${ANSWER}</p><p>Short note.</p>`) },
    outcome: 'warn',
  },
  {
    check: 'agent-answer-passages',
    name: 'back-references and warm-ups do not count',
    artifacts: {
      Page: page(
        `<p>This ${ANSWER}</p><p>In this article we will look at it. ${ANSWER}</p><p>Have you ever wondered? ${ANSWER}</p>`,
      ),
    },
    outcome: 'fail',
  },
  {
    check: 'agent-factual-density',
    name: 'figures and dates pass',
    artifacts: { Page: page(`<p>${ANSWER} ${ANSWER}</p>`) },
    outcome: 'pass',
  },
  {
    check: 'agent-factual-density',
    name: 'vague prose fails',
    artifacts: {
      Page: page(`<p>${'Our product is very good and many people like it a lot. '.repeat(10)}</p>`),
    },
    outcome: 'fail',
  },
  {
    check: 'agent-question-headings',
    name: 'question subheadings pass',
    artifacts: { Page: page('<h1>T</h1><h2>How much does it cost?</h2><p>a</p><h2>Why switch</h2><p>b</p>') },
    outcome: 'pass',
  },
  {
    check: 'agent-question-headings',
    name: 'statement subheadings warn',
    artifacts: { Page: page('<h1>T</h1><h2>Costs</h2><h2>Benefits</h2><h2>Installation</h2>') },
    outcome: 'warn',
  },
  {
    check: 'agent-question-headings',
    name: 'no subheadings fails',
    artifacts: { Page: page(`<h1>T</h1><p>${words(50)}</p>`) },
    outcome: 'fail',
  },
  {
    check: 'agent-authorship-dates',
    name: 'author and date pass',
    artifacts: {
      Page: page(
        '<p>By Jane <time datetime="2024-06-10">10 June</time></p>',
        '<meta name="author" content="Jane Smith">',
      ),
    },
    outcome: 'pass',
    message: /Jane Smith/,
  },
  {
    check: 'agent-authorship-dates',
    name: 'author from JSON-LD without a date warns',
    artifacts: {
      Page: page(
        '<p>x</p>',
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","author":{"@type":"Person","name":"Ada"}}</script>',
      ),
    },
    outcome: 'warn',
    message: /Ada but undated/,
  },
  {
    check: 'agent-authorship-dates',
    name: 'anonymous undated page fails',
    artifacts: { Page: page('<p>x</p>') },
    outcome: 'fail',
  },
  // discoverability
  {
    check: 'agent-robots-access',
    name: 'no robots.txt lets everyone in',
    artifacts: { Page: page('<p>x</p>'), RobotsTxt: file('/robots.txt', 404, '', 'text/plain') },
    outcome: 'pass',
  },
  {
    check: 'agent-robots-access',
    name: 'blocking only training crawlers passes',
    artifacts: {
      Page: page('<p>x</p>'),
      RobotsTxt: file(
        '/robots.txt',
        200,
        'User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n',
        'text/plain',
      ),
    },
    outcome: 'pass',
    message: /2 training crawlers blocked/,
  },
  {
    check: 'agent-robots-access',
    name: 'blocking one answer engine warns',
    artifacts: {
      Page: page('<p>x</p>'),
      RobotsTxt: file('/robots.txt', 200, 'User-agent: PerplexityBot\nDisallow: /\n', 'text/plain'),
    },
    outcome: 'warn',
    message: /PerplexityBot/,
  },
  {
    check: 'agent-robots-access',
    name: 'disallowing everyone fails',
    artifacts: {
      Page: page('<p>x</p>'),
      RobotsTxt: file('/robots.txt', 200, 'User-agent: *\nDisallow: /\n', 'text/plain'),
    },
    outcome: 'fail',
  },
  {
    check: 'agent-robots-access',
    name: 'an erroring robots.txt means disallow all',
    artifacts: { Page: page('<p>x</p>'), RobotsTxt: file('/robots.txt', 503, '', 'text/plain') },
    outcome: 'fail',
    message: /unreachable/,
  },
  {
    check: 'agent-firewall-access',
    name: 'agents served like the baseline pass',
    artifacts: { AgentFetches: fetches(200, { GPTBot: 200, ClaudeBot: 200, PerplexityBot: 200 }) },
    outcome: 'pass',
  },
  {
    check: 'agent-firewall-access',
    name: 'one agent refused warns',
    artifacts: { AgentFetches: fetches(200, { GPTBot: 403, ClaudeBot: 200, PerplexityBot: 200 }) },
    outcome: 'warn',
    message: /GPTBot \(403\)/,
  },
  {
    check: 'agent-firewall-access',
    name: 'every agent refused fails',
    artifacts: { AgentFetches: fetches(200, { GPTBot: 403, ClaudeBot: 429, PerplexityBot: null }) },
    outcome: 'fail',
  },
  {
    check: 'agent-firewall-access',
    name: 'a challenge page counts as refused',
    artifacts: {
      AgentFetches: {
        baselineStatus: 200,
        fetches: [
          { agent: 'ClaudeBot', userAgent: 'ClaudeBot', status: 200, bytes: 8000 },
          { agent: 'CCBot', userAgent: 'CCBot', status: 200, bytes: 300 },
        ],
      },
    },
    outcome: 'warn',
    message: /CCBot \(challenge page\)/,
  },
  {
    check: 'agent-firewall-access',
    name: 'a page that is down for everyone cannot be judged',
    artifacts: { AgentFetches: fetches(500, { GPTBot: 500 }) },
    outcome: 'not_applicable',
  },
  // agent interface
  {
    check: 'agent-openapi',
    name: 'an OpenAPI JSON document passes',
    artifacts: {
      WellKnown: wellKnown({
        openapi: file('/openapi.json', 200, '{"openapi":"3.1.0","paths":{"/a":{},"/b":{}}}'),
      }),
    },
    outcome: 'pass',
    message: /OpenAPI 3\.1\.0 description with 2 paths/,
  },
  {
    check: 'agent-openapi',
    name: 'an OpenAPI YAML document passes',
    artifacts: {
      WellKnown: wellKnown({
        openapi: file('/openapi.json', 200, 'openapi: 3.0.3\ninfo:\n  title: x\npaths:\n  /a: {}\n'),
      }),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-openapi',
    name: 'broken JSON fails',
    artifacts: { WellKnown: wellKnown({ openapi: file('/openapi.json', 200, '{"openapi": "3.1.0",') }) },
    outcome: 'fail',
    message: /not valid JSON/,
  },
  {
    check: 'agent-openapi',
    name: 'a soft 404 counts as missing',
    artifacts: {
      WellKnown: wellKnown({ openapi: file('/openapi.json', 200, '<!doctype html><p>Not found</p>') }),
    },
    outcome: 'fail',
    message: /HTML page/,
  },
  {
    check: 'agent-openapi',
    name: 'absent fails',
    artifacts: { WellKnown: wellKnown() },
    outcome: 'fail',
    message: /404/,
  },
  {
    check: 'agent-mcp-manifest',
    name: 'a manifest naming its endpoint passes',
    artifacts: {
      WellKnown: wellKnown({
        mcp: file('/.well-known/mcp.json', 200, '{"name":"shop","endpoint":"https://example.com/mcp"}'),
      }),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-mcp-manifest',
    name: 'a servers list is understood',
    artifacts: {
      WellKnown: wellKnown({
        mcp: file('/.well-known/mcp.json', 200, '{"servers":[{"name":"a","url":"https://example.com/mcp"}]}'),
      }),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-mcp-manifest',
    name: 'a manifest without an endpoint warns',
    artifacts: { WellKnown: wellKnown({ mcp: file('/.well-known/mcp.json', 200, '{"name":"shop"}') }) },
    outcome: 'warn',
  },
  {
    check: 'agent-mcp-manifest',
    name: 'absent fails',
    artifacts: { WellKnown: wellKnown() },
    outcome: 'fail',
  },
  {
    check: 'agent-card',
    name: 'a complete agent card passes',
    artifacts: {
      WellKnown: wellKnown({
        agent: file(
          '/.well-known/agent.json',
          200,
          '{"name":"Shop","url":"https://example.com/a2a","skills":[{"id":"order"}]}',
        ),
      }),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-card',
    name: 'a card without an endpoint warns',
    artifacts: {
      WellKnown: wellKnown({ agent: file('/.well-known/agent.json', 200, '{"name":"Shop","skills":[]}') }),
    },
    outcome: 'warn',
    message: /an endpoint URL/,
  },
  {
    check: 'agent-ai-plugin',
    name: 'a complete plugin manifest passes',
    artifacts: {
      WellKnown: wellKnown({
        aiPlugin: file(
          '/.well-known/ai-plugin.json',
          200,
          '{"schema_version":"v1","name_for_model":"shop","description_for_model":"Buy things","api":{"type":"openapi","url":"https://example.com/openapi.json"}}',
        ),
      }),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-ai-plugin',
    name: 'a manifest without api.url warns',
    artifacts: {
      WellKnown: wellKnown({
        aiPlugin: file('/.well-known/ai-plugin.json', 200, '{"name_for_model":"shop"}'),
      }),
    },
    outcome: 'warn',
  },
  {
    check: 'agent-api-docs-link',
    name: 'a service-desc link passes',
    artifacts: { Page: page('<p>x</p>', '<link rel="service-desc" href="/openapi.json">') },
    outcome: 'pass',
  },
  {
    check: 'agent-api-docs-link',
    name: 'a link to developer docs passes',
    artifacts: { Page: page('<a href="/developers/">Build with us</a>') },
    outcome: 'pass',
  },
  {
    check: 'agent-api-docs-link',
    name: 'no API link fails',
    artifacts: { Page: page('<a href="/about">About</a><a href="#">API</a>') },
    outcome: 'fail',
  },
  // transactability
  {
    check: 'agent-offer-markup',
    name: 'a complete offer passes',
    artifacts: {
      Page: page(
        '<p>£99</p>',
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Kit","offers":{"@type":"Offer","price":"99.00","priceCurrency":"GBP","availability":"https://schema.org/InStock"}}</script>',
      ),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-offer-markup',
    name: 'an offer without availability warns',
    artifacts: {
      Page: page(
        '<p>£99</p>',
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Offer","price":"99","priceCurrency":"GBP"}</script>',
      ),
    },
    outcome: 'warn',
  },
  {
    check: 'agent-offer-markup',
    name: 'visible prices without markup fail',
    artifacts: { Page: page('<p>Plans from £29 a month</p>') },
    outcome: 'fail',
    message: /Prices are shown but not marked up/,
  },
  {
    check: 'agent-commerce-links',
    name: 'a pricing link passes',
    artifacts: { Page: page('<a href="/pricing">See plans</a>') },
    outcome: 'pass',
  },
  {
    check: 'agent-commerce-links',
    name: 'a script-only button does not count',
    artifacts: {
      Page: page(
        '<a href="#">Buy now</a><a href="javascript:void(0)">Checkout</a><a href="/about">About</a>',
      ),
    },
    outcome: 'fail',
  },
  {
    check: 'agent-form-actions',
    name: 'no forms is not applicable',
    artifacts: { Page: page('<p>x</p>') },
    outcome: 'not_applicable',
  },
  {
    check: 'agent-form-actions',
    name: 'a labelled form with an action passes',
    artifacts: {
      Page: page(
        '<form action="/signup" method="post"><label for="e">Email</label><input id="e" name="email" type="email"><button type="submit">Create account</button></form>',
      ),
    },
    outcome: 'pass',
  },
  {
    check: 'agent-form-actions',
    name: 'a script-only unlabelled form fails',
    artifacts: { Page: page('<form><input name="q"><div onclick="go()">Go</div></form>') },
    outcome: 'fail',
  },
];

describe('agent readability checks (B)', () => {
  for (const c of cases) {
    it(`${c.check}: ${c.name}`, () => {
      const check = checksById.get(c.check);
      assert.ok(check, `check ${c.check} is registered`);
      const r = runCheck(check, c.artifacts);
      assert.equal(r.outcome, c.outcome, `${c.check} said: ${r.message}`);
      if (c.message) assert.match(r.message, c.message);
      if (r.outcome === 'pass') assert.ok(r.score >= 0.9, `pass scores at least 0.9, got ${r.score}`);
      if (r.outcome === 'fail') assert.ok(r.score < 0.5, `fail scores below 0.5, got ${r.score}`);
    });
  }

  it('every agent check has at least one case', () => {
    const covered = new Set(cases.map((c) => c.check));
    const agentIds = [...checksById.keys()].filter((id) => id.startsWith('agent-'));
    assert.deepEqual(
      agentIds.filter((id) => !covered.has(id)),
      [],
    );
  });
});

describe('agent-form-actions fields and submit buttons', () => {
  it('finds what the selectors find: type compared case-insensitively, the first submit button', () => {
    const html = `<form action="/a"><input type="HIDDEN" name="h"><input type="Submit" value="Send it"><input name="plain"><input type="Image" alt="Go"><select></select><textarea></textarea><input type="reset"><input type="BUTTON"><input type="email" aria-label="Email"></form>
<form><button type="Button">Not this</button><button type="RESET">nor this</button><span><button>Real <b>submit</b></button></span><input type="submit" value="later"></form>
<form action="/c"><input type="IMAGE" alt="Pic"><label>Name <input name="n"></label></form>`;
    const check = checksById.get('agent-form-actions');
    assert.ok(check);
    const run = runCheck(check, { Page: page(html) });
    assert.ok('evidence' in run);
    const forms = (run.evidence as { forms: unknown[] }).forms;
    assert.deepEqual(
      forms.map((f) => {
        const { submit, fields, labelShare } = f as { submit: string; fields: number; labelShare: number };
        return { submit, fields, labelShare };
      }),
      [
        { submit: 'Send it', fields: 4, labelShare: 0.25 },
        { submit: 'Real submit', fields: 0, labelShare: 1 },
        { submit: 'Pic', fields: 1, labelShare: 1 },
      ],
    );
  });
});
