// Operator registry: who runs a bot, recognised from the site or mail address its user agent
// names (`+https://replicate.com/`, `bot@example.ai`) or from the operator's brand leading its
// product token (`Anthropic-Claude/1.0`). An AI operator's unlisted bot is stored as an AI agent
// of that platform; a non-AI operator only names the platform of an ordinary bot.

export interface Operator {
  operator: string;
  /** Grouping for statistics, as the catalogue's `platform`. */
  platform: string;
  /** Registrable domains (and their subdomains) the operator's bots link to. */
  domains: readonly string[];
  /**
   * Brand words that, as the first word of a product token (`Groq-Bot`, `HuggingFace-Bot`),
   * name this operator. Compared case-insensitively with separators removed.
   */
  brands: readonly string[];
  /** True when everything the operator's bots fetch feeds AI products. */
  ai: boolean;
}

const op = (
  operator: string,
  domains: string[],
  brands: string[],
  ai = true,
  platform = operator,
): Operator => ({
  operator,
  platform,
  domains,
  brands,
  ai,
});

export const OPERATORS: readonly Operator[] = [
  // AI labs, assistants and model hosts
  op('OpenAI', ['openai.com', 'chatgpt.com', 'oaiusercontent.com'], ['openai', 'chatgpt']),
  op('Anthropic', ['anthropic.com', 'claude.ai', 'claude.com'], ['anthropic', 'claude']),
  op('Perplexity', ['perplexity.ai'], ['perplexity']),
  op('Mistral AI', ['mistral.ai'], ['mistral', 'mistralai', 'lechat']),
  op('Cohere', ['cohere.com', 'cohere.ai'], ['cohere']),
  op('xAI', ['x.ai', 'grok.com'], ['xai', 'grok']),
  op('DeepSeek', ['deepseek.com'], ['deepseek']),
  op('Moonshot AI', ['moonshot.ai', 'moonshot.cn', 'kimi.ai', 'kimi.com'], ['moonshot', 'kimi']),
  op('Character.AI', ['character.ai'], ['character', 'characterai']),
  op('Hugging Face', ['huggingface.co', 'hf.co'], ['huggingface']),
  op('Replicate', ['replicate.com'], ['replicate']),
  op('Together AI', ['together.ai', 'together.xyz'], ['together', 'togetherai']),
  op('Groq', ['groq.com'], ['groq']),
  op('RunPod', ['runpod.io'], ['runpod']),
  op('Stability AI', ['stability.ai'], ['stability', 'stabilityai']),
  op('AI21 Labs', ['ai21.com'], ['ai21']),
  op('Inflection AI', ['inflection.ai', 'pi.ai'], ['inflection']),
  op('You.com', ['you.com'], ['youcom']),
  op('Phind', ['phind.com'], ['phind']),
  op('Ai2', ['allenai.org', 'semanticscholar.org'], ['ai2', 'allenai']),
  op('Diffbot', ['diffbot.com'], ['diffbot']),
  op('Firecrawl', ['firecrawl.dev'], ['firecrawl']),
  op('Tavily', ['tavily.com'], ['tavily']),
  op('Exa', ['exa.ai'], ['exa']),
  op('Jina AI', ['jina.ai'], ['jina']),
  op('Manus', ['manus.im', 'manus.ai'], ['manus']),
  op('Liner', ['liner.com', 'getliner.com'], ['liner']),
  op('Cursor', ['cursor.com', 'cursor.sh', 'anysphere.inc'], ['cursor'], true, 'Anysphere'),
  op('Cognition', ['cognition.ai', 'devin.ai'], ['devin'], true, 'Cognition (Devin AI)'),
  op('GitHub', ['githubcopilot.com'], ['copilot', 'githubcopilot'], true, 'Microsoft'),
  op('Common Crawl Foundation', ['commoncrawl.org'], ['commoncrawl', 'ccbot'], true, 'Common Crawl'),
  op(
    'Bytedance',
    ['bytedance.com', 'doubao.com', 'tiktok.com'],
    ['bytedance', 'doubao', 'tiktok'],
    true,
    'ByteDance',
  ),
  op('Alibaba', ['qwen.ai', 'tongyi.aliyun.com'], ['qwen', 'tongyi'], true, 'Alibaba'),
  op('Zhipu AI', ['zhipuai.cn', 'chatglm.cn', 'z.ai'], ['zhipu', 'chatglm'], true, 'Zhipu AI'),
  op('LAION', ['laion.ai'], ['laion']),
  op('Aleph Alpha', ['aleph-alpha.com'], ['alephalpha']),
  op('Reka', ['reka.ai'], ['reka']),
  op('EleutherAI', ['eleuther.ai'], ['eleutherai']),
  op('Nous Research', ['nousresearch.com'], ['nousresearch']),
  op('MiniMax', ['minimax.io', 'minimaxi.com', 'hailuoai.com'], ['minimax', 'hailuo']),
  op('01.AI', ['01.ai', 'lingyiwanwu.com'], ['01ai', 'lingyiwanwu']),
  op('Baichuan', ['baichuan-ai.com'], ['baichuan']),
  op('StepFun', ['stepfun.com'], ['stepfun']),
  op('SenseTime', ['sensetime.com'], ['sensetime', 'sensenova']),
  op('Upstage', ['upstage.ai'], ['upstage']),
  op('Sakana AI', ['sakana.ai'], ['sakana', 'sakanaai']),
  op('Liquid AI', ['liquid.ai'], ['liquidai']),
  op('Writer', ['writer.com'], ['writerai']),
  op('Jasper', ['jasper.ai'], ['jasperai']),
  op('Copy.ai', ['copy.ai'], ['copyai']),
  op('Midjourney', ['midjourney.com'], ['midjourney']),
  op('Runway', ['runwayml.com'], ['runwayml']),
  op('ElevenLabs', ['elevenlabs.io'], ['elevenlabs']),
  op('Suno', ['suno.com', 'suno.ai'], ['suno']),
  op('Black Forest Labs', ['bfl.ai', 'blackforestlabs.ai'], ['blackforestlabs']),
  op('Ideogram', ['ideogram.ai'], ['ideogram']),
  op('Scale AI', ['scale.com'], ['scaleai']),
  // Model hosts and inference clouds: their fetchers feed models
  op('Fireworks AI', ['fireworks.ai'], ['fireworksai']),
  op('Anyscale', ['anyscale.com'], ['anyscale']),
  op('Baseten', ['baseten.co'], ['baseten']),
  op('Cerebras', ['cerebras.ai', 'cerebras.net'], ['cerebras']),
  op('SambaNova', ['sambanova.ai'], ['sambanova']),
  op('DeepInfra', ['deepinfra.com'], ['deepinfra']),
  op('OpenRouter', ['openrouter.ai'], ['openrouter']),
  op('Lambda', ['lambdalabs.com', 'lambda.ai'], ['lambdalabs']),
  // AI answer engines and research assistants
  op('Poe', ['poe.com'], ['poe'], true, 'Quora'),
  op('Genspark', ['genspark.ai'], ['genspark']),
  op('Felo', ['felo.ai'], ['felo']),
  op('Metaso', ['metaso.cn'], ['metaso']),
  op('Devv', ['devv.ai'], ['devv']),
  op('Elicit', ['elicit.com', 'elicit.org'], ['elicit']),
  op('Consensus', ['consensus.app'], ['consensusapp']),
  op('Scite', ['scite.ai'], ['scite']),
  op('Glean', ['glean.com'], ['glean']),
  // Browsers and browsing agents driven by a model, and the clouds that run them
  op('Browserbase', ['browserbase.com'], ['browserbase']),
  op('Browser Use', ['browser-use.com'], ['browseruse']),
  op('Hyperbrowser', ['hyperbrowser.ai'], ['hyperbrowser']),
  op('Anchor Browser', ['anchorbrowser.io'], ['anchorbrowser']),
  op('Skyvern', ['skyvern.com'], ['skyvern']),
  op('MultiOn', ['multion.ai'], ['multion']),
  op('Adept', ['adept.ai'], ['adeptai']),
  op('Lindy', ['lindy.ai'], ['lindy']),
  op('Sider', ['sider.ai'], ['sider']),
  op('Monica', ['monica.im'], ['monicaai']),
  op('Fellou', ['fellou.ai'], ['fellou']),
  op('The Browser Company', ['diabrowser.com', 'thebrowser.company'], ['diabrowser']),
  // Frameworks and coding agents that fetch pages for a model
  op('LangChain', ['langchain.com'], ['langchain', 'langgraph']),
  op('LlamaIndex', ['llamaindex.ai'], ['llamaindex', 'llamaparse']),
  op('Codeium', ['codeium.com', 'windsurf.com'], ['codeium', 'windsurf'], true, 'Windsurf'),
  op('Tabnine', ['tabnine.com'], ['tabnine']),
  op('Cline', ['cline.bot'], ['cline']),
  op('Aider', ['aider.chat'], ['aider']),
  op('Roo Code', ['roocode.com'], ['roocode', 'roocline']),
  op('Kilo Code', ['kilocode.ai'], ['kilocode']),
  op('All Hands AI', ['all-hands.dev'], ['openhands', 'allhands']),
  op('Continue', ['continue.dev'], ['continuedev']),
  op('CrewAI', ['crewai.com'], ['crewai']),
  op('Lovable', ['lovable.dev'], ['lovable']),
  op('Amazon', ['kiro.dev'], ['kiro']), // Kiro, Amazon's coding agent
  // Companies whose bots do many things: their AI products are recognised by AI words in the
  // token (`Google-GeminiNotebook`), everything else stays an ordinary bot of that platform. Their
  // product names are brands too, so a product leading a token names its maker (`KendraBot`).
  op(
    'Google',
    ['google.com', 'googlebot.com', 'gemini.google', 'gemini.google.com', 'withgoogle.com', 'deepmind.com'],
    ['google', 'gemini', 'bard', 'notebooklm', 'deepmind', 'vertex'],
    false,
  ),
  op(
    'Microsoft',
    // Not github.com: anyone's repository is linked from there (GitHub's own bots say `GitHub`).
    ['microsoft.com', 'bing.com', 'msn.com'],
    ['microsoft', 'msft', 'github', 'azure', 'bing'],
    false,
  ),
  op('Meta', ['facebook.com', 'meta.com', 'fb.com', 'instagram.com'], ['meta', 'facebook'], false),
  op('Apple', ['apple.com'], ['apple'], false),
  op(
    'Amazon',
    ['amazon.com', 'amazonbot.amazon', 'a9.com', 'amazonaws.com'],
    ['amazon', 'amzn', 'aws', 'alexa', 'bedrock', 'kendra'],
    false,
  ),
  op('Baidu', ['baidu.com', 'baidu.jp'], ['baidu', 'yiyan', 'ernie', 'wenxin'], false),
  op('Yandex', ['yandex.com', 'yandex.ru'], ['yandex', 'yandexgpt'], false),
  op('Huawei', ['huawei.com', 'aspiegel.com'], ['huawei', 'petal', 'pangu'], false),
  op('DuckDuckGo', ['duckduckgo.com'], ['duckduckgo', 'duckassist'], false),
  op('Brave', ['brave.com'], ['brave'], false),
  op('Kagi', ['kagi.com'], ['kagi'], false),
  op('Exalead', ['exalead.com', 'exabot.com'], ['exalead'], false),
  // By brand only: lists link Cloudflare's radar, forum and docs pages for other operators' bots.
  op('Cloudflare', [], ['cloudflare'], false),
  op('Tencent', ['tencent.com', 'qq.com'], ['tencent', 'hunyuan', 'yuanbao'], false),
  op('Naver', ['naver.com', 'navercorp.com'], ['naver', 'hyperclova', 'clova'], false),
  op('Kakao', ['kakao.com', 'kakaocorp.com'], ['kakao'], false),
  op('IBM', ['ibm.com'], ['ibm', 'watsonx'], false),
  op('Salesforce', ['salesforce.com'], ['salesforce', 'agentforce'], false),
  op('NVIDIA', ['nvidia.com'], ['nvidia'], false),
  op('Replit', ['replit.com'], ['replit'], false),
];

