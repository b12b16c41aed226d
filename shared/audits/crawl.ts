import { AppError } from '../errors.ts';
import { HostSlots, MAX_REQUESTS_PER_SITE } from '../net/host-slots.ts';
import { NetError } from '../net/net-error.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../net/user-agent.ts';
import {
  type GatherError,
  isGatherError,
  type PageArtifact,
  type ResourcesArtifact,
  type RobotsTxtArtifact,
  type SitemapArtifact,
} from '../scan-engine/artifacts.ts';
import { errorText } from '../scan-engine/gatherers/fetch-text.ts';
import { gatherPage } from '../scan-engine/gatherers/page.ts';
import { gatherResources } from '../scan-engine/gatherers/resources.ts';
import { gatherRobotsTxt } from '../scan-engine/gatherers/robots-txt.ts';
import { gatherSitemap } from '../scan-engine/gatherers/sitemap.ts';
import type { CpuThread, GatherContext } from '../scan-engine/gatherers/types.ts';
import { groupsFor, isAllowed } from '../scan-engine/parsers/robots-txt.ts';
import { type CrawlRefs, crawlRefs, crawlKey as keyOf } from './crawl-refs.ts';

// The audit crawl: the target page, then same-origin pages found in its links and the sitemap,
// breadth first, with the quick gatherers (Page and Resources) on each. robots.txt is honoured
// for our own product token, including Crawl-delay (capped). Bounded by a page count, a total
// fetch count and a time budget; the site-wide files (robots.txt, sitemap) are read once.

export const CRAWLER_TOKEN = 'SightlineBot';

const PAGE_TIMEOUT_MS = 15_000;
const RESOURCES_TIMEOUT_MS = 15_000;
const FILE_TIMEOUT_MS = 12_000;
const MAX_CRAWL_DELAY_S = 5;

export interface CrawlOptions {
  start: URL;
  policy: UrlPolicy;
  maxPages: number;
  budgetMs: number;
  concurrency: number;
  signal: AbortSignal;
  log?: (msg: string) => void;
  onPage?: (pagesSoFar: number) => void;
  /** Where pages are parsed for links and identities: a worker's scoring thread (else this one). */
  cpuThread?: Pick<CpuThread, 'crawlRefs'>;
}

export interface CrawledPage {
  url: string; // final URL, after redirects
  depth: number; // links from the start page
  source: 'start' | 'link' | 'sitemap';
  linkedFrom: string | null; // the page whose link led here
  Page: PageArtifact;
  Resources: ResourcesArtifact | GatherError;
}

export interface CrawlResult {
  origin: string;
  robots: RobotsTxtArtifact;
  sitemap: SitemapArtifact | GatherError;
  crawlDelaySeconds: number | null;
  pages: CrawledPage[]; // start page first, then breadth first
  skipped: {
    disallowedByRobots: string[];
    notHtml: string[];
    errors: { url: string; error: string }[];
    offSite: number; // redirected to another origin
    /**
     * Pages already audited under another URL (same final URL, same canonical URL, or the same
     * document body: `/` and `/index.html`), not counted twice.
     */
    duplicates: { url: string; sameAs: string }[];
    notVisited: number; // still queued when a bound was reached
  };
  durationMs: number;
}

/** Why an audit could not be made; `permanent` failures are not retried. */
export class AuditFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'AuditFailure';
  }
}

export async function crawlSite(opts: CrawlOptions): Promise<CrawlResult> {
  const started = Date.now();
  const entry = await enterSite(opts);
  const crawl = new SiteCrawl(opts, entry);
  await crawl.seed();
  await crawl.run(started + opts.budgetMs);
  if (opts.signal.aborted) throw opts.signal.reason ?? new Error('aborted');
  crawl.result.skipped.notVisited = crawl.queued;
  crawl.result.durationMs = Date.now() - started;
  return crawl.result;
}

