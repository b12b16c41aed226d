// Known automated agents, as our own data. Facts (robots.txt token, operator, purpose) were
// checked against the ai.robots.txt list and arcjet's well-known-bots; operators that list leaves
// unclear are filled in only where the product's owner is public knowledge.
//
// purpose:  training = collects pages for datasets or model training (blocking it costs no
//                      visibility in answers);
//           search   = builds an index that answer engines cite from;
//           browse   = fetches a page live because a user asked an assistant or agent to.
//           search-engine = a classic web search engine's crawler (not AI): shown beside the AI
//                      agents, never counted in AI totals.

export type AgentPurpose = 'training' | 'search' | 'browse' | 'search-engine';

/** Keys of the vendor IP-range sources in ip-ranges.ts. */
export type IpRangeSourceId =
  | 'openai-gptbot'
  | 'openai-searchbot'
  | 'openai-chatgpt-user'
  | 'anthropic'
  | 'perplexity-bot'
  | 'perplexity-user'
  | 'google-common'
  | 'google-user-triggered'
  | 'bing';

export interface AgentInfo {
  /** The product token robots.txt groups use for it. */
  token: string;
  /** Other spellings of the same agent (tokens compare case-insensitively, so no case variants). */
  aliases: readonly string[];
  operator: string; // 'Unknown' when undisclosed
  /** Grouping for statistics: the vendor's brand, 'Other' when the operator is unknown. */
  platform: string;
  purpose: AgentPurpose;
  /** AI agents; false for classic search-engine crawlers kept here for their IP ranges. */
  ai: boolean;
  /**
   * 'word': the token anywhere in the user agent, case-insensitive, as a whole word.
   * 'product': generic words (Code, Spider) count only as a case-sensitive `Token/version`
   * product or the whole user agent, so ordinary strings do not match by accident.
   */
  match: 'word' | 'product';
  /** A user-agent pattern that identifies the agent instead of its spellings (checked first). */
  pattern?: RegExp;
  /** From a public list, not our own entries: its pattern is tried after every spelling. */
  listed?: boolean;
  ipRanges?: IpRangeSourceId;
}

interface Opts {
  aliases?: string[];
  platform?: string;
  match?: 'product';
  ipRanges?: IpRangeSourceId;
  ai?: false;
  pattern?: RegExp;
}

function agent(token: string, operator: string, purpose: AgentPurpose, opts: Opts = {}): AgentInfo {
  return {
    token,
    aliases: opts.aliases ?? [],
    operator,
    platform: opts.platform ?? (operator === 'Unknown' ? 'Other' : operator),
    purpose,
    ai: opts.ai ?? true,
    match: opts.match ?? 'word',
    pattern: opts.pattern,
    ipRanges: opts.ipRanges,
  };
}

const T = 'training';
const S = 'search';
const B = 'browse';
const E = 'search-engine';
const product = { match: 'product' } as const;
const classic = { ai: false } as const;

