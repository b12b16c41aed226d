import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citabilityModel } from '../../../../shared/geo-scoring/models/citability.ts';
import { geoModel } from '../../../../shared/geo-scoring/models/geo.ts';
import { llmsTxtQualityModel } from '../../../../shared/geo-scoring/models/llms-txt-quality.ts';
import type {
  ArtifactSet,
  PageArtifact,
  TextFileArtifact,
} from '../../../../shared/scan-engine/artifacts.ts';
import { allChecks, checksById } from '../../../../shared/scan-engine/checks/index.ts';
import { agentReadabilityModel } from '../../../../shared/scan-engine/models/agent-readability.ts';
import { models } from '../../../../shared/scan-engine/models/index.ts';
import { parseLlmsTxt } from '../../../../shared/scan-engine/parsers/llms-txt.ts';
import { scoreArtifacts } from '../../../../shared/scan-engine/score.ts';

describe('agent-readability model data', () => {
  it('has exactly the five interface dimensions and weights, version 2.0.1', () => {
    assert.equal(agentReadabilityModel.id, 'agent-readability');
    assert.equal(agentReadabilityModel.version, '2.0.1');
    assert.deepEqual(
      agentReadabilityModel.dimensions.map((d) => [d.id, d.weight]),
      [
        ['structure', 0.25],
        ['citability', 0.25],
        ['discoverability', 0.15],
        ['agent_interface', 0.2],
        ['transactability', 0.15],
      ],
    );
    assert.deepEqual(agentReadabilityModel.researchSignals, [
      { id: 'agent_correlation', name: 'Agent Correlation' },
    ]);
    assert.deepEqual(
      agentReadabilityModel.grades.map((g) => g.grade),
      ['A', 'B', 'C', 'D', 'F'],
    );
  });

  for (const model of [agentReadabilityModel, geoModel, citabilityModel, llmsTxtQualityModel]) {
    it(`${model.id}: weights sum to 1, checks exist and appear once`, () => {
      const dimTotal = model.dimensions.reduce((s, d) => s + d.weight, 0);
      assert.ok(Math.abs(dimTotal - 1) < 1e-9, `dimension weights sum to ${dimTotal}`);
      for (const d of model.dimensions) {
        const total = d.checks.reduce((s, c) => s + c.weight, 0);
        assert.ok(Math.abs(total - 1) < 1e-9, `${d.id} check weights sum to ${total}`);
        const ids = d.checks.map((c) => c.id);
        assert.equal(new Set(ids).size, ids.length, `${d.id} lists a check twice`);
        for (const id of ids)
          assert.ok(checksById.has(id), `${model.id}/${d.id} references unknown check ${id}`);
      }
      assert.equal(models[model.id], model, `${model.id} is registered in models/index.ts`);
    });
  }

  it('check ids are unique across the registry and equal their file names', () => {
    const ids = allChecks.map((c) => c.meta.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids.filter((i) => /^(agent|geo|citability|llms-txt)-/.test(i))) {
      assert.match(id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    }
  });

  it('a missing llms.txt gates its quality score to 0, a malformed one to 40', () => {
    const present = llmsTxtQualityModel.dimensions[0]?.checks.find((c) => c.id === 'llms-txt-present');
    const structure = llmsTxtQualityModel.dimensions[0]?.checks.find((c) => c.id === 'llms-txt-structure');
    assert.deepEqual(present?.gate, { cap: 0 });
    assert.deepEqual(structure?.gate, { cap: 40 });
  });
});

// Fixture sites: one built for agents, one that shuts them out.

const SITE = 'https://shop.example.com';

function page(html: string): PageArtifact {
  return {
    requestedUrl: `${SITE}/`,
    finalUrl: `${SITE}/`,
    redirectChain: [],
    status: 200,
    headers: { 'content-type': 'text/html', 'strict-transport-security': 'max-age=63072000' },
    setCookies: [],
    tls: { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', validTo: null, authorized: true },
    contentType: 'text/html',
    html,
    truncated: false,
    timings: { ttfbMs: 60, totalMs: 120 },
    bytes: { transferred: html.length, decoded: html.length },
    contentEncoding: null,
    httpRedirectsToHttps: true,
  };
}

const file = (path: string, status: number, body = ''): TextFileArtifact => ({
  url: `${SITE}${path}`,
  status,
  contentType: status === 200 ? 'application/json' : null,
  body,
});

const PARA = (n: number) =>
  `The Trail ${n} tent weighs 1.4 kg and sleeps two adults, with a 3,000 mm hydrostatic head rated for storms up to 80 km/h. It pitches in 4 minutes, packs to 42 by 15 cm and costs £249, which is £60 less than the 2023 model it replaces in our range.`;

const AGENT_READY = page(`<!doctype html><html lang="en"><head><title>Trail tents</title>
<meta name="author" content="Sam Lee"><meta property="article:published_time" content="2024-04-02">
<link rel="service-desc" href="/openapi.json">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail 2","offers":{"@type":"Offer","price":"249.00","priceCurrency":"GBP","availability":"https://schema.org/InStock"}}</script>
</head><body><header><nav><a href="/">Home</a><a href="/pricing">Pricing</a><a href="/cart">Cart</a><a href="/developers">API</a></nav></header>
<main><h1>Trail tents</h1>
<h2>How heavy is the Trail 2?</h2><p>${PARA(2)}</p>
<h2>Which tent suits winter camping?</h2><p>${PARA(3)}</p>
<h2>What does delivery cost?</h2><p>${PARA(4)}</p>
<ul><li>Free returns within 30 days</li><li>2-year warranty</li></ul>
<table><tr><th>Model</th><th>Weight</th></tr><tr><td>Trail 2</td><td>1.4 kg</td></tr></table>
<form action="/cart/add" method="post"><label for="qty">Quantity</label><input id="qty" name="qty" type="number"><button type="submit">Add to basket</button></form>
</main><footer>Shop Example Ltd</footer></body></html>`);

const LLMS = `# Shop Example\n\n> Outdoor gear shop: tents, packs and stoves with UK delivery.\n\n## Products\n\n- [Tents](${SITE}/tents.md): range and specs\n- [Stoves](${SITE}/stoves.md): fuel types\n\n## Help\n\n- [Delivery](${SITE}/delivery.md): costs and times\n`;

function agentReady(): ArtifactSet {
  return {
    Page: AGENT_READY,
    RobotsTxt: {
      url: `${SITE}/robots.txt`,
      status: 200,
      contentType: 'text/plain',
      body: 'User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: PerplexityBot\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /checkout/\n',
    },
    LlmsTxt: {
      url: `${SITE}/llms.txt`,
      status: 200,
      contentType: 'text/plain',
      body: LLMS,
      parsed: parseLlmsTxt(LLMS),
      fullUrl: null,
    },
    Sitemap: {
      sources: [`${SITE}/sitemap.xml`],
      found: true,
      urls: [`${SITE}/`],
      urlCount: 40,
      lastmods: [],
      errors: [],
    },
    WellKnown: {
      mcp: file('/.well-known/mcp.json', 200, `{"name":"shop","endpoint":"${SITE}/mcp"}`),
      agent: file(
        '/.well-known/agent.json',
        200,
        `{"name":"Shop","url":"${SITE}/a2a","skills":[{"id":"order"}]}`,
      ),
      aiPlugin: file(
        '/.well-known/ai-plugin.json',
        200,
        `{"name_for_model":"shop","description_for_model":"Search and buy outdoor gear","api":{"url":"${SITE}/openapi.json"}}`,
      ),
      securityTxt: file('/.well-known/security.txt', 404),
      openapi: file('/openapi.json', 200, '{"openapi":"3.1.0","paths":{"/products":{},"/cart":{}}}'),
    },
    AgentFetches: {
      baselineStatus: 200,
      fetches: ['GPTBot', 'ClaudeBot', 'PerplexityBot'].map((agent) => ({
        agent,
        userAgent: agent,
        status: 200,
        bytes: 9000,
      })),
    },
  };
}

function shutOut(): ArtifactSet {
  return {
    Page: page(
      '<!doctype html><html><head><title>App</title><script src="/main.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>',
    ),
    RobotsTxt: {
      url: `${SITE}/robots.txt`,
      status: 200,
      contentType: 'text/plain',
      body: 'User-agent: *\nDisallow: /\n',
    },
    LlmsTxt: {
      url: `${SITE}/llms.txt`,
      status: 404,
      contentType: null,
      body: '',
      parsed: null,
      fullUrl: null,
    },
    Sitemap: { sources: [], found: false, urls: [], urlCount: 0, lastmods: [], errors: [] },
    WellKnown: {
      mcp: file('/.well-known/mcp.json', 404),
      agent: file('/.well-known/agent.json', 404),
      aiPlugin: file('/.well-known/ai-plugin.json', 404),
      securityTxt: file('/.well-known/security.txt', 404),
      openapi: file('/openapi.json', 404),
    },
    AgentFetches: {
      baselineStatus: 200,
      fetches: ['GPTBot', 'ClaudeBot', 'PerplexityBot'].map((agent) => ({
        agent,
        userAgent: agent,
        status: 403,
        bytes: 12,
      })),
    },
  };
}

describe('agent-readability scores on fixture sites', () => {
  it('a site built for agents scores high in every dimension', () => {
    const r = scoreArtifacts(agentReady(), ['agent-readability'])['agent-readability'];
    assert.ok(r);
    const dims = Object.fromEntries(r.dimensions.map((d) => [d.id, d.score]));
    assert.ok(r.overallScore >= 85, `overall ${r.overallScore}: ${JSON.stringify(dims)}`);
    assert.match(r.grade, /^[AB]$/);
    for (const d of r.dimensions)
      assert.ok((d.score ?? 0) >= 70, `${d.id} ${d.score}: ${d.issues.join(' | ')}`);
    assert.equal(r.modelVersion, '2.0.1');
  });

  it('an app shell behind a bot wall scores low', () => {
    const r = scoreArtifacts(shutOut(), ['agent-readability'])['agent-readability'];
    assert.ok(r);
    const dims = Object.fromEntries(r.dimensions.map((d) => [d.id, d.score]));
    assert.ok(r.overallScore <= 25, `overall ${r.overallScore}: ${JSON.stringify(dims)}`);
    assert.equal(r.grade, 'F');
    assert.ok((dims.discoverability ?? 100) <= 10, `discoverability ${dims.discoverability}`);
    assert.equal(dims.agent_interface, 0);
  });

  it('quick mode (no render) and a failed gatherer still score, without throwing', () => {
    const set = agentReady();
    set.WellKnown = { error: { message: 'timeout' } };
    const r = scoreArtifacts(set, ['agent-readability'])['agent-readability'];
    assert.ok(r);
    const agentInterface = r.dimensions.find((d) => d.id === 'agent_interface');
    // Only the page-based API-docs check remains applicable.
    assert.equal(agentInterface?.checks.filter((c) => c.outcome === 'error').length, 4);
    assert.equal(agentInterface?.score, 100);
  });
});
