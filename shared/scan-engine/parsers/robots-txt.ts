// robots.txt per RFC 9309: groups of user-agent lines followed by allow/disallow rules; the most
// specific group applies (else `*`); the longest matching rule wins and allow wins a tie.
// Parsing is lenient where the author's intent is plain (missing colon, common misspellings,
// extra words after the product token), as large crawlers are.

export interface MatchOptions {
  /**
   * lenient (default): product tokens may hold digits (AI2Bot, 360Spider, as real crawlers name
   * themselves) and the crawler's token is found inside a full user-agent string.
   * rfc: RFC 9309 product tokens only (letters, `_`, `-`): a group's name ends at the first other
   * character ("AB42bot" names "ab") and the crawler's token is compared as given, which is how
   * Google's reference parser, and so its conformance suite, behaves.
   */
  tokens?: 'lenient' | 'rfc';
  /**
   * RFC 9309 2.2.2: the /robots.txt URI is implicitly allowed (default true). False matches it
   * like any other path, as the reference parser's own matcher does.
   */
  implicitRobotsTxt?: boolean;
  /**
   * Google mode: Google's reference parser (google/robotstxt) on top of RFC 9309, as its
   * conformance suite's GOOGLE_SPECIFIC cases expect. Implies `tokens: 'rfc'` (a user-agent line
   * names the product token up to the first space or other character: "Foo Bar" names "foo", and
   * the crawler's name is compared as given) and `implicitRobotsTxt: false` unless those are given;
   * `Allow: /dir/index.html` (or `.htm`) also allows `/dir/` exactly; and every line is cut at
   * GOOGLE_MAX_LINE_BYTES bytes before it is read (applies when the file is passed as text).
   * The default (RFC) behaviour is unchanged.
   */
  google?: boolean;
}

/** Google's reference parser reads at most 2083 × 8 − 1 bytes of a line (kMaxLineLen). */
export const GOOGLE_MAX_LINE_BYTES = 2083 * 8 - 1;

export interface RobotsRule {
  type: 'allow' | 'disallow';
  /** The pattern as normalised for matching (percent-encoding canonical, may hold `*` and `$`). */
  path: string;
  line: number; // 1-based line in the file
}

export interface RobotsGroup {
  /** Group names, lower-cased: `*` or the product token of each user-agent line. */
  agents: string[];
  /** The user-agent line values as written (RFC mode derives its stricter names from them). */
  agentLines: string[];
  rules: RobotsRule[];
  crawlDelay: number | null;
}

export interface RobotsTxt {
  groups: RobotsGroup[];
  sitemaps: string[];
  /** Lines that are neither blank, comments, nor a recognised record (for diagnostics). */
  ignoredLines: { line: number; text: string }[];
}

export interface RobotsDecision {
  allowed: boolean;
  /**
   * explicit: a group names this agent; wildcard: only the `*` group applied; none: no group
   * applies (no rules for anyone or only for other agents), so everything is allowed.
   */
  via: 'explicit' | 'wildcard' | 'none';
  /** The group name that applied (`*` for the wildcard), null when none did. */
  agent: string | null;
  /** The deciding rule, null when no rule matched (allowed by default). */
  rule: RobotsRule | null;
}

const KEYS: Record<string, 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay'> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  diasllow: 'disallow',
  disallaw: 'disallow',
  sitemap: 'sitemap',
  'site-map': 'sitemap',
  'crawl-delay': 'crawl-delay',
};

// A key with the colon forgotten ("disallow /"): only known keys, so prose lines stay ignored.
const NO_COLON = /^(user-agent|useragent|allow|disallow|sitemap)[ \t]+(\S.*)$/i;

/** Cuts a line to at most `max` UTF-8 bytes (whole characters only). */
function cutLine(line: string, max: number): string {
  if (line.length * 3 <= max) return line;
  const bytes = utf8.encode(line);
  if (bytes.length <= max) return line;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // do not split a character
  return new TextDecoder().decode(bytes.subarray(0, end));
}

