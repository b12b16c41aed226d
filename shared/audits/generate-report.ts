import type { Config } from '../config.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import type { ArtifactName, ArtifactSet } from '../scan-engine/artifacts.ts';
import type { BrowserProvider } from '../scan-engine/browser.ts';
import { checksById } from '../scan-engine/checks/index.ts';
import { gatherLighthouse } from '../scan-engine/gatherers/lighthouse.ts';
import { gatherRendered } from '../scan-engine/gatherers/rendered.ts';
import { siteAuditModel } from '../scan-engine/models/site-audit.ts';
import { type CrawlOptions, type CrawlResult, crawlSite } from './crawl.ts';
import { type AuditReport, buildReportYielding } from './report.ts';

// One audit, start to finish but without the database: crawl the target, render the key pages
// in the browser when the product has checks that need it (full mode), build the report.

export interface AuditSubject {
  orderId: string;
  product: { id: string; name: string };
  dimension: string; // audit_products.dimension: a dimension of the site-audit model
  targetUrl: string;
}

export interface GenerateDeps {
  config: Config;
  signal: AbortSignal;
  log: (msg: string) => void;
  onPages?: (pages: number) => void;
  /** The worker's browser, used only when the product needs full mode. */
  browser: BrowserProvider;
  /** The time the report is stamped with: the database clock, like every stored time. */
  now: () => Promise<Date>;
  /** Where the crawl parses pages (a worker's scoring thread); this thread when absent. */
  cpuThread?: CrawlOptions['cpuThread'];
}

const BROWSER_ARTIFACTS = new Set<ArtifactName>(['Rendered', 'Lighthouse']);

/** Whether any of the dimension's checks reads what only a browser gathers. */
export function needsBrowser(dimensionId: string): boolean {
  const dim = siteAuditModel.dimensions.find((d) => d.id === dimensionId);
  return (dim?.checks ?? []).some((ref) => {
    const meta = checksById.get(ref.id)?.meta;
    return [...(meta?.requiredArtifacts ?? []), ...(meta?.optionalArtifacts ?? [])].some((a) =>
      BROWSER_ARTIFACTS.has(a),
    );
  });
}

export async function generateReport(subject: AuditSubject, deps: GenerateDeps): Promise<AuditReport> {
  const { config } = deps;
  const crawl = await crawlSite({
    start: new URL(subject.targetUrl),
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    maxPages: config.AUDIT_MAX_PAGES,
    budgetMs: config.AUDIT_CRAWL_BUDGET_MS,
    concurrency: config.AUDIT_CONCURRENCY,
    signal: deps.signal,
    log: deps.log,
    onPage: deps.onPages,
    cpuThread: deps.cpuThread,
  });
  const full = needsBrowser(subject.dimension) ? await renderKeyPages(crawl, deps) : new Map();
  return buildReportYielding({
    orderId: subject.orderId,
    product: subject.product,
    targetUrl: subject.targetUrl,
    model: siteAuditModel,
    dimensionId: subject.dimension,
    crawl,
    maxPages: config.AUDIT_MAX_PAGES,
    full,
    generatedAt: await deps.now(),
  });
}

const asGatherError = (err: unknown) => ({
  error: { message: (err as Error).message ?? String(err), code: (err as { code?: string }).code },
});

/** Full mode on the first AUDIT_FULL_PAGES pages that answered (the start page first), one at a time. */
async function renderKeyPages(crawl: CrawlResult, deps: GenerateDeps) {
  const out = new Map<string, Pick<ArtifactSet, 'Rendered' | 'Lighthouse'>>();
  const keyPages = crawl.pages.filter((p) => p.Page.status < 400).slice(0, deps.config.AUDIT_FULL_PAGES);
  if (keyPages.length === 0) return out;
  const { pool, lighthouse } = deps.browser();
  for (const page of keyPages) {
    deps.log(`full mode: ${page.url}`);
    const ctx = { url: page.url, signal: deps.signal };
    // As in a full scan: Lighthouse in its own child, the render beside it.
    const [Rendered, Lighthouse] = await Promise.all([
      gatherRendered(ctx, pool).catch(asGatherError),
      gatherLighthouse(ctx, lighthouse).catch(asGatherError),
    ]);
    out.set(page.url, { Rendered, Lighthouse });
  }
  return out;
}