/** The site as found before following any link: its robots.txt, start page and sitemap. */
interface SiteEntry {
  /** Gather context for the crawled site: one set of host slots and one resource cache. */
  site: GatherContext;
  origin: string; // where the start page landed
  robots: RobotsTxtArtifact;
  start: PageArtifact;
  sitemap: SitemapArtifact | GatherError;
}

/** Reads robots.txt and the start page (failing the audit when either forbids it), then the sitemap. */
async function enterSite(opts: CrawlOptions): Promise<SiteEntry> {
  const ctx: GatherContext = {
    url: opts.start,
    policy: opts.policy,
    signal: opts.signal,
    userAgent: SIGHTLINE_USER_AGENT,
    log: opts.log,
    slots: new HostSlots(MAX_REQUESTS_PER_SITE), // the whole audit is polite to the site
    resourceCache: new Map(), // pages share their CSS, scripts and images: each fetched once
  };
  let robots = await readRobots(ctx, opts.start);
  assertAllowed(robots, opts.start.href);
  const first = await guarded(opts.signal, PAGE_TIMEOUT_MS, (signal) => gatherPage({ ...ctx, signal }));
  const start = startPage(first, opts.start);
  const finalUrl = new URL(start.finalUrl);
  if (finalUrl.origin !== opts.start.origin) {
    // robots.txt is per origin: the site we actually crawl is where the start page landed.
    robots = await readRobots(ctx, finalUrl);
    assertAllowed(robots, finalUrl.href);
  }
  const site = { ...ctx, url: finalUrl };
  const sitemap = await guarded(opts.signal, FILE_TIMEOUT_MS, (signal) =>
    gatherSitemap({ ...site, signal }, finalUrl, robots),
  );
  return { site, origin: finalUrl.origin, robots, start, sitemap };
}

type QueueItem = { url: string; depth: number; source: CrawledPage['source']; linkedFrom: string | null };

/**
 * One audit crawl after the site was entered: a breadth-first queue of same-origin URLs, each
 * queued once by its crawl key, visited up to the bounds, each distinct page kept once.
 */
class SiteCrawl {
  readonly result: CrawlResult;
  private readonly queue: QueueItem[] = [];
  /** Crawl keys of every URL queued so far (and of the start URL and where it landed). */
  private readonly seen: Set<string>;
  /** Crawl keys of the final URLs of the pages fetched. */
  private readonly finalSeen: Set<string>;
  /** A page's identities (canonical URL, body) to the final URL of the first page that had them. */
  private readonly identities = new Map<string, string>();
  private readonly crawlDelay: number | null;
  private dispatched = 1; // the start page

