import { type ArtifactName, type ArtifactSet, isGatherError } from '../scan-engine/artifacts.ts';
import type { Check } from '../scan-engine/check.ts';
import { checksById } from '../scan-engine/checks/index.ts';
import { type CheckRun, runChecks, scoreModel } from '../scan-engine/engine.ts';
import {
  gradeFor,
  type ModelCheckRef,
  type ModelDimension,
  type ScoringModel,
} from '../scan-engine/model.ts';
import { specOfRun } from '../scan-engine/security/score-table.ts';
import type { CrawlResult } from './crawl.ts';

// An audit report: one product's dimension of the site-audit model, run on every crawled page
// (full mode adds the browser's checks on the key pages), folded into findings by check, each
// with a severity, the affected URLs with their page's own message, and the guidance from the
// check's description. Pure: crawl result in, report out (the JSON that is stored and served).

export const REPORT_FORMAT_VERSION = 1;
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Severity is the score a check costs on the page where it costs most: for a weighted dimension,
 * 100 x its weight share among the checks that applied there x (1 - its score); for a modifier
 * dimension (security), the Observatory penalty it carries. A failing gate check (one that caps
 * the dimension, such as HTTPS or a page that answers an error) is always critical.
 */
export const SEVERITY_RULE =
  'Points lost on the worst affected page (weight share x shortfall, or the Observatory penalty for security): 25 or more, or a failing gate check, is critical; 10 or more high; 4 or more medium; less is low.';
const THRESHOLDS: [Severity, number][] = [
  ['critical', 25],
  ['high', 10],
  ['medium', 4],
];

export interface AffectedPage {
  url: string;
  outcome: 'warn' | 'fail';
  message: string;
  points_lost: number;
}

export interface AuditFinding {
  check_id: string;
  title: string;
  severity: Severity;
  scope: 'site' | 'page'; // site: a site-wide file (robots.txt, sitemap), judged once
  points_lost: number;
  why_it_matters: string | null;
  how_to_fix: string;
  affected_count: number;
  affected: AffectedPage[];
}

export interface AuditPage {
  url: string;
  status: number;
  score: number | null;
  mode: 'quick' | 'full';
  depth: number;
  source: 'start' | 'link' | 'sitemap';
  linked_from: string | null;
}

export interface AuditReport {
  format_version: number;
  order_id: string;
  product: { id: string; name: string };
  dimension: { id: string; name: string };
  target_url: string;
  site: string; // origin crawled
  generated_at: string;
  model: { id: string; version: string };
  /** Mean of the page scores. */
  score: number | null;
  /** Mean of the worst quarter of the pages (at least one): what the mean can hide. */
  worst_pages_score?: number | null;
  /** GRADE_RULE: the lower of the mean's grade and one band above the worst quarter's. */
  grade: string | null;
  summary: string;
  counts: Record<Severity, number>;
  findings: Record<Severity, AuditFinding[]>;
  passes: { check_id: string; title: string; pages: number }[];
  not_assessed: { check_id: string; title: string; reason: string; pages: number }[];
  pages: AuditPage[];
  crawl: {
    pages_audited: number;
    full_mode_pages: number;
    max_pages: number;
    duration_ms: number;
    robots_txt: string;
    robots_status: number | null;
    sitemap_found: boolean;
    crawl_delay_seconds: number | null;
    skipped: {
      disallowed_by_robots: string[];
      not_html: string[];
      errors: { url: string; error: string }[];
      off_site: number; // redirected to another origin
      not_visited: number; // still queued when a bound was reached
      /** URLs that were another audited page (same final URL, canonical URL or body). */
      duplicates?: { url: string; sameAs: string }[];
    };
  };
  severity_rule: string;
}

export interface ReportInput {
  orderId: string;
  product: { id: string; name: string };
  targetUrl: string;
  model: ScoringModel;
  dimensionId: string;
  crawl: CrawlResult;
  maxPages: number;
  /** Browser artifacts of the key pages (full mode), by page URL. */
  full: Map<string, Pick<ArtifactSet, 'Rendered' | 'Lighthouse'>>;
  generatedAt: Date;
}

// Artifacts that describe the site rather than a page: checks needing only these run once.
const SITE_ARTIFACTS = new Set<ArtifactName>(['RobotsTxt', 'Sitemap', 'LlmsTxt', 'WellKnown']);
// An error page (a broken link) is judged only by checks of the HTTP answer itself: the others
// would just describe the error page, and it is left out of the score.
const ERROR_PAGE_CHECKS = new Set(['seo-http-status']);

