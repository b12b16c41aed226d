import { AGENTS, type AgentInfo } from './catalogue.ts';
import type { UaClassification } from './classification.ts';
import { listedAgents, readSnapshot } from './snapshot.ts';
import { platformOfUa, recogniseUnlisted } from './unlisted.ts';

// User-agent classification for agent traffic (B). A catalogued agent is recognised by its
// token; anything else that looks automated is a bot but not a known AI agent; browsers are not
// agents at all.

export type { UaClassification } from './classification.ts';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Matcher {
  agent: AgentInfo;
  spelling: string;
  re: RegExp;
}

/** The catalogue's matchers: our own patterns, the longest spelling first, then lists' patterns. */
function matchersOf(agents: readonly AgentInfo[]): Matcher[] {
  const patternsOf = (listed: boolean) =>
    agents.flatMap((agent) =>
      agent.pattern && Boolean(agent.listed) === listed ? [{ agent, spelling: '', re: agent.pattern }] : [],
    );
  // Longest spelling first: GoogleOther-Image must win over GoogleOther, ChatGPT-User over OpenAI.
  const spellings = agents
    .flatMap((agent) =>
      agent.pattern
        ? []
        : [agent.token, ...agent.aliases].map((spelling) => ({
            agent,
            spelling,
            re:
              agent.match === 'word'
                ? new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(spelling)}(?![A-Za-z0-9])`, 'i')
                : // A product token: the whole UA, its first product, or a product after ") " or "; ".
                  new RegExp(`(?:^|\\)\\s|;\\s?|\\(|,\\s?)${escapeRegExp(spelling)}(?:/\\d|$|;|\\))`),
          })),
    )
    .sort((a, b) => b.spelling.length - a.spelling.length);
  return [...patternsOf(false), ...spellings, ...patternsOf(true)];
}

// Markers of automated clients: crawler words, HTTP libraries, automation frameworks, and
// monitoring or testing services that borrow a browser's user agent. Cubot phone models end in
// "bot", hence the look-behind ("robot" has its own entry).
const BOT_MARKERS = new RegExp(
  [
    '(?<!cu|ro)bots?(?:\\b|[_/-]|\\d)',
    'robot|crawl|spider|slurp|scrap|archiv|indexer|harvest|fetch(?:er)?\\b|checker|monitor|validator',
    'preview|extractor|analy[sz]er|(?<![a-z])scanner|sitemap|uptime|synthetic|probe|webhook|feed|rss\\b',
    'lighthouse|headless|phantomjs|selenium|puppeteer|playwright|cypress|splash\\b',
    'python|curl/|wget|perl|java/|jakarta|go-http|okhttp|axios|node-fetch|undici|http[-_]?client|httpx',
    'aiohttp|ruby|php/|guzzle|postman',
    'nagios|prometheus|collectd|munin|xymon|datadog|catchpoint|speedcurve|ptst/|pingdom',
    'site24x7|siteimprove|statuscake|rigor\\b|gomezagent|pageburst|dareboost|observatory|securityheaders',
    'weblight|-google\\b|google-|google (?:favicon|page speed|search console)|googleimageproxy',
    'burpcollaborator|https?://|grpc|\\blwp\\b|whatsapp|@[a-z0-9-]+\\.[a-z]{2,}',
  ].join('|'),
  'i',
);
// Operating systems, devices and engines that only human-facing clients name.
const HUMAN_PLATFORM =
  /android|iphone|ipad|ipod|\bios\b|windows|\bwin(?:32|64|10|11)\b|macintosh|mac os|\bmac\b|x11|linux|darwin|cfnetwork|dalvik|blackberry|nokia|symbian|series60|midp|up\.browser|amiga|morphos|beos|playstation|nintendo|xbox|roku|appletv|sonos|tizen|kaios|webos|samsung|fban|applewebkit|gecko|trident|msie|mac_|powerpc|office|outlook|presto|lynx|links|w3m|mosaic|ibrowse|voyager|netfront/i;
// Apps whose user agent names no platform although a person uses them.
const KNOWN_APPS = /^(?:GoogleApp|MozacFetch)\//;
// Strings without any platform that still read as tools: a URL or domain, a bare word, or a word
// that says what the client does.
const TOOL_SHAPE =
  /https?:\/\/|www\.|[a-z0-9-]\.(?:com|net|org|io|me|nl|eu|ru|jp|app|dev|co|ch|cat|nu|de)\b|^[\w.-]+$|agent|service|check|\btest|tool|detector|lookup|sender|daemon|cron|plugin|proxy|engine|sdk|package|health|hook|integration|verification|\bdcv\b|reader|news|blog|protocol|certificate|batch|collect|optimi[sz]er|audit|inspect|recon|http|request|\brest\b|fuzz|bench|scan|marketplace|torrent|search/i;
// `Mozilla/5.0 (compatible; Name/1.0)` and nothing else: a tool borrowing the old browser prefix;
// a browser always adds its platform or engine.
const BARE_COMPATIBLE = /^Mozilla\/\d\.\d \(compatible; ?[\w.-]+(?: [\w.-]+)*\/v?\d[\w.]*\)$/;
// Unknown AI tools often say so in their name: "ai-crawler", "LLMBot", or camel case "AcmeAIBot".
const AI_MARKERS = [
  /(?<![A-Za-z])(?:ai|llm|gpt|genai|rag)[-_ ]?(?:bot|crawler|agent|spider|fetcher|scraper)/i,
  /(?<=[a-z])(?:AI|LLM|GPT)[-_ ]?(?:[Bb]ot|[Cc]rawler|[Aa]gent|[Ss]pider|[Ff]etcher|[Ss]craper)/,
];
const BROWSER_SHAPE = /^(?:Mozilla\/[45]\.0|Opera\/\d)/;

export type Classifier = (ua: string) => Readonly<UaClassification>;

/**
 * A classifier over one catalogue. Access logs repeat the same few hundred user agents millions
 * of times: each is classified once and every caller shares the one frozen answer.
 */
export function createClassifier(agents: readonly AgentInfo[], maxCached = 2000): Classifier {
  const matchers = matchersOf(agents);
  const cache = new Map<string, Readonly<UaClassification>>();
  return (ua) => {
    let result = cache.get(ua);
    if (!result) {
      result = Object.freeze(classify(matchers, ua));
      if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
      cache.set(ua, result);
    }
    return result;
  };
}

/** The catalogue in use: our own entries, then the shipped snapshot's entries from public lists. */
export const CATALOGUE_IN_USE: readonly AgentInfo[] = [...AGENTS, ...listedAgents(readSnapshot())];

interface InUse {
  version: string;
  agents: readonly AgentInfo[];
  classify: Classifier;
  /** Entries by token and spelling, lower case; the first entry (local ones come first) wins. */
  byToken: ReadonlyMap<string, AgentInfo>;
}

function inUseOf(agents: readonly AgentInfo[], version: string): InUse {
  const byToken = new Map<string, AgentInfo>();
  for (const a of agents)
    for (const t of [a.token, ...a.aliases])
      if (!byToken.has(t.toLowerCase())) byToken.set(t.toLowerCase(), a);
  return { version, agents, classify: createClassifier(agents), byToken };
}

// Until a process loads the database's catalogue (watch.ts), it classifies with the shipped one.
let inUse: InUse = inUseOf(CATALOGUE_IN_USE, readSnapshot().version);

/** Classifies with the catalogue in use from now on (a fresh cache per catalogue). */
export function useCatalogue(agents: readonly AgentInfo[], version: string): void {
  inUse = inUseOf(agents, version);
}

/** The entry in use for a token or spelling (case-insensitive): what verification looks up. */
export const findAgentInUse = (token: string): AgentInfo | undefined =>
  inUse.byToken.get(token.trim().toLowerCase());

/** The version of the catalogue the process classifies with. */
export const catalogueVersionInUse = (): string => inUse.version;

/** The agents of the catalogue the process classifies with. */
export const agentsInUse = (): readonly AgentInfo[] => inUse.agents;

export const classifyUserAgent: Classifier = (ua) => inUse.classify(ua);

function classify(matchers: readonly Matcher[], ua: string): UaClassification {
  const s = ua.trim();
  if (s === '' || s === '-') return bot(0.6);

  // A list's pattern never turns a plain browser string into an agent (lists tag a few browser
  // comments as crawlers); our own spellings and patterns still apply.
  const plainBrowser = BROWSER_SHAPE.test(s) && HUMAN_PLATFORM.test(s) && !BOT_MARKERS.test(s);
  for (const m of matchers) {
    if ((plainBrowser && m.agent.listed) || !m.re.test(s)) continue;
    const a = m.agent;
    return {
      isBot: true,
      isAi: a.ai,
      agent: a.token,
      // A list that names no operator: the one the user agent names, if any.
      platform: a.platform === 'Other' ? (platformOfUa(s) ?? 'Other') : a.platform,
      type: a.purpose,
      confidence: a.match === 'word' ? 0.95 : 0.7,
    };
  }

  if (KNOWN_APPS.test(s)) return human(0.7);
  // Unlisted AI agents: anything that is not a browser naming its platform may be one.
  if (BOT_MARKERS.test(s) || !HUMAN_PLATFORM.test(s) || AI_MARKERS.some((re) => re.test(s))) {
    const unlisted = recogniseUnlisted(s);
    if (unlisted) return unlisted;
  }
  if (AI_MARKERS.some((re) => re.test(s)))
    return { isBot: true, isAi: true, platform: 'Other', type: null, confidence: 0.5 };
  if (BOT_MARKERS.test(s)) return bot(0.85);
  if (HUMAN_PLATFORM.test(s)) return human(BROWSER_SHAPE.test(s) ? 0.9 : 0.7);
  // No platform named: a tool or service when it names a site or says what it does.
  if (TOOL_SHAPE.test(s) || BARE_COMPATIBLE.test(s)) return bot(0.6);
  return human(0.5);
}

const bot = (confidence: number): UaClassification => ({
  isBot: true,
  isAi: false,
  platform: null,
  type: null,
  confidence,
});
const human = (confidence: number): UaClassification => ({
  isBot: false,
  isAi: false,
  platform: null,
  type: null,
  confidence,
});