export const AGENTS: readonly AgentInfo[] = [
  // OpenAI
  agent('GPTBot', 'OpenAI', T, { ipRanges: 'openai-gptbot' }),
  agent('OAI-SearchBot', 'OpenAI', S, { ipRanges: 'openai-searchbot' }),
  agent('ChatGPT-User', 'OpenAI', B, { ipRanges: 'openai-chatgpt-user' }),
  agent('ChatGPT Agent', 'OpenAI', B),
  agent('Operator', 'OpenAI', B, product),
  agent('OpenAI', 'OpenAI', T, product),
  // Anthropic publishes one list of egress ranges for all of its agents.
  agent('ClaudeBot', 'Anthropic', T, { ipRanges: 'anthropic' }),
  agent('Claude-SearchBot', 'Anthropic', S, { ipRanges: 'anthropic' }),
  agent('Claude-User', 'Anthropic', B, { ipRanges: 'anthropic' }),
  agent('Claude-Web', 'Anthropic', B),
  agent('Claude-Code', 'Anthropic', B),
  agent('anthropic-ai', 'Anthropic', T),
  // Perplexity
  agent('PerplexityBot', 'Perplexity', S, { ipRanges: 'perplexity-bot' }),
  agent('Perplexity-User', 'Perplexity', B, { aliases: ['PerplexityUser'], ipRanges: 'perplexity-user' }),
  // Google (Google-Extended is a robots.txt control token only; it never appears as a user agent)
  agent('Googlebot', 'Google', E, { ai: false, ipRanges: 'google-common' }),
  agent('Google-Extended', 'Google', T),
  agent('GoogleOther', 'Google', T, { ipRanges: 'google-common' }),
  agent('GoogleOther-Image', 'Google', T, { ipRanges: 'google-common' }),
  agent('GoogleOther-Video', 'Google', T, { ipRanges: 'google-common' }),
  agent('Google-CloudVertexBot', 'Google', S, { ipRanges: 'google-common' }),
  agent('Google-Agent', 'Google', B, { ipRanges: 'google-common' }),
  agent('Google-NotebookLM', 'Google', B, { ipRanges: 'google-user-triggered' }),
  agent('NotebookLM', 'Google', B),
  agent('Gemini-Deep-Research', 'Google', B, { ipRanges: 'google-user-triggered' }),
  agent('Google-Firebase', 'Google', B),
  agent('Google-Gemini-CLI', 'Google', B),
  agent('GoogleAgent-Mariner', 'Google', B),
  agent('GoogleAgent-URLContext', 'Google', B),
  // Apple
  agent('Applebot', 'Apple', S),
  agent('Applebot-Extended', 'Apple', T),
  // Meta
  agent('meta-externalagent', 'Meta', T),
  agent('meta-externalfetcher', 'Meta', B),
  agent('meta-webindexer', 'Meta', S),
  agent('FacebookBot', 'Meta', T, { aliases: ['Facebot'] }),
  agent('facebookexternalhit', 'Meta', B),
  // Microsoft
  agent('bingbot', 'Microsoft', E, { ai: false, ipRanges: 'bing' }),
  agent('msnbot', 'Microsoft', E, { ai: false, aliases: ['msnbot-media'], ipRanges: 'bing' }),
  agent('AzureAI-SearchBot', 'Microsoft', S),
  // Amazon
  agent('Amazonbot', 'Amazon', S),
  agent('Amzn-SearchBot', 'Amazon', S),
  agent('Amzn-User', 'Amazon', B),
  agent('AmazonBuyForMe', 'Amazon', B),
  agent('amazon-kendra', 'Amazon', S, { aliases: ['KendraBot'] }),
  agent('amazon-QBusiness', 'Amazon', B),
  agent('bedrockbot', 'Amazon', T),
  agent('NovaAct', 'Amazon', B),
  // ByteDance
  agent('Bytespider', 'ByteDance', T),
  agent('TikTokSpider', 'ByteDance', T),
  agent('Trae', 'ByteDance', B, product),
  // Classic web search engines (not AI), kept so a site owner can compare AI agents with them.
  agent('Slurp', 'Yahoo', E, classic),
  agent('Baiduspider', 'Baidu', E, { ...classic, aliases: ['Baiduspider-image', 'Baiduspider+'] }),
  agent('YandexBot', 'Yandex', E, { ...classic, aliases: ['YandexImages', 'YandexMobileBot'] }),
  agent('DuckDuckBot', 'DuckDuckGo', E, classic),
  agent('SeznamBot', 'Seznam', E, classic),
  agent('Sogou web spider', 'Sogou', E, { ...classic, aliases: ['Sogou spider'] }),
  agent('Yeti', 'Naver', E, { ...classic, match: 'product' }),
  agent('Qwantbot', 'Qwant', E, { ...classic, aliases: ['Qwantify'] }),
  agent('MojeekBot', 'Mojeek', E, classic),
  // Exalead's crawler calls itself Exabot too; it names exabot.com or Exalead, Exa's does not.
  agent('Exalead', 'Exalead', E, { ...classic, pattern: /\bExalead\b|exabot\.com/i }),
  // Common Crawl
  agent('CCBot', 'Common Crawl Foundation', T, { platform: 'Common Crawl' }),
  // Other assistants, answer engines and AI search
  agent('MistralAI-User', 'Mistral AI', B, { aliases: ['MistralAI-User/1.0'] }),
  agent('cohere-ai', 'Cohere', B),
  agent('cohere-training-data-crawler', 'Cohere', T),
  agent('DuckAssistBot', 'DuckDuckGo', B),
  agent('YouBot', 'You.com', S),
  agent('PetalBot', 'Huawei', S),
  agent('PanguBot', 'Huawei', T),
  agent('YandexAdditional', 'Yandex', S, { aliases: ['YandexAdditionalBot'] }),
  agent('DeepSeekBot', 'DeepSeek', T),
  agent('TongyiBot', 'Alibaba', B),
  agent('YiyanBot', 'Baidu', B),
  agent('Kimi-User', 'Moonshot AI', B),
  agent('Manus-User', 'Butterfly Effect', B),
  agent('kagi-fetcher', 'Kagi', B),
  agent('Bravebot', 'Brave', S),
  agent('Andibot', 'Andi', S),
  agent('Anomura', 'Direqt', S),
  agent('AddSearchBot', 'AddSearch', S),
  agent('ExaBot', 'Exa', S),
  agent('ExaSearchBot', 'Exa', S),
  agent('TavilyBot', 'Tavily', S),
  agent('LinkupBot', 'Linkup', S),
  agent('ShapBot', 'Parallel', S),
  agent('Shap-User', 'Parallel', B),
  agent('Querit-SearchBot', 'Querit', S),
  agent('QueritBot', 'Querit', S),
  agent('iaskspider', 'iAsk', S, { aliases: ['iaskspider/2.0'] }),
  agent('iAskBot', 'iAsk', S),
  agent('Channel3Bot', 'Channel3', S),
  agent('Aranet-SearchBot', 'Unknown', S),
  agent('ZanistaBot', 'Unknown', S),
  agent('Cloudflare-AutoRAG', 'Cloudflare', S),
  agent('atlassian-bot', 'Atlassian', S),
  agent('PhindBot', 'Phind', B),
  agent('LinerBot', 'Liner', B),
  agent('AI2Bot-DeepResearchEval', 'Ai2', B),
  agent('KlaviyoAIBot', 'Klaviyo', B),
  agent('QualifiedBot', 'Qualified', B),
  agent('Poggio-Citations', 'Poggio', B),
  agent('GeistHaus-PageFetcher', 'GeistHaus', B),
  agent('bigsur.ai', 'Big Sur AI', B),
  agent('BuddyBot', 'BuddyBotLearning', B),
  agent('TwinAgent', 'Twin', B),
  agent('Mozilla-Tabstack', 'Mozilla', B),
  agent('SemrushBot-SWA', 'Semrush', B),
  agent('wpbot', 'QuantumCloud', B),
  agent('UseAI', 'Unknown', B),
  // Coding agents and IDEs that fetch pages for their users
  agent('Cursor', 'Anysphere', B, product),
  agent('Devin', 'Cognition (Devin AI)', B, product),
  agent('Code', 'Unknown', B, product),
  agent('opencode', 'Unknown', B, product),
  // Training and dataset crawlers, data brokers, scrapers
  agent('AI2Bot', 'Ai2', T),
  agent('Ai2Bot-Dolma', 'Ai2', T),
  agent('SemanticScholarBot', 'Ai2', T),
  agent('aiHitBot', 'aiHit', T),
  agent('AIWebIndex', 'Lyrenth', T),
  agent('AgentTimes', 'The Agent Times', T),
  agent('ApifyBot', 'Apify', T),
  agent('ApifyWebsiteContentCrawler', 'Apify', T),
  agent('Awario', 'Awario', T),
  agent('Brightbot', 'Bright Data', T, { aliases: ['Brightbot 1.0'] }),
  agent('ChatGLM-Spider', 'Zhipu AI', T),
  agent('CloudVertexBot', 'Unknown', T),
  agent('Cotoyogi', 'ROIS', T),
  agent('CragCrawler', 'CragSoftware', T),
  agent('Crawl4AI', 'Unknown', T),
  agent('Crawlspace', 'Crawlspace', T),
  agent('Datenbank Crawler', 'Datenbank', T),
  agent('Diffbot', 'Diffbot', T),
  agent('EchoboxBot', 'Echobox', T, { aliases: ['Echobot Bot'] }),
  agent('Factset_spyderbot', 'FactSet', T),
  agent('FirecrawlAgent', 'Firecrawl', T),
  agent('FriendlyCrawler', 'Unknown', T),
  agent('HenkBot', 'Unknown', T),
  agent('ICC-Crawler', 'NICT', T),
  agent('ImagesiftBot', 'ImageSift', T),
  agent('imageSpider', 'Unknown', T),
  agent('img2dataset', 'img2dataset', T),
  agent('ISSCyberRiskCrawler', 'ISS Corporate', T),
  agent('Kangaroo Bot', 'Unknown', T),
  agent('KunatoCrawler', 'Unknown', T),
  agent('laion-huggingface-processor', 'LAION', T),
  agent('LAIONDownloader', 'LAION', T),
  agent('LCC', 'Unknown', T, product),
  agent('Lightpanda', 'Lightpanda', T),
  agent('Linguee Bot', 'Linguee', T),
  agent('MyCentralAIScraperBot', 'Unknown', T),
  agent('NagetBot', 'Naget', T),
  agent('netEstate Imprint Crawler', 'netEstate', T),
  agent('newsai', 'Unknown', T, product),
  agent('omgili', 'Webz.io', T, { aliases: ['omgilibot'] }),
  agent('Webzio-Extended', 'Webz.io', T),
  agent('Panscient', 'Panscient', T, { aliases: ['panscient.com'] }),
  agent('Poseidon Research Crawler', 'Poseidon Research', T),
  agent('QuillBot', 'Quillbot', T, { aliases: ['quillbot.com'] }),
  agent('Reflectionbot', 'Reflection', T),
  agent('SBIntuitionsBot', 'SB Intuitions', T),
  agent('Scrapy', 'Zyte', T),
  agent('SemrushBot-OCOB', 'Semrush', T),
  agent('Sidetrade indexer bot', 'Sidetrade', T),
  agent('Spider', 'Unknown', T, product),
  agent('TerraCotta', 'Ceramic AI', T, { aliases: ['Terra Cotta'] }),
  agent('Thinkbot', 'Thinkbot', T),
  agent('Timpibot', 'Timpi', T),
  agent('VelenPublicWebCrawler', 'Velen', T),
  agent('WARDBot', 'WEBSPARK', T),
  agent('WRTNBot', 'Unknown', T),
  agent('YaK', 'Meltwater', T, product),
  // AI crawlers named by crawler-user-agents (tag ai-crawler) and arcjet's well-known bots
  // (category ai) that the lists above do not carry.
  agent('ExteContextCrawl', 'Exte', T),
  agent('Flyriverbot', 'Flyriver', T),
  agent('semantic-visions', 'Semantic Visions', T),
  agent('TaraGroup Intelligent Bot', 'TaraGroup', T),
  agent('ImageMind', 'Unknown', T),
  agent('Novellum', 'Unknown', T),
  agent('linkReader', 'Chitchat', B),
  agent('Spawning-AI', 'Spawning', T),
  agent('The Knowledge AI', 'Unknown', T),
  agent('TurnitinBot', 'Turnitin', T, { aliases: ['Turnitin'] }),
  agent('CrunchBot', 'LeadCrunch', T),
  agent('infegy', 'Infegy', T),
  agent('Gluten Free Crawler', 'Unknown', T),
  agent('SafeDNSBot', 'SafeDNS', S),
  agent('Primalbot', 'Primal', T),
  agent('Mediatoolkitbot', 'Mediatoolkit', T),
  agent('botify', 'Botify', S),
  agent('StorygizeBot', 'Storygize', T),
  agent('ias_crawler', 'Integral Ad Science', T),
  agent('NTENTbot', 'NTENT', S),
  agent('SearchAtlas', 'Search Atlas', S),
  agent('SentiBot', 'SentiOne', T),
];

const byToken = new Map<string, AgentInfo>();
for (const a of AGENTS) for (const t of [a.token, ...a.aliases]) byToken.set(t.toLowerCase(), a);

/** The catalogue entry for a robots.txt token or alias (case-insensitive). */
export function findAgent(token: string): AgentInfo | undefined {
  return byToken.get(token.trim().toLowerCase());
}

/** Answer engines whose access decides whether a site can be cited: search and browse agents. */
export function isAnswerAgent(a: AgentInfo): boolean {
  return a.purpose !== 'training';
}