interface PageRuns {
  page: AuditPage;
  runs: Map<string, CheckRun>;
}

type Prepared = ReturnType<typeof prepare>;

/** The dimension's checks and the one-dimension model its pages are scored with. */
function prepare(input: ReportInput) {
  const dimension = input.model.dimensions.find((d) => d.id === input.dimensionId);
  if (!dimension) throw new Error(`model ${input.model.id} has no dimension ${input.dimensionId}`);
  const checks = dimension.checks.map((ref) => {
    const check = checksById.get(ref.id);
    if (!check) throw new Error(`unknown check ${ref.id}`);
    return { ref, check, site: check.meta.requiredArtifacts.every((a) => SITE_ARTIFACTS.has(a)) };
  });
  const single: ScoringModel = { ...input.model, dimensions: [dimension] };
  return { dimension, checks, single };
}

/** One crawled page's check runs and score. */
function runPage(input: ReportInput, prepared: Prepared, p: CrawlResult['pages'][number]): PageRuns {
  const { crawl } = input;
  const browser = input.full.get(p.url);
  const artifacts: ArtifactSet = {
    Page: p.Page,
    Resources: p.Resources,
    RobotsTxt: crawl.robots,
    Sitemap: crawl.sitemap,
    ...(browser ?? {}),
  };
  const broken = p.Page.status >= 400;
  const runs = runChecks(
    prepared.checks.filter((c) => !broken || ERROR_PAGE_CHECKS.has(c.ref.id)).map((c) => c.check),
    artifacts,
  );
  const score = broken ? null : scoreModel(prepared.single, runs).dimensions[0]!.score;
  return {
    runs,
    page: {
      url: p.url,
      status: p.Page.status,
      score,
      mode: browser && browserGathered(browser) ? 'full' : 'quick',
      depth: p.depth,
      source: p.source,
      linked_from: p.linkedFrom,
    },
  };
}

/**
 * Whether the browser actually saw the page: a render or a Lighthouse run that failed (or, for
 * Lighthouse, could not load the page) leaves it a quick-mode page.
 */
function browserGathered(b: Pick<ArtifactSet, 'Rendered' | 'Lighthouse'>): boolean {
  const lighthouse = b.Lighthouse && !isGatherError(b.Lighthouse) && !b.Lighthouse.runtimeError;
  return Boolean((b.Rendered && !isGatherError(b.Rendered)) || lighthouse);
}

export function buildReport(input: ReportInput): AuditReport {
  const prepared = prepare(input);
  return assembleReport(
    input,
    prepared,
    input.crawl.pages.map((p) => runPage(input, prepared, p)),
  );
}

/**
 * buildReport, yielding to the event loop after each page, so that a large audit's checks do
 * not hold up the worker's heartbeats, job pickup and other jobs' I/O. The same report.
 */
