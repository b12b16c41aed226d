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
  const origin = finalUrl.origin;
  if (origin !== opts.start.origin) {
    // robots.txt is per origin: the site we actually crawl is where the start page landed.
    robots = await readRobots(ctx, finalUrl);
    assertAllowed(robots, finalUrl.href);
  }
  const site = { ...ctx, url: finalUrl };
  const sitemap = await guarded(opts.signal, FILE_TIMEOUT_MS, (signal) =>
    gatherSitemap({ ...site, signal }, finalUrl, robots),
  );
  const crawlDelay = crawlDelayOf(robots);

  const result: CrawlResult = {
    origin,
    robots,
    sitemap,
    crawlDelaySeconds: crawlDelay,
    pages: [],
    skipped: { disallowedByRobots: [], notHtml: [], errors: [], offSite: 0, notVisited: 0, duplicates: [] },
    durationMs: 0,
  };
  const seen = new Set<string>([keyOf(opts.start.href), keyOf(start.finalUrl)]);
  type Item = { url: string; depth: number; source: CrawledPage['source']; linkedFrom: string | null };
  const queue: Item[] = [];
  const enqueue = (url: string, item: Omit<Item, 'url'>) => {
    const key = keyOf(url);
    if (seen.has(key)) return;
    seen.add(key);
    queue.push({ url: key, ...item });
  };

  // Each kept page is parsed once, for both its links and its identities.
  const refsOf = (page: PageArtifact): Promise<CrawlRefs> =>
    opts.cpuThread
      ? opts.cpuThread.crawlRefs({ html: page.html, finalUrl: page.finalUrl }, origin)
      : new Promise((resolve) => resolve(crawlRefs(page, origin)));

  const addPage = async (page: PageArtifact, item: Omit<Item, 'url'>, refs?: CrawlRefs) => {
    // An error page is a broken link: recorded, but its subresources and links are not followed.
    const Resources =
      page.status >= 400
        ? { error: { message: 'not gathered for an error page', code: 'error_page' } }
        : await guarded(opts.signal, RESOURCES_TIMEOUT_MS, (signal) =>
            gatherResources({ ...site, signal }, page),
          );
    result.pages.push({ url: page.finalUrl, ...item, Page: page, Resources });
    opts.onPage?.(result.pages.length);
    if (page.status >= 400 || !refs) return;
    for (const link of refs.links) {
      enqueue(link, { depth: item.depth + 1, source: 'link', linkedFrom: page.finalUrl });
    }
  };

  const startRefs = await refsOf(start);
  await addPage(start, { depth: 0, source: 'start', linkedFrom: null }, startRefs);
  if (!isGatherError(sitemap)) {
    for (const url of sitemap.urls) {
      if (sameOrigin(url, origin)) enqueue(url, { depth: 1, source: 'sitemap', linkedFrom: null });
    }
  }

  // Non-pages and errors cost fetches too: bound those as well.
  let dispatched = 1;
  const maxDispatched = opts.maxPages * 2;
  const deadline = started + opts.budgetMs;
  const concurrency = crawlDelay ? 1 : opts.concurrency;
  const finalSeen = new Set<string>([keyOf(start.finalUrl)]);
  // One page, one entry: its canonical URL and its body identify it as well as its final URL.
  const identities = new Map<string, string>();
  const identify = (page: PageArtifact, refs: CrawlRefs): string | null => {
    for (const id of refs.identities) {
      const first = identities.get(id);
      if (first) return first;
    }
    for (const id of refs.identities) identities.set(id, page.finalUrl);
    return null;
  };
  identify(start, startRefs);

  const visit = async (item: Item) => {
    if (!isAllowed(robots.body, CRAWLER_TOKEN, item.url)) {
      result.skipped.disallowedByRobots.push(item.url);
      return;
    }
    if (crawlDelay) await sleep(crawlDelay * 1000, opts.signal);
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
    if (finalSeen.has(final)) return; // another URL already led here
    finalSeen.add(final);
    // A redirect may land on a path robots.txt keeps us out of: then we do not look at it.
    if (!isAllowed(robots.body, CRAWLER_TOKEN, final)) {
      result.skipped.disallowedByRobots.push(final);
      return;
    }
    if (page.status < 400 && !isHtml(page)) {
      result.skipped.notHtml.push(final);
      return;
    }
    if (page.status >= 400) return addPage(page, item);
    const refs = await refsOf(page);
    const sameAs = identify(page, refs);
    if (sameAs) {
      result.skipped.duplicates.push({ url: final, sameAs });
      return;
    }
    await addPage(page, item, refs);
  };

  await new Promise<void>((resolve) => {
    let active = 0;
    const pump = () => {
      while (
        active < concurrency &&
        queue.length > 0 &&
        result.pages.length + active < opts.maxPages &&
        dispatched < maxDispatched &&
        Date.now() < deadline &&
        !opts.signal.aborted
      ) {
        const item = queue.shift()!;
        active++;
        dispatched++;
        void visit(item)
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
  if (opts.signal.aborted) throw opts.signal.reason ?? new Error('aborted');
  result.skipped.notVisited = queue.length;
  result.durationMs = Date.now() - started;
  return result;
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