export function parseRobotsTxt(text: string, options: { maxLineBytes?: number } = {}): RobotsTxt {
  // A byte-order mark (or what is left of one after a lossy decode) opens the file, not a line.
  const body = text.replace(/^[\uFEFF\uFFFD]+/, '');
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  const ignoredLines: { line: number; text: string }[] = [];
  let current: RobotsGroup | null = null;
  let inAgentLines = false; // true while reading the user-agent lines that open a group

  const lines = body.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = options.maxLineBytes ? cutLine(lines[i] ?? '', options.maxLineBytes) : (lines[i] ?? '');
    const hash = raw.indexOf('#');
    // Only spaces and tabs are whitespace here: a stray BOM mid-file makes its line garbage.
    const content = trimBlanks(hash >= 0 ? raw.slice(0, hash) : raw);
    if (content === '') continue;

    let key: string | undefined;
    let value: string;
    const colon = content.indexOf(':');
    if (colon > 0) {
      key = KEYS[trimBlanks(content.slice(0, colon)).toLowerCase()];
      value = trimBlanks(content.slice(colon + 1));
    } else {
      const m = NO_COLON.exec(content);
      key = m ? KEYS[(m[1] ?? '').toLowerCase()] : undefined;
      value = trimBlanks(m?.[2] ?? '');
    }
    if (!key) {
      ignoredLines.push({ line: i + 1, text: raw });
      continue;
    }

    switch (key) {
      case 'user-agent': {
        if (!inAgentLines || !current) {
          current = { agents: [], agentLines: [], rules: [], crawlDelay: null };
          groups.push(current);
          inAgentLines = true;
        }
        const agent = groupName(value, 'lenient');
        if (agent && !current.agents.includes(agent)) current.agents.push(agent);
        current.agentLines.push(value);
        break;
      }
      case 'allow':
      case 'disallow': {
        inAgentLines = false;
        // Rules before any user-agent line belong to no group; an empty value is "no rule".
        if (!current || value === '') break;
        current.rules.push({ type: key, path: normalizePattern(value), line: i + 1 });
        break;
      }
      case 'crawl-delay': {
        inAgentLines = false;
        const n = Number(value);
        if (current && Number.isFinite(n) && n >= 0) current.crawlDelay = n;
        break;
      }
      case 'sitemap':
        // Sitemap lines are global records; they neither open nor close a group.
        if (value) sitemaps.push(value);
        break;
    }
  }
  return { groups, sitemaps, ignoredLines };
}

const trimBlanks = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');

/** The name a user-agent line gives its group: `*`, or its product token lower-cased. */
function groupName(value: string, tokens: 'lenient' | 'rfc'): string | null {
  if (value.startsWith('*')) return '*';
  // Anything after the token ("FooBot/1.0", "Brightbot 1.0") is not part of the name.
  const m = (tokens === 'rfc' ? /^[A-Za-z_-]+/ : /^[A-Za-z0-9_-]+/).exec(value);
  return m ? m[0].toLowerCase() : null;
}

const groupNames = (g: RobotsGroup, tokens: 'lenient' | 'rfc'): string[] =>
  tokens === 'lenient' ? g.agents : g.agentLines.map((v) => groupName(v, 'rfc') ?? '');

/**
 * Product tokens a crawler identifies with, lower-cased: the token itself ("GPTBot"), or from a
 * full user-agent string every product name ("GPTBot/1.1") and every comment item
 * ("compatible; Googlebot/2.1"), never URL parts.
 */
export function productTokens(userAgent: string): string[] {
  const ua = userAgent.trim();
  const out = new Set<string>();
  const first = /^[A-Za-z0-9_-]+/.exec(ua);
  if (first) out.add(first[0].toLowerCase());
  for (const m of ua.matchAll(/(?:^|[\s;(,])([A-Za-z0-9_-]+)\/[^\s;),]*/g)) {
    if (m[1]) out.add(m[1].toLowerCase());
  }
  for (const comment of ua.matchAll(/\(([^)]*)\)/g)) {
    for (const item of (comment[1] ?? '').split(/[;,]/)) {
      const m = /^\s*([A-Za-z][A-Za-z0-9_-]*)/.exec(item);
      if (m?.[1] && !item.includes('://')) out.add(m[1].toLowerCase());
    }
  }
  return [...out];
}

/** The most specific group name addressed to this agent, or null when no group names it. */
function namedAgent(robots: RobotsTxt, userAgent: string, tokens: 'lenient' | 'rfc'): string | null {
  const wanted = new Set(tokens === 'rfc' ? [userAgent.trim().toLowerCase()] : productTokens(userAgent));
  let best: string | null = null;
  for (const g of robots.groups) {
    for (const a of groupNames(g, tokens)) {
      if (a !== '*' && wanted.has(a) && (best === null || a.length > best.length)) best = a;
    }
  }
  return best;
}

const parsed = (robots: RobotsTxt | string, options: MatchOptions = {}) =>
  typeof robots === 'string'
    ? parseRobotsTxt(robots, options.google ? { maxLineBytes: GOOGLE_MAX_LINE_BYTES } : {})
    : robots;

/** The options with Google mode's implied defaults filled in. */
const resolved = (o: MatchOptions): MatchOptions =>
  o.google ? { tokens: 'rfc', implicitRobotsTxt: false, ...o } : o;

/** Google mode: `Allow: /dir/index.htm[l]` also allows `/dir/` exactly (robots.cc, HandleAllow). */
function indexPagePattern(rule: RobotsRule): string | null {
  if (rule.type !== 'allow') return null;
  const slash = rule.path.lastIndexOf('/');
  if (slash < 0 || !rule.path.slice(slash).startsWith('/index.htm')) return null;
  return `${rule.path.slice(0, slash + 1)}$`;
}

