import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recogniseUnlisted } from '../../../shared/agent-catalogue/unlisted.ts';

// User agents no list here contains, of the kinds the issue found missed: an AI operator's site or
// brand, a multi-purpose operator's AI product, AI words in the token or comment. The general rules
// alone (no catalogue) must call them AI agents of the right platform.
const UNSEEN: [string, string][] = [
  ['Replicate-Bot/1.0; +https://replicate.com/', 'Replicate'],
  ['Together-Bot/1.0', 'Together AI'],
  ['Groq-Bot/2.1', 'Groq'],
  ['HuggingFace-Bot/1.0', 'Hugging Face'],
  ['RunPod-Bot/1.0', 'RunPod'],
  ['Cohere-Command/1.0', 'Cohere'],
  ['Character-AI/1.0', 'Character.AI'],
  ['xAI-Bot/1.0', 'xAI'],
  ['Anthropic-Claude/1.0; +https://www.anthropic.com', 'Anthropic'],
  ['ChatGPT-Browser/1.0; +https://openai.com/bot', 'OpenAI'],
  ['Mozilla/5.0 (compatible; Google-GeminiNotebook/1.0)', 'Google'],
  ['Mozilla/5.0 (compatible; Google-Pinpoint/1.0)', 'Google'],
  ['GitHubCopilotChat/0.8.0', 'Microsoft'],
  // invented, same class
  ['Mozilla/5.0 (compatible; MistralCrawler/0.3; +https://mistral.ai/bots)', 'Mistral AI'],
  ['Mozilla/5.0 (compatible; DeepSeek-Search/1.0)', 'DeepSeek'],
  ['Mozilla/5.0 (compatible; Applebot-Extended/2.0; +http://www.apple.com/go/applebot)', 'Apple'],
  ['Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)', 'Yandex'],
  ['Mozilla/5.0 (compatible; ErnieBot/1.0)', 'Baidu'],
  ['Mozilla/5.0 (compatible; bedrockbot/2.0; +https://aws.amazon.com)', 'Amazon'],
  ['Mozilla/5.0 (compatible; AmazonBuyForMe/1.0; +https://www.amazon.com/)', 'Amazon'],
  ['Mozilla/5.0 (compatible; ZetaFetch/1.0; +https://zeta.example.org; AI answer engine)', 'Other'],
  ['Mozilla/5.0 (compatible; AcmeLLMBot/1.0; +https://www.acme-widgets.com/bot)', 'Acme-widgets'],
  ['Mozilla/5.0 (compatible; LLMReader/2.0)', 'Other'],
  ['Mozilla/5.0 (compatible; summarize.ai/1.0; AI)', 'Summarize'],
  // the reference MCP fetch server, as it identifies itself
  ['ModelContextProtocol/1.0 (Autonomous; +https://github.com/modelcontextprotocol/servers)', 'Other'],
  // AI companies no public list here names: labs, model hosts, answer engines, browsing and coding agents
  ['Mozilla/5.0 (compatible; OpenRouter-Fetch/1.0; +https://openrouter.ai)', 'OpenRouter'],
  ['Mozilla/5.0 (compatible; MiniMax-Search/1.0)', 'MiniMax'],
  ['Mozilla/5.0 (compatible; BrowserbaseAgent/2.0; +https://www.browserbase.com/)', 'Browserbase'],
  ['Mozilla/5.0 (compatible; Genspark-Bot/1.0)', 'Genspark'],
  ['Mozilla/5.0 (compatible; ElevenLabsBot/1.0)', 'ElevenLabs'],
  ['LangChain-WebLoader/0.3 (+https://www.langchain.com)', 'LangChain'],
  ['Mozilla/5.0 (compatible; Windsurf/1.12)', 'Windsurf'],
  ['Mozilla/5.0 (compatible; PoeBot/1.0; +https://poe.com)', 'Quora'],
  // multi-purpose operators' AI products
  ['Mozilla/5.0 (compatible; Cloudflare-AutoRAG/1.0)', 'Cloudflare'],
  ['Mozilla/5.0 (compatible; Naver-HyperCLOVA/1.0)', 'Naver'],
  ['Mozilla/5.0 (compatible; Replit-Agent/1.0)', 'Replit'],
  ['Mozilla/5.0 (compatible; TencentYuanbao/1.0)', 'Tencent'],
  ['Mozilla/5.0 (compatible; NaverClovaX/1.0)', 'Naver'],
  // agent frameworks and coding agents
  ['Mozilla/5.0 (compatible; BabyAGI/1.0)', 'Other'],
  ['Mozilla/5.0 (compatible; KiloCode/4.2)', 'Kilo Code'],
];

// Ordinary bots of the same operators and generic monitoring: they stay non-AI.
const ORDINARY = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; Applebot/0.3; +http://www.apple.com/go/applebot)',
  'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
  'Mozilla/5.0 (compatible; Alexabot/1.0; +http://www.alexa.com/help/certifyscan)',
  'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
  'Mozilla/5.0 (compatible; MailChecker/1.0; +https://chain.example.net/bot)',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'Mozilla/5.0 (compatible; SEOCrawler/1.0)',
  'Mozilla/5.0 (compatible; HTTPMonitor/1.0)',
  'Mozilla/5.0 (compatible; Cloudflare-Healthchecks/1.0; +https://www.cloudflare.com/)',
  'Mozilla/5.0 (compatible; Yeti/1.1; +https://naver.me/spd)',
  'Mozilla/5.0 (compatible; NaverBlogRSS/1.0; +https://www.naver.com)',
  'Replit-Deployments-Monitor/1.0',
  'Mozilla/5.0 (compatible; Lucidworks-Anda/2.0)',
];

describe('unlisted agents', () => {
  for (const [ua, platform] of UNSEEN) {
    it(`recognises ${ua} as AI of ${platform}`, () => {
      const c = recogniseUnlisted(ua);
      assert.ok(c?.isAi, `${ua} is an AI agent`);
      assert.equal(c.platform, platform);
      assert.ok((c.confidence ?? 1) < 1, 'a lower confidence than a catalogue match');
    });
  }
  for (const ua of ORDINARY) {
    it(`leaves ${ua} an ordinary bot`, () => assert.equal(recogniseUnlisted(ua), null));
  }
});
