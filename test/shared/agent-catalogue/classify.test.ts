import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENTS, findAgent } from '../../../shared/agent-catalogue/catalogue.ts';
import { classifyUserAgent, createClassifier } from '../../../shared/agent-catalogue/classify.ts';
import { rdnsDomains } from '../../../shared/agent-verification/verify.ts';

describe('agent catalogue', () => {
  it('has one entry per token and alias', () => {
    const spellings = AGENTS.flatMap((a) => [a.token, ...a.aliases].map((s) => s.toLowerCase()));
    assert.equal(new Set(spellings).size, spellings.length);
  });

  it('gives every entry a purpose, an operator and a platform', () => {
    for (const a of AGENTS) {
      assert.ok(['training', 'search', 'browse', 'search-engine'].includes(a.purpose), a.token);
      assert.equal(
        a.purpose === 'search-engine',
        !a.ai,
        `${a.token}: only classic search engines are not AI`,
      );
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
      { isBot: true, isAi: false, agent: 'Googlebot', platform: 'Google', type: 'search-engine' },
    ],
    [
      'bingbot likewise',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      { isBot: true, isAi: false, platform: 'Microsoft', type: 'search-engine' },
    ],
    [
      'msnbot is a classic search engine',
      'msnbot/2.0b (+http://search.msn.com/msnbot.htm)',
      { isBot: true, isAi: false, agent: 'msnbot', platform: 'Microsoft', type: 'search-engine' },
    ],
    [
      'Yahoo Slurp',
      'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
      { isBot: true, isAi: false, agent: 'Slurp', platform: 'Yahoo', type: 'search-engine' },
    ],
    [
      'Baiduspider',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      { isBot: true, isAi: false, agent: 'Baiduspider', platform: 'Baidu', type: 'search-engine' },
    ],
    [
      'YandexBot',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
      { isBot: true, isAi: false, agent: 'YandexBot', platform: 'Yandex', type: 'search-engine' },
    ],
    [
      "Exalead's Exabot is a search engine, not the AI company Exa",
      'Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)',
      { isBot: true, isAi: false, agent: 'Exalead', platform: 'Exalead', type: 'search-engine' },
    ],
    ["Exa's ExaBot stays Exa's", 'ExaBot/1.0', { isBot: true, isAi: true, agent: 'ExaBot', platform: 'Exa' }],
    [
      'an unknown crawler is a bot without an agent',
      'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
      { isBot: true, isAi: false, agent: undefined, platform: null, type: null },
    ],
    ['curl', 'curl/8.5.0', { isBot: true, isAi: false }],
    ['python-requests', 'python-requests/2.31.0', { isBot: true, isAi: false }],
    [
      'an unknown AI fetcher says so and is named by its token',
      'AcmeAI-Bot/0.3',
      { isBot: true, isAi: true, agent: 'AcmeAI-Bot', platform: 'Other' },
    ],
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
    [
      'a tool behind the bare browser prefix is a bot',
      'Mozilla/5.0 (compatible; Datalyse/2.1)',
      { isBot: true, isAi: false },
    ],
    [
      'an old browser that names its system is not',
      'Mozilla/5.0 (compatible; Konqueror/3.4; CYGWIN_NT-5.1) KHTML/3.4.89 (like Gecko)',
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

describe('unlisted agents (general rules, no catalogue entry)', () => {
  // Invented names: the rules must recognise the class, not a list of examples.
  const cases: [
    string,
    string,
    { isAi: boolean; agent?: string; platform?: string | null; type?: string | null },
  ][] = [
    [
      "an AI operator's site in the user agent",
      'Mozilla/5.0 (compatible; Zorblat-Fetch/2.1; +https://www.mistral.ai/bots)',
      { isAi: true, agent: 'Zorblat-Fetch', platform: 'Mistral AI' },
    ],
    [
      "an AI operator's mail address",
      'Quux/1.0 (crawler; contact bots@anthropic.com)',
      { isAi: true, agent: 'Quux', platform: 'Anthropic' },
    ],
    [
      "an AI operator's brand leading the token",
      'Groq-Indexer/3',
      { isAi: true, agent: 'Groq-Indexer', platform: 'Groq', type: 'search' },
    ],
    ['a brand of two camel-case words', 'HuggingFace-Fetcher/0.1', { isAi: true, platform: 'Hugging Face' }],
    [
      'an AI product word of a multi-purpose operator',
      'Google-GeminiScholar/1.0',
      { isAi: true, agent: 'Google-GeminiScholar', platform: 'Google' },
    ],
    [
      'a coding assistant of a multi-purpose operator',
      'GitHubCopilotWorkspace/1.2.0',
      { isAi: true, platform: 'Microsoft' },
    ],
    [
      'AI as a word of an unknown bot',
      'Frobnicate-AI',
      { isAi: true, agent: 'Frobnicate-AI', platform: 'Other' },
    ],
    [
      'an AI word in the URL path',
      'Mozilla/5.0 (compatible; Quill/1.0; +https://example.com/ai/crawler)',
      { isAi: true, agent: 'Quill', platform: 'Other' },
    ],
    // Not AI: ordinary tools of multi-purpose operators, AI-looking letters inside other words,
    // `.ai` domains alone, and browsers.
    ['an ordinary Google tool', 'Google-Pagerank-Checker/1.0', { isAi: false }],
    [
      'letters inside a word',
      'Mozilla/5.0 (compatible; MailChainBot/1.0; +https://example.com/bot)',
      { isAi: false },
    ],
    ['a .ai domain alone', 'PreviewBot/1.0 (+https://linkthing.ai)', { isAi: false }],
    ['the word GPT inside another word', 'jobswithgptcom-bot', { isAi: false }],
    [
      'a browser that names an AI site in its comment',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 anthropic.com',
      { isAi: false },
    ],
  ];
  for (const [name, ua, expected] of cases) {
    it(name, () => {
      const r = classifyUserAgent(ua);
      for (const [k, v] of Object.entries(expected)) assert.equal(r[k as keyof typeof r], v, `${k} of ${ua}`);
    });
  }

  it('is less sure of an unlisted agent than of a catalogued one', () => {
    const listed = classifyUserAgent('Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)');
    const unlisted = classifyUserAgent(
      'Mozilla/5.0 (compatible; Claudette-Crawl/1.0; +crawler@anthropic.com)',
    );
    assert.equal(unlisted.isAi, true);
    assert.ok(unlisted.confidence < listed.confidence);
  });

  it('a classifier over another catalogue sees only that catalogue', () => {
    const only = createClassifier([AGENTS.find((a) => a.token === 'GPTBot') as (typeof AGENTS)[number]]);
    assert.equal(only('GPTBot/1.1').agent, 'GPTBot');
    assert.equal(
      only('Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)').agent,
      'ClaudeBot',
    );
    assert.equal(only('Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)').confidence, 0.6);
  });
});

describe('classic search engines', () => {
  it('are verified the same way: vendor IP ranges or reverse DNS', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'msnbot/2.0b (+http://search.msn.com/msnbot.htm)',
      'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    ]) {
      const c = classifyUserAgent(ua);
      assert.equal(c.type, 'search-engine', ua);
      const entry = findAgent(c.agent as string);
      assert.ok(entry?.ipRanges || rdnsDomains(c.agent as string, c.platform as string)?.length, ua);
    }
  });
});