export async function buildReportYielding(input: ReportInput): Promise<AuditReport> {
  const prepared = prepare(input);
  const perPage: PageRuns[] = [];
  for (const p of input.crawl.pages) {
    perPage.push(runPage(input, prepared, p));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return assembleReport(input, prepared, perPage);
}

function assembleReport(input: ReportInput, prepared: Prepared, perPage: PageRuns[]): AuditReport {
  const { dimension } = prepared;
  const { crawl } = input;
  const { findings, passes, notAssessed } = judgeChecks(input, prepared, perPage);
  const { grouped, counts } = groupBySeverity(findings);
  const scores = perPage.flatMap((p) => (p.page.score === null ? [] : [p.page.score]));
  const { score, worst, grade } = auditGrade(input.model, scores);
  const report: AuditReport = {
    format_version: REPORT_FORMAT_VERSION,
    order_id: input.orderId,
    product: input.product,
    dimension: { id: dimension.id, name: dimension.name },
    target_url: input.targetUrl,
    site: crawl.origin,
    generated_at: input.generatedAt.toISOString(),
    model: { id: input.model.id, version: input.model.version },
    score,
    worst_pages_score: worst,
    grade,
    summary: '',
    counts,
    findings: grouped,
    passes,
    not_assessed: notAssessed,
    pages: perPage.map((p) => p.page),
    crawl: crawlSummary(input, perPage),
    severity_rule: SEVERITY_RULE,
  };
  report.summary = summarise(report);
  return report;
}

/** Each check's verdict over the pages: a finding, a pass, or not assessed (and possibly both). */
function judgeChecks(
  input: ReportInput,
  prepared: Prepared,
  perPage: PageRuns[],
): { findings: AuditFinding[]; passes: AuditReport['passes']; notAssessed: AuditReport['not_assessed'] } {
  const findings: AuditFinding[] = [];
  const passes: AuditReport['passes'] = [];
  const notAssessed: AuditReport['not_assessed'] = [];
  for (const prepCheck of prepared.checks) {
    const { ref, check, site } = prepCheck;
    // A site-wide check says the same on every page: judge it once, on the start page.
    const pages = site ? perPage.slice(0, 1) : perPage;
    const { affected, passed, gateFailed, errors } = checkAcrossPages(input, prepared, prepCheck, pages);
    if (errors.length) {
      notAssessed.push({
        check_id: ref.id,
        title: check.meta.title,
        reason: errors[0]!,
        pages: errors.length,
      });
    }
    if (affected.length === 0) {
      if (passed > 0) passes.push({ check_id: ref.id, title: check.meta.title, pages: passed });
      continue;
    }
    affected.sort((a, b) => b.points_lost - a.points_lost || a.url.localeCompare(b.url));
    const worst = affected[0]!.points_lost;
    const { why, how } = guidance(check.meta.description);
    findings.push({
      check_id: ref.id,
      title: findingTitle(check, affected),
      severity: gateFailed ? 'critical' : severityOf(worst),
      scope: site ? 'site' : 'page',
      points_lost: worst,
      why_it_matters: why,
      how_to_fix: how,
      affected_count: affected.length,
      affected,
    });
  }
  return { findings, passes, notAssessed };
}

type PreparedCheck = Prepared['checks'][number];

/** One check's runs over the pages: the pages it failed or warned on, passes, gate, errors. */
function checkAcrossPages(
  input: ReportInput,
  prepared: Prepared,
  { ref, check, site }: PreparedCheck,
  pages: PageRuns[],
): { affected: AffectedPage[]; passed: number; gateFailed: boolean; errors: string[] } {
  const affected: AffectedPage[] = [];
  let passed = 0;
  let gateFailed = false;
  const errors: string[] = [];
  for (const { page, runs } of pages) {
    const run = runs.get(ref.id);
    if (!run || run.outcome === 'not_applicable') continue;
    if (run.outcome === 'error') {
      errors.push(run.message);
      continue;
    }
    if (run.outcome === 'pass') {
      passed++;
      continue;
    }
    if (ref.gate && run.outcome === 'fail') gateFailed = true;
    affected.push({
      url: site ? siteFileUrl(check, input.crawl) : page.url,
      outcome: run.outcome,
      message:
        page.linked_from && page.status >= 400
          ? `${run.message} (linked from ${page.linked_from})`
          : run.message,
      points_lost: round1(pointsLost(prepared.dimension, ref, run, runs)),
    });
  }
  return { affected, passed, gateFailed, errors };
}

/** Findings by severity, each list costliest first (then the most pages), and their counts. */
function groupBySeverity(findings: AuditFinding[]): {
  grouped: Record<Severity, AuditFinding[]>;
  counts: Record<Severity, number>;
} {
  const grouped = Object.fromEntries(SEVERITIES.map((s) => [s, [] as AuditFinding[]])) as Record<
    Severity,
    AuditFinding[]
  >;
  findings.sort((a, b) => b.points_lost - a.points_lost || b.affected_count - a.affected_count);
  for (const f of findings) grouped[f.severity].push(f);
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, grouped[s].length])) as Record<
    Severity,
    number
  >;
  return { grouped, counts };
}

function crawlSummary(input: ReportInput, perPage: PageRuns[]): AuditReport['crawl'] {
  const { crawl } = input;
  return {
    pages_audited: perPage.length,
    full_mode_pages: perPage.filter((p) => p.page.mode === 'full').length,
    max_pages: input.maxPages,
    duration_ms: crawl.durationMs,
    robots_txt: crawl.robots.url,
    robots_status: crawl.robots.status,
    sitemap_found: !isGatherError(crawl.sitemap) && crawl.sitemap.found,
    crawl_delay_seconds: crawl.crawlDelaySeconds,
    skipped: {
      disallowed_by_robots: crawl.skipped.disallowedByRobots,
      not_html: crawl.skipped.notHtml,
      errors: crawl.skipped.errors,
      off_site: crawl.skipped.offSite,
      not_visited: crawl.skipped.notVisited,
      duplicates: crawl.skipped.duplicates ?? [],
    },
  };
}

