import type { CrawledDocument, CrawlRefs } from '../../audits/crawl-refs.ts';
import type { HostSlots } from '../../net/host-slots.ts';
import type { UrlPolicy } from '../../net/url-policy.ts';
import type { PageArtifact } from '../artifacts.ts';
import type { SitemapDigest } from '../parsers/sitemap.ts';
import type { PageRefs } from './page-refs.ts';

/** What every quick gatherer gets: the target, the URL policy, the scan's deadline. */
export interface GatherContext {
  url: URL; // the normalised target
  policy: UrlPolicy;
  signal: AbortSignal; // aborted when the scan (or this gatherer) runs out of time
  userAgent: string; // ours: SIGHTLINE_USER_AGENT unless the caller says otherwise
  log?: (msg: string) => void;
  /** An IndexNow key the site's owner declared (monitored sites), verified by the IndexNow gatherer. */
  indexnow?: { key: string; keyLocation?: string | null };
  /** One scan's (or audit's) per-host request slots: at most 4 requests in flight to a site. */
  slots?: HostSlots;
  /** Where CPU-heavy reading runs: a worker's scans use the scoring thread; without it, this thread. */
  cpuThread?: CpuThread;
  /** An audit's resources fetched so far: each stylesheet, script or image once per audit. */
  resourceCache?: ResourceCache;
}

/** Parsing done off the event loop (score-thread.ts): the same results as in this thread. */
export interface CpuThread {
  /** The page's links for the gatherers (page-refs.ts). */
  pageRefs(page: PageArtifact): Promise<PageRefs>;
  /** One sitemap file, parsed and reduced (parsers/sitemap.ts). */
  sitemapDigest(xml: string, keep: number): Promise<SitemapDigest>;
  /** A crawled page's same-origin links and identities (audits/crawl-refs.ts). */
  crawlRefs(page: CrawledDocument, origin: string): Promise<CrawlRefs>;
}

export type ResourceFetch =
  | {
      status: number;
      bytes: number;
      contentType: string | null;
      contentEncoding: string | null;
      cacheControl: string | null;
      css: string | null; // a stylesheet's text, to find its fonts
    }
  | { error: string };

/** Resource URL -> its one fetch, for every page of an audit (an audit's pages share CSS and JS). */
export type ResourceCache = Map<string, Promise<ResourceFetch>>;
