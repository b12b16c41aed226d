// Artifacts: what gatherers collect once per scan. They are plain JSON (stored with the scan, so
// any result can be rescored offline and any stored set is a test fixture). Checks read them and
// never do I/O. A gatherer that fails yields a GatherError instead of its artifact.

export interface GatherError {
  error: { message: string; code?: string };
}

export interface RedirectHop {
  url: string;
  status: number;
  location: string;
}

export interface FetchTimings {
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  ttfbMs: number; // request start -> first byte of the response headers
  totalMs: number; // request start -> last body byte
}

/** The main document, fetched with our own user agent (plain HTTP, no JavaScript). */
export interface PageArtifact {
  requestedUrl: string;
  finalUrl: string;
  redirectChain: RedirectHop[]; // every hop, in order; empty when there was no redirect
  status: number;
  /** Response headers of the final response, names lower-cased; repeated headers joined by ", ". */
  headers: Record<string, string>;
  /** Set-Cookie values of the final response, unjoined. */
  setCookies: string[];
  tls: { protocol: string | null; cipher: string | null; validTo: string | null; authorized: boolean } | null;
  contentType: string | null;
  html: string; // decoded body (text types only; truncated at the size limit)
  truncated: boolean;
  timings: FetchTimings;
  bytes: { transferred: number; decoded: number };
  contentEncoding: string | null;
  /** Whether http:// of the same host redirects to https:// (null when not checked / not reachable). */
  httpRedirectsToHttps: boolean | null;
}

/** Subresources referenced by the page (scripts, styles, images, fonts), fetched in quick mode. */
export interface ResourceEntry {
  url: string;
  type: 'script' | 'stylesheet' | 'image' | 'font' | 'other';
  status: number | null; // null when it could not be fetched
  bytes: number | null;
  contentType: string | null;
  contentEncoding: string | null;
  cacheControl: string | null;
  renderBlocking: boolean; // <script> in head without async/defer/module, <link rel=stylesheet> without media=print
  sameOrigin: boolean;
  error?: string;
}
export interface ResourcesArtifact {
  entries: ResourceEntry[];
  skipped: number; // referenced but not fetched (cap reached)
}

export interface TextFileArtifact {
  url: string;
  status: number | null; // null when unreachable
  contentType: string | null;
  body: string; // '' when missing
  error?: string;
}

export type RobotsTxtArtifact = TextFileArtifact;

export interface SitemapArtifact {
  /** Sitemap URLs found (robots.txt Sitemap: lines first, then /sitemap.xml). */
  sources: string[];
  found: boolean;
  urls: string[]; // page URLs listed (capped)
  urlCount: number;
  lastmods: string[]; // lastmod values seen (capped)
  errors: string[];
}

export interface LlmsTxtLink {
  title: string;
  url: string;
  note: string | null;
}
export interface LlmsTxtDoc {
  valid: boolean;
  title: string | null; // the H1
  summary: string | null; // the blockquote
  details: string | null; // free text between summary and first H2
  sections: { name: string; links: LlmsTxtLink[] }[];
  hasOptional: boolean;
  errors: string[]; // why it is not valid
  warnings: string[];
}
export interface LlmsTxtArtifact extends TextFileArtifact {
  parsed: LlmsTxtDoc | null; // null when there is no file
  fullUrl: string | null; // /llms-full.txt when present
}

export interface WellKnownArtifact {
  mcp: TextFileArtifact; // /.well-known/mcp.json
  agent: TextFileArtifact; // /.well-known/agent.json
  aiPlugin: TextFileArtifact; // /.well-known/ai-plugin.json
  securityTxt: TextFileArtifact; // /.well-known/security.txt
  openapi: TextFileArtifact; // /openapi.json (or the first OpenAPI link found in the page)
}

/** The page fetched with AI agents' user agents: catches a firewall that answers bots 403. */
export interface AgentFetchesArtifact {
  baselineStatus: number | null; // same URL with our own browser-like user agent
  /** Decoded size of the baseline response (absent in artifacts stored before it was recorded). */
  baselineBytes?: number | null;
  fetches: {
    agent: string; // token, e.g. GPTBot
    userAgent: string;
    status: number | null;
    bytes: number | null;
    error?: string;
  }[];
}