export const GRADE_RULE =
  'The score is the mean of the page scores. The grade is the lower of the mean’s grade and one band above the grade of the worst quarter of the pages (their mean), so a broken half of a site cannot hide behind a repaired half. The same page under two URLs (same final URL, canonical URL or document) is audited once.';

/**
 * An audit's score and grade from its page scores (GRADE_RULE). Grades are the model's bands,
 * best first; "one band above" the worst quarter's grade caps how far the mean can carry it.
 */
export function auditGrade(
  model: Pick<ScoringModel, 'grades'>,
  scores: number[],
): { score: number | null; worst: number | null; grade: string | null } {
  if (scores.length === 0) return { score: null, worst: null, grade: null };
  const mean = Math.round(scores.reduce((a, b) => a + b, 0) / scores.length);
  const sorted = [...scores].sort((a, b) => a - b);
  const quarter = sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 4)));
  const worst = Math.round(quarter.reduce((a, b) => a + b, 0) / quarter.length);
  const bands = model.grades.map((b) => b.grade);
  const byMean = bands.indexOf(gradeFor(model, mean));
  const byWorst = Math.max(0, bands.indexOf(gradeFor(model, worst)) - 1);
  return { score: mean, worst, grade: bands[Math.max(byMean, byWorst)] ?? null };
}

/** The score this run costs its page (see SEVERITY_RULE). */
export function pointsLost(
  dim: ModelDimension,
  ref: ModelCheckRef,
  run: CheckRun,
  runs: Map<string, CheckRun>,
): number {
  if (run.outcome !== 'warn' && run.outcome !== 'fail') return 0;
  if (dim.method === 'modifiers') return Math.max(0, -(specOfRun(run)?.modifier ?? 0));
  let total = 0;
  for (const r of dim.checks) {
    const o = runs.get(r.id)?.outcome;
    if (o && o !== 'not_applicable' && o !== 'error') total += r.weight;
  }
  return total > 0 ? (100 * ref.weight * (1 - run.score)) / total : 0;
}

export function severityOf(points: number): Severity {
  for (const [severity, min] of THRESHOLDS) if (points >= min) return severity;
  return 'low';
}

/** A check's description is "why it matters. How to fix it." when it has two parts. */
export function guidance(description: string): { why: string | null; how: string } {
  const parts = description.split(/(?<=[.!?])\s+(?=[A-Z"'(<])/);
  if (parts.length < 2) return { why: null, how: description };
  return { why: parts[0]!, how: parts.slice(1).join(' ') };
}

function findingTitle(check: Check, affected: AffectedPage[]): string {
  if (affected.some((a) => a.outcome === 'fail')) return check.meta.failureTitle;
  // Only partly met everywhere: the failure title would overstate it; the pages' own words do not.
  const messages = new Set(affected.map((a) => a.message));
  return messages.size === 1 ? affected[0]!.message : `Partly met: ${check.meta.title}`;
}

function siteFileUrl(check: Check, crawl: CrawlResult): string {
  const needs: readonly ArtifactName[] = check.meta.requiredArtifacts;
  if (needs.includes('Sitemap')) {
    const s = crawl.sitemap;
    return !isGatherError(s) && s.sources[0] ? s.sources[0] : new URL('/sitemap.xml', crawl.origin).href;
  }
  if (needs.includes('RobotsTxt')) return crawl.robots.url;
  return `${crawl.origin}/`;
}

function summarise(r: AuditReport): string {
  const pages = `${r.crawl.pages_audited} page${r.crawl.pages_audited === 1 ? '' : 's'}`;
  const worstNote =
    r.worst_pages_score != null && r.score !== null && r.worst_pages_score < r.score - 10
      ? `; its worst quarter of pages averages ${r.worst_pages_score}`
      : '';
  const head = `${r.product.name} of ${r.site}: ${r.score === null ? 'no score' : `score ${r.score}/100 (grade ${r.grade})`} across ${pages}${worstNote}.`;
  const total = SEVERITIES.reduce((n, s) => n + r.counts[s], 0);
  if (total === 0) return `${head} No ${r.dimension.name.toLowerCase()} issues found.`;
  const parts = SEVERITIES.filter((s) => r.counts[s] > 0).map((s) => `${r.counts[s]} ${s}`);
  const top = SEVERITIES.flatMap((s) => r.findings[s])[0]!;
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0];
  return `${head} ${total} finding${total === 1 ? '' : 's'}: ${list}. Most important: ${top.title} (${top.affected_count} ${top.scope === 'site' ? 'site-wide' : top.affected_count === 1 ? 'page' : 'pages'}).`;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
