import type { AgentPurpose } from './catalogue.ts';
import type { UaClassification } from './classification.ts';
import {
  AI_PRODUCT_WORDS,
  OPERATOR_AGENT_WORDS,
  type Operator,
  operatorOfBrand,
  operatorOfHost,
  platformOfHost,
} from './operators.ts';

// Automated clients the catalogue does not list. Their user agent names an operator (a site, a
// mail address, or the brand leading the product token) and often says it is AI: an AI operator's
// bot, or any bot with AI words in its own token or URL, is stored as an AI agent under its own
// token with a lower confidence than a catalogue match. Nothing else changes: other bots stay
// ordinary bots, browsers stay browsers (callers only ask for clients that look automated).

// Products every browser or library string carries; never a bot's own token.
const NOT_A_TOKEN =
  /^(?:mozilla|applewebkit|chrome|chromium|safari|gecko|firefox|version|mobile|edge?|edg|opera|opr|khtml|compatible|like|trident|msie|headlesschrome|crios|fxios|samsungbrowser|ucbrowser|yabrowser|vivaldi|brave|webkit|electron|python|python-requests|requests|urllib|aiohttp|httpx|curl|wget|java|okhttp|go-http-client|node|node-fetch|undici|axios|ruby|php|guzzle|libwww-perl|lwp|dalvik|cfnetwork|darwin|windows|linux|android|iphone|ipad|macintosh|x11|u|en|en-us)$/i;

const PRODUCT = /([A-Za-z][\w.+-]*[A-Za-z0-9])\/v?\d/g;
const HOSTS = /(?:https?:\/\/|@|\bwww\.)([a-z0-9-]+(?:\.[a-z0-9-]+)+)/gi;
// A product token that is itself a domain (`bigsur.ai/1.0`, `panscient.com`) names its site too.
const DOMAIN_TOKEN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$/i;

/** The sites a user agent names: its links and mail addresses, and its token when that is a domain. */
function hostsOf(ua: string, token: string | null): string[] {
  const hosts = [...ua.matchAll(HOSTS)].map((m) => m[1] as string);
  return token && DOMAIN_TOKEN.test(token) ? [...hosts, token] : hosts;
}

/** The client's own product token: its first non-browser, non-library `Name/1.0`, else a bare name. */
export function botToken(ua: string): string | null {
  for (const m of ua.matchAll(PRODUCT)) {
    const name = m[1] as string;
    if (!NOT_A_TOKEN.test(name)) return name;
  }
  const bare = /^([A-Za-z][\w.-]*[A-Za-z0-9])(?:[\s;(]|$)/.exec(ua)?.[1];
  return bare && !NOT_A_TOKEN.test(bare) ? bare : null;
}

/**
 * Words of a token: split at separators, at lower-to-upper case changes (`GitHubCopilotChat`) and
 * after an acronym of two or more letters that runs into a capitalised word (`AIWebIndex` -> `AI Web Index`).
 */
const wordsOf = (token: string) =>
  token
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]{2,})([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.+-]+/)
    // A crawler word fused to a name is its own word: `bedrockbot` -> `bedrock bot`.
    .flatMap((w) => w.replace(/^([a-z0-9]{3,}?)(bot|crawler|spider|agent)$/i, '$1 $2').split(' '))
    .filter(Boolean);

/** The operator whose brand is the token's first one to three words. */
function operatorOfToken(token: string): Operator | undefined {
  const words = wordsOf(token);
  for (let n = Math.min(3, words.length); n >= 1; n--) {
    const o = operatorOfBrand(words.slice(0, n).join(''));
    if (o) return o;
  }
  return undefined;
}

// AI words in a bot's own token: a separate word (`Character-AI`, `Acme LLM`) or a camel-case
// part (`AcmeAIBot`), never letters inside an ordinary word ("Mail", "Chain").
const AI_WORD = new RegExp(`^(?:${AI_PRODUCT_WORDS.source})$`, 'i');
/**
 * An AI word as one of the token's words, as two neighbouring words (`HyperCLOVA` splits into
 * "Hyper CLOVA"), or as the whole token written as one (`NotebookLM`).
 */
const aiInToken = (token: string) => {
  const words = wordsOf(token);
  return (
    words.some((w, i) => AI_WORD.test(w) || AI_WORD.test(w + (words[i + 1] ?? ''))) ||
    AI_WORD.test(token.replace(/[^a-z0-9]/gi, ''))
  );
};
// Link previewers fetch a page to show a card in a chat or feed; an AI site's previewer is not an
// AI agent reading the site, so AI words alone do not make one.
const LINK_PREVIEWER = /unfurl|preview|linkexpand/i;
// AI words in the path of the URL it links to (`https://example.com/ai-crawler`). A `.ai` domain
// alone is no evidence: link previewers and SEO tools use them too.
const AI_URL = /https?:\/\/[^\s/;)]+\/[^\s;)]*(?<![a-z])(?:ai|llm|gpt)(?![a-z])/i;

/** Words after a multi-purpose operator's brand that make its bot an AI agent (`AmazonBuyForMe`). */
function operatorAgentWords(token: string): boolean {
  const rest = wordsOf(token).slice(1);
  return rest.some((w) => OPERATOR_AGENT_WORDS.test(w)) || OPERATOR_AGENT_WORDS.test(rest.join(''));
}

// "AI" written as a word in the user agent's comment (`; AI Content Source Check`, `The Knowledge
// AI`): capital letters only, so "ai" inside names and paths does not count.
const AI_PHRASE = /(?:^|[\s;(])(?:AI|LLM|GPT)(?=[\s;)]|$)/;

/** The purpose the token's own words state, or null when they say nothing. */
function purposeOf(token: string, ua: string): AgentPurpose | null {
  const words = `${token} ${ua}`;
  if (/search|index/i.test(token)) return 'search';
  if (/user|assistant|agent|chat|browser|fetch|copilot|notebook|command|research/i.test(token))
    return 'browse';
  if (/crawl|spider|scrap|train|dataset|data/i.test(words)) return 'training';
  return null;
}

/** The platform a user agent names: a registered operator's, else its own site's name. */
export function platformOfUa(ua: string): string | undefined {
  const token = botToken(ua);
  const hosts = hostsOf(ua, token);
  const registered = (token ? operatorOfToken(token) : undefined) ?? hosts.map(operatorOfHost).find(Boolean);
  return registered?.platform ?? hosts.map(platformOfHost).find(Boolean);
}

/** An AI agent recognised by the general rules, or null when the client shows no AI evidence. */
export function recogniseUnlisted(ua: string): UaClassification | null {
  const token = botToken(ua);
  const hosts = hostsOf(ua, token);
  const byHost = hosts.map(operatorOfHost).find(Boolean);
  const byToken = token ? operatorOfToken(token) : undefined;
  const operator = byToken ?? byHost;
  const aiWords =
    (token !== null && aiInToken(token)) ||
    AI_URL.test(ua) ||
    AI_PHRASE.test(ua) ||
    (byToken !== undefined && token !== null && operatorAgentWords(token));
  if (!(operator?.ai || (aiWords && !LINK_PREVIEWER.test(token ?? '')))) return null;
  return {
    isBot: true,
    isAi: true,
    agent: token ?? undefined,
    platform: operator?.platform ?? hosts.map(platformOfHost).find(Boolean) ?? 'Other',
    type: token ? purposeOf(token, ua) : null,
    confidence: operator?.ai ? 0.6 : 0.5,
  };
}
