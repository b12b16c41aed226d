import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyVisit } from '../../../shared/agent-catalogue/classify-visit.ts';
import { detectFormat, HEADER, parserFor } from '../../../shared/agent-traffic/log-formats.ts';
import { aiReferral } from '../../../shared/agent-traffic/referrals.ts';

// Log-line parsers of `sightline logs import`, format detection, AI referrals and the visit
// classifier's rule for desktop apps.

const UA = 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)';

describe('log formats', () => {
  it('combined and common, with escaped quotes, absolute-form targets and time zones', () => {
    const p = parserFor('combined');
    const r = p(
      `203.0.113.5 - bob [10/Oct/2024:13:55:36 -0700] "GET https://example.com/a?b=1 HTTP/1.1" 404 2326 "https://chatgpt.com/" "${UA} \\"x\\""`,
    )!;
    assert.equal(r.time.toISOString(), '2024-10-10T20:55:36.000Z');
    assert.equal(r.path, '/a?b=1');
    assert.equal(r.status, 404);
    assert.equal(r.ip, '203.0.113.5');
    assert.equal(r.referer, 'https://chatgpt.com/');
    assert.equal(r.userAgent, `${UA} "x"`);
    assert.equal(
      p('127.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET / HTTP/1.1" 200 1'),
      null,
      'combined needs the user agent',
    );
    const c = parserFor('common')('::1 - - [10/Oct/2024:13:55:36 +0000] "HEAD /x HTTP/1.0" 200 -')!;
    assert.equal(c.ip, '::1');
    assert.equal(c.method, 'HEAD');
    assert.equal(c.userAgent, '');
    assert.equal(p('not a log line'), null);
  });

  it('json: nginx-style fields and Caddy access logs', () => {
    const p = parserFor('json');
    const n = p(
      JSON.stringify({
        time_iso8601: '2024-10-10T13:55:36+00:00',
        remote_addr: '198.51.100.2',
        request: 'GET /x?y HTTP/2.0',
        status: '200',
        http_user_agent: UA,
      }),
    )!;
    assert.equal(n.path, '/x?y');
    assert.equal(n.status, 200);
    const caddy = p(
      JSON.stringify({
        ts: 1728568536.5,
        status: 301,
        request: {
          remote_ip: '198.51.100.3',
          method: 'GET',
          uri: '/c',
          headers: { 'User-Agent': [UA], Referer: ['https://perplexity.ai/'] },
        },
      }),
    )!;
    assert.equal(caddy.time.toISOString(), '2024-10-10T13:55:36.500Z');
    assert.equal(caddy.userAgent, UA);
    assert.equal(caddy.referer, 'https://perplexity.ai/');
    assert.equal(p('{"no": "request"}'), null);
  });

  it('cloudfront: honours #Fields and decodes the user agent', () => {
    const p = parserFor('cloudfront');
    assert.equal(p('#Version: 1.0'), HEADER);
    assert.equal(
      p('#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent) cs-uri-query cs(Referer)'),
      HEADER,
    );
    const r = p(
      [
        '2024-10-10',
        '13:55:36',
        '198.51.100.4',
        'GET',
        '/p',
        '200',
        'Mozilla/5.0%2520(compatible;%2520GPTBot/1.2)',
        'a=1',
        '-',
      ].join('\t'),
    )!;
    assert.equal(r.userAgent, 'Mozilla/5.0 (compatible; GPTBot/1.2)');
    assert.equal(r.path, '/p?a=1');
    assert.equal(r.ip, '198.51.100.4');
  });

  it('alb, cloudflare and vercel', () => {
    const alb = parserFor('alb')(
      `https 2024-10-10T13:55:36.123456Z app/lb/1 198.51.100.5:4321 10.0.0.1:80 0.0 0.0 0.0 200 200 1 2 "GET https://example.com:443/q HTTP/1.1" "${UA}" ECDHE TLSv1.2 arn`,
    )!;
    assert.equal(alb.ip, '198.51.100.5');
    assert.equal(alb.path, '/q');
    const cf = parserFor('cloudflare')(
      JSON.stringify({
        ClientIP: '2001:db8::1',
        ClientRequestMethod: 'GET',
        ClientRequestURI: '/r',
        ClientRequestUserAgent: UA,
        EdgeResponseStatus: 403,
        EdgeStartTimestamp: 1728568536000000000,
      }),
    )!;
    assert.equal(cf.time.toISOString(), '2024-10-10T13:55:36.000Z');
    assert.equal(cf.status, 403);
    const v = parserFor('vercel')(
      JSON.stringify({
        timestamp: 1728568536000,
        proxy: { method: 'GET', path: '/v', statusCode: 200, clientIp: '198.51.100.6', userAgent: [UA] },
      }),
    )!;
    assert.equal(v.path, '/v');
    assert.equal(v.userAgent, UA);
  });

  it('detects the format from the first lines', () => {
    assert.equal(
      detectFormat([`1.2.3.4 - - [10/Oct/2024:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "${UA}"`]),
      'combined',
    );
    assert.equal(detectFormat(['1.2.3.4 - - [10/Oct/2024:13:55:36 +0000] "GET / HTTP/1.1" 200 1']), 'common');
    assert.equal(detectFormat(['#Version: 1.0', '#Fields: date time']), 'cloudfront');
    assert.equal(detectFormat(['{"ClientIP":"1.2.3.4"}']), 'cloudflare');
    assert.equal(detectFormat(['{"proxy":{}}']), 'vercel');
    assert.equal(detectFormat(['{"remote_addr":"1.2.3.4"}']), 'json');
    assert.equal(detectFormat(['hello world']), null);
  });
});

describe('AI referrals and visit classification', () => {
  it('counts answer-engine referrers and utm_source, nothing else', () => {
    assert.deepEqual(aiReferral('https://chatgpt.com/c/123', '/'), {
      platform: 'OpenAI',
      host: 'chatgpt.com',
    });
    assert.equal(aiReferral('https://www.perplexity.ai/search?q=x', '/')?.platform, 'Perplexity');
    assert.equal(aiReferral('https://gemini.google.com/app', '/')?.platform, 'Google');
    assert.equal(aiReferral('https://claude.ai/chat', '/')?.platform, 'Anthropic');
    assert.equal(aiReferral('https://copilot.microsoft.com/', '/')?.platform, 'Microsoft');
    assert.equal(aiReferral(null, '/a?utm_source=chatgpt.com')?.platform, 'OpenAI');
    assert.equal(aiReferral('https://www.google.com/', '/'), null);
    assert.equal(aiReferral('https://notchatgpt.com.evil.test/', '/'), null);
    assert.equal(aiReferral('-', '/'), null);
  });

  it('desktop apps on Electron are people; real agents stay agents', () => {
    const vscode =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.95.0 Chrome/128.0.6613.186 Electron/32.2.1 Safari/537.36';
    assert.equal(classifyVisit(vscode).isAi, false);
    assert.equal(classifyVisit(vscode).isBot, false);
    assert.equal(classifyVisit(UA).agent, 'GPTBot');
  });
});
