import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy } from '../../../../shared/net/url-policy.ts';
import { BROWSER_USER_AGENT, SIGHTLINE_USER_AGENT } from '../../../../shared/net/user-agent.ts';
import { AI_AGENTS, gatherAgentFetches } from '../../../../shared/scan-engine/gatherers/agent-fetches.ts';
import type { GatherContext } from '../../../../shared/scan-engine/gatherers/types.ts';
import { type FixtureServer, startFixtureServer } from '../../../helpers/fixture-server.ts';

describe('AgentFetches gatherer', () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer({
      routes: {
        // A bot firewall: OpenAI's crawlers get a 403, CCBot a tiny challenge page.
        '/': (q, r) => {
          const ua = q.headers['user-agent'] ?? '';
          if (/GPTBot|OAI-SearchBot/.test(ua)) return r.writeHead(403).end('Forbidden');
          if (/CCBot/.test(ua))
            return r.writeHead(200, { 'content-type': 'text/html' }).end('<p>challenge</p>');
          r.writeHead(200, { 'content-type': 'text/html' }).end(
            `<!doctype html><p>${'content '.repeat(500)}</p>`,
          );
        },
      },
    });
  });
  after(() => site.close());

  const ctx = (allow: string): GatherContext => ({
    url: new URL(site.url),
    policy: createUrlPolicy(allow),
    signal: AbortSignal.timeout(20_000),
    userAgent: SIGHTLINE_USER_AGENT,
  });

  it('fetches the page once per AI agent plus a browser baseline, with real user agents', async () => {
    const result = await gatherAgentFetches(ctx(`127.0.0.1:${site.port}`), new URL(site.url));
    assert.equal(result.baselineStatus, 200);
    const status = Object.fromEntries(result.fetches.map((f) => [f.agent, f.status]));
    assert.deepEqual(status, {
      GPTBot: 403,
      'ChatGPT-User': 200,
      'OAI-SearchBot': 403,
      ClaudeBot: 200,
      PerplexityBot: 200,
      CCBot: 200,
    });
    const bytes = Object.fromEntries(result.fetches.map((f) => [f.agent, f.bytes]));
    assert.ok((bytes.ClaudeBot ?? 0) > 1000);
    assert.equal(bytes.CCBot, '<p>challenge</p>'.length);
    const sent = site.hits.map((h) => h.headers['user-agent']);
    assert.ok(sent.includes(BROWSER_USER_AGENT));
    for (const a of AI_AGENTS) {
      assert.ok(sent.includes(a.userAgent), a.agent);
      assert.ok(a.userAgent.includes(a.agent), `${a.agent}'s user agent names it`);
    }
  });

  it('records fetch failures per agent rather than throwing', async () => {
    const result = await gatherAgentFetches(ctx(''), new URL(site.url));
    assert.equal(result.baselineStatus, null);
    assert.equal(result.fetches.length, AI_AGENTS.length);
    for (const f of result.fetches) {
      assert.equal(f.status, null);
      assert.match(f.error ?? '', /^url_not_allowed/);
    }
  });
});

describe('challenge pages against the browser baseline', () => {
  it('an agent served a fraction of the baseline page counts as refused', async () => {
    const { assessCrawlerAccess } = await import('../../../../shared/geo-scoring/crawler-access.ts');
    const fetches = {
      baselineStatus: 200,
      baselineBytes: 50_000,
      // every agent gets the same small challenge page: only the baseline size reveals it
      fetches: ['GPTBot', 'ClaudeBot'].map((agent) => ({
        agent,
        userAgent: agent,
        status: 200,
        bytes: 3_000,
      })),
    };
    const access = assessCrawlerAccess(
      { url: 'https://a.test/robots.txt', status: 404, contentType: null, body: '' },
      'https://a.test/',
      fetches,
    );
    const gpt = access.agents.find((a) => a.token === 'GPTBot');
    assert.equal(gpt?.firewall, 'blocked');
    // without the baseline size, identical small answers to every agent look like the real page
    const legacy = assessCrawlerAccess(
      { url: 'https://a.test/robots.txt', status: 404, contentType: null, body: '' },
      'https://a.test/',
      { ...fetches, baselineBytes: undefined },
    );
    assert.equal(legacy.agents.find((a) => a.token === 'GPTBot')?.firewall, 'ok');
  });
});