// AI products of multi-purpose operators, named in a token or URL path.
/** AI words, each a whole word of a token (`Google-GeminiNotebook`, `Character-AI`). */
export const AI_PRODUCT_WORDS =
  /ai|genai|llms?|gpt|rag|chatbot|assistant|agentic|agi|mcp|modelcontextprotocol|gemini|gemma|bard|notebooklm|pinpoint|copilot|chatgpt|claude|sora|dalle|llama|deepmind|vertex|bedrock|nova|ernie|yiyan|qwen|tongyi|doubao|yandexgpt|alice|pangu|kendra|qbusiness|hunyuan|yuanbao|wenxin|kimi|mistral|grok|hyperclova|clova|watsonx|agentforce/;

/**
 * Words that make a multi-purpose operator's bot an AI agent only next to that operator's brand:
 * `Google-Agent`, `GoogleAgent-Mariner`, `meta-externalagent` (an agent acting for a user).
 */
export const OPERATOR_AGENT_WORDS =
  /^(?:agent|externalagent|externalfetcher|user|buyforme|act|extended|additional|other|(?:deep)?research)$/i;

const byDomain = new Map<string, Operator>();
const byBrand = new Map<string, Operator>();
for (const o of OPERATORS) {
  for (const d of o.domains) byDomain.set(d, o);
  for (const b of o.brands) byBrand.set(b, o);
}