/** The groups that apply to an agent: every group naming it (their rules merge), else the `*` ones. */
export function groupsFor(
  robots: RobotsTxt | string,
  userAgent: string,
  options: MatchOptions = {},
): RobotsGroup[] {
  options = resolved(options);
  const r = parsed(robots, options);
  const tokens = options.tokens ?? 'lenient';
  const name = namedAgent(r, userAgent, tokens) ?? '*';
  return r.groups.filter((g) => groupNames(g, tokens).includes(name));
}

/** The full decision for one agent and URL, with the group and rule that decided it. */
export function evaluate(
  robots: RobotsTxt | string,
  userAgent: string,
  url: string,
  options: MatchOptions = {},
): RobotsDecision {
  options = resolved(options);
  const r = parsed(robots, options);
  const tokens = options.tokens ?? 'lenient';
  const name = namedAgent(r, userAgent, tokens);
  const agent = name ?? '*';
  const groups = r.groups.filter((g) => groupNames(g, tokens).includes(agent));
  if (groups.length === 0) return { allowed: true, via: 'none', agent: null, rule: null };
  const via = name ? 'explicit' : 'wildcard';
  const path = normalizePath(pathOf(url));
  if ((options.implicitRobotsTxt ?? true) && path === '/robots.txt')
    return { allowed: true, via, agent, rule: null };

  let best: RobotsRule | null = null;
  for (const g of groups) {
    for (const written of g.rules) {
      const index = options.google ? indexPagePattern(written) : null;
      // The derived "/dir/$" rule competes with its own (shorter) length, as in the reference parser.
      const candidates = index ? [written, { ...written, path: index }] : [written];
      for (const rule of candidates) {
        if (!matches(path, rule.path)) continue;
        if (
          !best ||
          rule.path.length > best.path.length ||
          (rule.path.length === best.path.length && rule.type === 'allow')
        ) {
          best = rule;
        }
      }
    }
  }
  return { allowed: best?.type !== 'disallow', via, agent, rule: best };
}

export function isAllowed(
  robots: RobotsTxt | string,
  userAgent: string,
  url: string,
  options: MatchOptions = {},
): boolean {
  return evaluate(robots, userAgent, url, options).allowed;
}

/** Sitemap URLs declared in the file, resolved against `base` when given (they should be absolute). */
export function sitemaps(robots: RobotsTxt | string, base?: string): string[] {
  const out: string[] = [];
  for (const s of parsed(robots).sitemaps) {
    try {
      out.push(new URL(s, base).href);
    } catch {
      // not a URL: skip it
    }
  }
  return [...new Set(out)];
}

/** Path, parameters and query of a URL (or of a bare path), without the fragment. */
function pathOf(url: string): string {
  let s = url;
  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(0, hash);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(s);
  if (scheme) {
    s = s.slice(scheme[0].length);
    const end = s.search(/[/?]/);
    s = end >= 0 ? s.slice(end) : '';
  }
  if (s === '') return '/';
  return s.startsWith('/') ? s : `/${s}`;
}

const HEX = '0123456789ABCDEF';
const utf8 = new TextEncoder();

/**
 * RFC 9309 2.2.2: octets outside US-ASCII are compared percent-encoded. Rules are encoded here
 * ("/ツ" becomes "/%E3%83%84"); escapes get upper-case hex on both sides. URLs are expected
 * already encoded, as WHATWG URL serialises them: the matcher does not re-encode or decode them,
 * so a raw non-ASCII URL or an escaped unreserved character ("%62") only matches itself.
 */
function normalizePattern(value: string): string {
  let out = '';
  for (const ch of value) {
    if (ch.charCodeAt(0) < 0x80) out += ch;
    else for (const b of utf8.encode(ch)) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  out = upperEscapes(out);
  // Patterns are paths; one written without the leading slash ("Disallow: private") means one.
  return out.startsWith('/') || out.startsWith('*') ? out : `/${out}`;
}

const normalizePath = (path: string) => upperEscapes(path);
const upperEscapes = (s: string) => s.replace(/%[0-9a-fA-F]{2}/g, (e) => e.toUpperCase());

/**
 * Prefix match with `*` (any run of characters) and a final `$` (end of path). Tracks the set of
 * reachable positions instead of backtracking, so hostile patterns stay linear per character.
 */
function matches(path: string, pattern: string): boolean {
  let positions: number[] = [0];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '$' && i === pattern.length - 1) return positions.includes(path.length);
    if (c === '*') {
      const from = positions[0] as number;
      positions = [];
      for (let p = from; p <= path.length; p++) positions.push(p);
      continue;
    }
    const next: number[] = [];
    for (const p of positions) if (p < path.length && path[p] === c) next.push(p + 1);
    if (next.length === 0) return false;
    positions = next;
  }
  return true;
}
