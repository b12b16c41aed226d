import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENTS, findAgent } from '../../../shared/agent-catalogue/catalogue.ts';
import { classifyUserAgent } from '../../../shared/agent-catalogue/classify.ts';

describe('agent catalogue', () => {
  it('has one entry per token and alias', () => {
    const spellings = AGENTS.flatMap((a) => [a.token, ...a.aliases].map((s) => s.toLowerCase()));
    assert.equal(new Set(spellings).size, spellings.length);
  });

  it('gives every entry a purpose, an operator and a platform', () => {
    for (const a of AGENTS) {
      assert.ok(['training', 'search', 'browse'].includes(a.purpose), a.token);
      assert.ok(a.operator.length > 0 && a.platform.length > 0, a.token);
      assert.equal(
        a.platform === 'Other',
        a.operator === 'Unknown',
        `${a.token}: Other only for unknown operators`,
      );
    }
  });

  it('covers the major platforms the statistics group by', () => {
    const platforms = new Set(AGENTS.filter((a) => a.ai).map((a) => a.platform));
    for (const p of [
      'OpenAI',
      'Anthropic',
      'Perplexity',
      'Google',
      'Apple',
      'Meta',
      'Microsoft',
      'ByteDance',
      'Common Crawl',
      'Amazon',
    ]) {
      assert.ok(platforms.has(p), p);
    }
  });

  it('finds agents by any spelling, case-insensitively', () => {
    assert.equal(findAgent('gptbot')?.token, 'GPTBot');
    assert.equal(findAgent('Meta-ExternalAgent')?.token, 'meta-externalagent');
    assert.equal(findAgent('iaskspider/2.0')?.token, 'iaskspider');
    assert.equal(findAgent('NoSuchBot'), undefined);
  });
});

describe('classifyUserAgent', () => {
  const cases: [
    string,
    string,
    { isBot: boolean; isAi: boolean; agent?: string; platform?: string | null; type?: string | null },
  ][] = [
    [
      'GPTBot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)',
      { isBot: true, isAi: true, agent: 'GPTBot', platform: 'OpenAI', type: 'training' },
    ],
    [
      'ChatGPT-User wins over the OpenAI URL in the same string',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
      { isBot: true, isAi: true, agent: 'ChatGPT-User', platform: 'OpenAI', type: 'browse' },
    ],
    [
      'OAI-SearchBot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
      { isBot: true, isAi: true, agent: 'OAI-SearchBot', type: 'search' },
    ],
    [
      'ClaudeBot',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
      { isBot: true, isAi: true, agent: 'ClaudeBot', platform: 'Anthropic', type: 'training' },
    ],
    [
      'Perplexity-User',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
      { isBot: true, isAi: true, agent: 'Perplexity-User', platform: 'Perplexity', type: 'browse' },
    ],
    [
      'GoogleOther-Image beats GoogleOther',
      'GoogleOther-Image/1.0',
      { isBot: true, isAi: true, agent: 'GoogleOther-Image', platform: 'Google' },
    ],
    [
      'Applebot',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
      { isBot: true, isAi: true, agent: 'Applebot', platform: 'Apple', type: 'search' },
    ],
    [
      'CCBot',
      'CCBot/2.0 (https://commoncrawl.org/faq/)',
      { isBot: true, isAi: true, platform: 'Common Crawl' },
    ],
    [
      'Bytespider',
      'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
      { isBot: true, isAi: true, platform: 'ByteDance' },
    ],
    [
      'Googlebot is a bot but not an AI agent',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      { isBot: true, isAi: false, agent: 'Googlebot', platform: 'Google', type: 'search' },
    ],
    [
      'bingbot likewise',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      { isBot: true, isAi: false, platform: 'Microsoft' },
    ],
    [
      'an unknown crawler is a bot without an agent',
      'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
      { isBot: true, isAi: false, agent: undefined, platform: null, type: null },
    ],
    ['curl', 'curl/8.5.0', { isBot: true, isAi: false }],
    ['python-requests', 'python-requests/2.31.0', { isBot: true, isAi: false }],
    ['an unknown AI fetcher says so', 'AcmeAI-Bot/0.3', { isBot: true, isAi: true, agent: undefined }],
    [
      'Chrome on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      { isBot: false, isAi: false, platform: null, type: null },
    ],
    [
      'Safari on iPhone',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      { isBot: false, isAi: false },
    ],
    [
      'a Cubot phone is not a bot',
      'Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0 Mobile Safari/537.36',
      { isBot: false, isAi: false },
    ],
    [
      'a generic word in a browser string is not an agent',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; Unknown Operator) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
      { isBot: false, isAi: false },
    ],
    ['empty', '', { isBot: true, isAi: false }],
  ];
  for (const [name, ua, expected] of cases) {
    it(name, () => {
      const r = classifyUserAgent(ua);
      for (const [k, v] of Object.entries(expected)) {
        assert.equal(r[k as keyof typeof r], v, `${k} of ${ua}`);
      }
      assert.ok(r.confidence > 0 && r.confidence <= 1);
    });
  }

  it('is surer of a named agent than of a generic guess', () => {
    assert.ok(classifyUserAgent('GPTBot/1.1').confidence > classifyUserAgent('AcmeAI-Bot/0.3').confidence);
  });
});