/** The operator of a host name, matching it or any parent domain (`www.anthropic.com`). */
export function operatorOfHost(host: string): Operator | undefined {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const o = byDomain.get(labels.slice(i).join('.'));
    if (o) return o;
  }
  return undefined;
}

/** The operator whose brand is `word` (separators and case ignored). */
export function operatorOfBrand(word: string): Operator | undefined {
  return byBrand.get(word.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

// Sites that host many people's pages: their name says nothing about a bot's operator.
const HOSTING = new Set([
  'github.com',
  'github.io',
  'gitlab.com',
  'bitbucket.org',
  'bit.ly',
  'medium.com',
  'wordpress.com',
  'blogspot.com',
  'notion.site',
  'google.com',
  'gmail.com',
  'outlook.com',
  'hotmail.com',
  'yahoo.com',
  'herokuapp.com',
  'vercel.app',
  'netlify.app',
  'pages.dev',
  'example.com',
  'example.org',
  'example.net',
]);
const RESERVED_TLD = /\.(?:example|test|invalid|localhost|local)$/;
const SECOND_LEVEL = /^(?:co|com|ac|or|ne|go|org|net|gov|edu)$/;

/**
 * The name an unregistered operator's site gives it: `https://www.klaviyo.com` -> `Klaviyo`.
 * Undefined for hosting sites, reserved names and addresses.
 */
export function platformOfHost(host: string): string | undefined {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  if (labels.length < 2 || RESERVED_TLD.test(host) || /^\d+$/.test(labels.at(-1) as string)) return undefined;
  const cut =
    labels.length >= 3 && SECOND_LEVEL.test(labels.at(-2) as string) && (labels.at(-1) as string).length === 2
      ? 3
      : 2;
  if (HOSTING.has(labels.slice(-cut).join('.'))) return undefined;
  const name = labels.at(-cut) as string;
  return name.length >= 3 ? name.charAt(0).toUpperCase() + name.slice(1) : undefined;
}