  constructor(
    private readonly opts: CrawlOptions,
    private readonly entry: SiteEntry,
  ) {
    this.crawlDelay = crawlDelayOf(entry.robots);
    this.result = {
      origin: entry.origin,
      robots: entry.robots,
      sitemap: entry.sitemap,
      crawlDelaySeconds: this.crawlDelay,
      pages: [],
      skipped: { disallowedByRobots: [], notHtml: [], errors: [], offSite: 0, notVisited: 0, duplicates: [] },
      durationMs: 0,
    };
    this.seen = new Set([keyOf(opts.start.href), keyOf(entry.start.finalUrl)]);
    this.finalSeen = new Set([keyOf(entry.start.finalUrl)]);
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Keeps the start page and queues its links and the sitemap's same-origin URLs. */
  async seed(): Promise<void> {
    const { start, sitemap, origin } = this.entry;
    const startRefs = await this.refsOf(start);
    await this.addPage(start, { depth: 0, source: 'start', linkedFrom: null }, startRefs);
    if (!isGatherError(sitemap)) {
      for (const url of sitemap.urls) {
        if (sameOrigin(url, origin)) this.enqueue(url, { depth: 1, source: 'sitemap', linkedFrom: null });
      }
    }
    this.identify(start, startRefs);
  }

  /**
   * Visits queued URLs, `concurrency` at a time (one under a Crawl-delay), until the queue is
   * empty or a bound is reached: pages kept, fetches dispatched (non-pages and errors cost
   * fetches too), the deadline, or an abort.
   */
  run(deadline: number): Promise<void> {
    const { opts, queue, result } = this;
    const maxDispatched = opts.maxPages * 2;
    const concurrency = this.crawlDelay ? 1 : opts.concurrency;
    return new Promise<void>((resolve) => {
      let active = 0;
      const pump = () => {
        while (
          active < concurrency &&
          queue.length > 0 &&
          result.pages.length + active < opts.maxPages &&
          this.dispatched < maxDispatched &&
          Date.now() < deadline &&
          !opts.signal.aborted
        ) {
          const item = queue.shift()!;
          active++;
          this.dispatched++;
          void this.visit(item)
            .catch((err) => result.skipped.errors.push({ url: item.url, error: errorText(err) }))
            .finally(() => {
              active--;
              pump();
            });
        }
        if (active === 0) resolve();
      };
      pump();
    });
  }

  private enqueue(url: string, item: Omit<QueueItem, 'url'>): void {
    const key = keyOf(url);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.queue.push({ url: key, ...item });
  }

  /** Each kept page is parsed once, for both its links and its identities. */
  private refsOf(page: PageArtifact): Promise<CrawlRefs> {
    const { cpuThread } = this.opts;
    const { origin } = this.entry;
    return cpuThread
      ? cpuThread.crawlRefs({ html: page.html, finalUrl: page.finalUrl }, origin)
      : new Promise((resolve) => resolve(crawlRefs(page, origin)));
  }

  /** The final URL of a page already kept with one of this page's identities, else null (and records them). */
  private identify(page: PageArtifact, refs: CrawlRefs): string | null {
    for (const id of refs.identities) {
      const first = this.identities.get(id);
      if (first) return first;
    }
    for (const id of refs.identities) this.identities.set(id, page.finalUrl);
    return null;
  }

  /** Keeps a page with its resources and queues its links. */
  private async addPage(page: PageArtifact, item: Omit<QueueItem, 'url'>, refs?: CrawlRefs): Promise<void> {
    const { opts, result } = this;
    // An error page is a broken link: recorded, but its subresources and links are not followed.
    const Resources =
      page.status >= 400
        ? { error: { message: 'not gathered for an error page', code: 'error_page' } }
        : await guarded(opts.signal, RESOURCES_TIMEOUT_MS, (signal) =>
            gatherResources({ ...this.entry.site, signal }, page),
          );
    result.pages.push({ url: page.finalUrl, ...item, Page: page, Resources });
    opts.onPage?.(result.pages.length);
    if (page.status >= 400 || !refs) return;
    for (const link of refs.links) {
      this.enqueue(link, { depth: item.depth + 1, source: 'link', linkedFrom: page.finalUrl });
    }
  }

  /** Fetches a queued URL and keeps it, or records why it was skipped. */
  private async visit(item: QueueItem): Promise<void> {
    const { opts, result } = this;
    const { robots, origin, site } = this.entry;
    if (!isAllowed(robots.body, CRAWLER_TOKEN, item.url)) {
      result.skipped.disallowedByRobots.push(item.url);
      return;
    }
    if (this.crawlDelay) await sleep(this.crawlDelay * 1000, opts.signal);
    const page = await guarded(opts.signal, PAGE_TIMEOUT_MS, (signal) =>
      gatherPage({ ...site, url: new URL(item.url), signal }),
    );
    if (isGatherError(page)) {
      result.skipped.errors.push({ url: item.url, error: page.error.message });
      return;
    }
    const final = keyOf(page.finalUrl);
    if (!sameOrigin(final, origin)) {
      result.skipped.offSite++;
      return;
    }
    if (this.finalSeen.has(final)) return; // another URL already led here
    this.finalSeen.add(final);
    // A redirect may land on a path robots.txt keeps us out of: then we do not look at it.
    if (!isAllowed(robots.body, CRAWLER_TOKEN, final)) {
      result.skipped.disallowedByRobots.push(final);
      return;
    }
    if (page.status < 400 && !isHtml(page)) {
      result.skipped.notHtml.push(final);
      return;
    }
    if (page.status >= 400) return this.addPage(page, item);
    const refs = await this.refsOf(page);
    const sameAs = this.identify(page, refs);
    if (sameAs) {
      result.skipped.duplicates.push({ url: final, sameAs });
      return;
    }
    await this.addPage(page, item, refs);
  }
}

/** The start page, or why the audit cannot go on (retried unless it can only fail again). */
function startPage(page: PageArtifact | GatherError, url: URL): PageArtifact {
  if (isGatherError(page)) {
    const code = page.error.code === 'url_not_allowed' ? 'url_not_allowed' : 'site_unreachable';
    throw new AuditFailure(
      code,
      `Could not fetch ${url.href}: ${page.error.message}`,
      code === 'url_not_allowed',
    );
  }
  if (page.status >= 400) {
    // Server errors and throttling may pass; a page that does not exist will not appear on retry.
    const transient = page.status >= 500 || page.status === 408 || page.status === 429;
    throw new AuditFailure('site_error', `${page.finalUrl} answered HTTP ${page.status}`, !transient);
  }
  if (!isHtml(page)) {
    throw new AuditFailure(
      'not_html',
      `${page.finalUrl} is not an HTML page (${page.contentType ?? 'no content type'})`,
      true,
    );
  }
  return page;
}

async function readRobots(ctx: GatherContext, base: URL): Promise<RobotsTxtArtifact> {
  const robots = await gatherRobotsTxt(ctx, base);
  // RFC 9309 2.3.1.3-4: an unreachable robots.txt or a server error means "assume complete
  // disallow" for now; a 4xx means there are no rules.
  if (robots.error?.startsWith('url_not_allowed')) {
    throw new AuditFailure('url_not_allowed', `${robots.url}: ${robots.error}`, true);
  }
  if (robots.status === null || robots.status >= 500) {
    throw new AuditFailure(
      'robots_unreachable',
      `${robots.url} could not be read (${robots.error ?? `HTTP ${robots.status}`}); crawling waits until it can be`,
      false,
    );
  }
  return robots;
}

function assertAllowed(robots: RobotsTxtArtifact, url: string): void {
  if (isAllowed(robots.body, CRAWLER_TOKEN, url)) return;
  throw new AuditFailure(
    'robots_disallowed',
    `${robots.url} does not allow ${CRAWLER_TOKEN} to fetch ${url}. Add "User-agent: ${CRAWLER_TOKEN}" with "Allow: /" to audit the site.`,
    true,
  );
}

function crawlDelayOf(robots: RobotsTxtArtifact): number | null {
  const delays = groupsFor(robots.body, CRAWLER_TOKEN).flatMap((g) => (g.crawlDelay ? [g.crawlDelay] : []));
  return delays.length ? Math.min(Math.max(...delays), MAX_CRAWL_DELAY_S) : null;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

function isHtml(page: PageArtifact): boolean {
  return page.contentType === null || /html/i.test(page.contentType);
}

/** Runs one gatherer under its own deadline and the crawl's; failures become GatherErrors. */
async function guarded<T>(
  outer: AbortSignal,
  timeoutMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T | GatherError> {
  const signal = AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new NetError('timeout', `no answer within ${timeoutMs} ms`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fn(signal), aborted]);
  } catch (err) {
    const code = err instanceof AppError || err instanceof NetError ? err.code : 'gather_failed';
    return { error: { message: err instanceof Error ? err.message : String(err), code } };
  } finally {
    signal.removeEventListener('abort', onAbort);
    aborted.catch(() => {});
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