/** Headless Chromium render (full mode): desktop and 375px mobile. */
export interface RenderedViewport {
  width: number;
  height: number;
  scrollWidth: number; // > width means horizontal overflow
  /**
   * Elements whose box reaches past the viewport's right edge and is not clipped by an ancestor
   * with overflow hidden/clip: the boxes that really widen the layout (tag.class, up to 5).
   * Absent in artifacts stored before it was recorded.
   */
  widening?: string[];
  tapTargets: { total: number; tooSmall: number; examples: string[] };
  smallTextRatio: number; // share of visible text nodes with font-size < 12px
  aboveFoldText: string; // visible text inside the first viewport
  aboveFoldCtas: string[]; // visible buttons/links that look like calls to action, in the first viewport
}
export interface RenderedArtifact {
  finalUrl: string;
  /**
   * The desktop load's main document: its HTTP status (null when the browser saw none), and
   * `proxy` when the answer came from the policy proxy (a refusal or an unreachable target).
   */
  document?: { status: number | null; proxy?: string };
  html: string; // serialised DOM after scripts
  visibleText: string;
  title: string;
  consoleErrors: string[];
  failedRequests: { url: string; reason: string }[];
  blockedRequests: string[]; // refused by the URL policy
  desktop: RenderedViewport;
  mobile: RenderedViewport;
  axe: {
    violations: { id: string; impact: string | null; help: string; nodes: number; targets: string[] }[];
    passes: string[];
    incomplete: string[];
  } | null;
  timings: { loadMs: number };
}

/** Lighthouse report, reduced to what checks need. */
export interface LighthouseArtifact {
  lighthouseVersion: string;
  categories: Record<string, number | null>; // performance, accessibility, best-practices, seo (0..1)
  audits: Record<
    string,
    {
      score: number | null;
      numericValue?: number;
      displayValue?: string;
      title: string;
      scoreDisplayMode: string;
    }
  >;
  runtimeError?: string;
}

/**
 * The IndexNow key file, checked when a key is known: declared by the site's owner (a monitored
 * site's indexnow_key) or advertised in robots.txt or the page. Without a key nothing is fetched.
 */
export interface IndexNowArtifact {
  key: string | null;
  source: 'declared' | 'robots.txt' | 'page' | null;
  keyFileUrl: string | null;
  status: number | null; // of the key file; null when not fetched or unreachable
  /** The file's body, trimmed, is exactly the key (the protocol's ownership proof). */
  matches: boolean;
  error?: string;
}

export interface ArtifactMap {
  Page: PageArtifact;
  Resources: ResourcesArtifact;
  RobotsTxt: RobotsTxtArtifact;
  Sitemap: SitemapArtifact;
  LlmsTxt: LlmsTxtArtifact;
  WellKnown: WellKnownArtifact;
  AgentFetches: AgentFetchesArtifact;
  IndexNow: IndexNowArtifact;
  Rendered: RenderedArtifact;
  Lighthouse: LighthouseArtifact;
}
export type ArtifactName = keyof ArtifactMap;

/** What a scan stores: each artifact, its gather error, or absent (not gathered in this mode). */
export type ArtifactSet = { [K in ArtifactName]?: ArtifactMap[K] | GatherError };

export const QUICK_ARTIFACTS: ArtifactName[] = [
  'Page',
  'Resources',
  'RobotsTxt',
  'Sitemap',
  'LlmsTxt',
  'WellKnown',
  'AgentFetches',
  'IndexNow',
];
export const FULL_ARTIFACTS: ArtifactName[] = [...QUICK_ARTIFACTS, 'Rendered', 'Lighthouse'];

export function isGatherError(v: unknown): v is GatherError {
  return typeof v === 'object' && v !== null && 'error' in v && Object.keys(v).length === 1;
}
