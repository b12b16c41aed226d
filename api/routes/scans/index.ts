import { z } from 'zod';
import { agentCorrelation } from '../../../shared/agent-traffic/correlation.ts';
import { recommendBundle } from '../../../shared/audits/bundles.ts';
import { listProducts } from '../../../shared/audits/products.ts';
import type { Scan, ScanMode } from '../../../shared/db/tables/scans.ts';
import { notFound, unauthorized, variantMismatch } from '../../../shared/errors.ts';
import {
  awaitScan,
  getScan,
  pendingBody,
  requestScan,
  scanFailure,
  targetErrorStatus,
  vetTargetUrl,
} from '../../../shared/scans/scans.ts';
import type { Services } from '../../../shared/services.ts';
import { presentCitability, presentLlmsTxt, presentScanA, presentScanB } from '../../presenters/scan.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import { CitabilityScore, LlmsTxtReport } from '../tools/schema.ts';
import {
  locationHeader,
  PublicScanBody,
  ScanIdParams,
  ScanPending,
  ScanQueryA,
  ScanResultA,
  ScanResultB,
  ScanViewQuery,
} from './schema.ts';

export async function presentA(services: Services, scan: Scan, withRecommendation: boolean) {
  const body = presentScanA(scan);
  if (!withRecommendation) return body;
  const prices = new Map((await listProducts(services.db)).map((p) => [p.id, p.price_pence]));
  return { ...body, recommendation: recommendBundle(body.dimensions, prices, services.config, scan.url) };
}

export type ScanView = 'a' | 'b' | 'llmstxt' | 'citability';

async function present(
  services: Services,
  scan: Scan,
  view: ScanView,
  withRecommendation: boolean,
  accountId: string | null,
) {
  switch (view) {
    case 'a':
      return presentA(services, scan, withRecommendation);
    case 'b': {
      // Only the caller's own registered site counts; a keyless caller gets null (correlation.ts).
      const scope = accountId === null ? null : { accountId };
      return presentScanB(scan, { agentCorrelation: await agentCorrelation(services.db, scan.url, scope) });
    }
    case 'llmstxt':
      return presentLlmsTxt(scan);
    case 'citability':
      return presentCitability(scan);
  }
}

/** 200 with the result, or 202 + Location while the worker is still on it. */
export async function answer(
  ctx: RouteContext,
  services: Services,
  scan: Scan,
  view: ScanView,
  withRecommendation = false,
) {
  if (scan.status === 'failed') throw scanFailure(scan);
  const errorStatus = view === 'llmstxt' ? null : targetErrorStatus(scan);
  if (errorStatus) throw errorStatus;
  if (scan.status !== 'done') {
    const location = `/api/v1/scans/${scan.id}?view=${view}${withRecommendation ? '&include_recommendation=true' : ''}`;
    ctx.status = 202;
    ctx.set('Location', location);
    ctx.set('Retry-After', '2');
    ctx.body = pendingBody(scan, location);
    return;
  }
  ctx.body = await present(services, scan, view, withRecommendation, ctx.state.principal?.accountId ?? null);
}

/** The views scored from stored artifacts rather than from the results. */
const needsArtifacts = (view: ScanView) => view === 'llmstxt' || view === 'citability';

/** view=a is the paid result: the poll's (optional) key must be a variant A key. */
function requireVariantA(ctx: RouteContext) {
  const p = ctx.state.principal;
  if (!p) throw unauthorized('view=a needs a variant A API key.');
  if (p.variant !== 'A') {
    throw variantMismatch(
      `view=a belongs to variant A (site audit); your key is a variant ${p.variant} key.`,
    );
  }
}

/** The shared path of every scan-backed endpoint: vet the URL, join or start a scan, wait, answer. */
export async function scanAndAnswer(
  ctx: RouteContext,
  services: Services,
  req: {
    url: string;
    mode: ScanMode;
    accountId: string | null;
    view: ScanView;
    waitMs?: number;
    withRecommendation?: boolean;
  },
) {
  const url = await vetTargetUrl(services, req.url);
  const scan = await requestScan(services, { url, mode: req.mode, accountId: req.accountId });
  const done = await awaitScan(services, scan, req.waitMs ?? services.config.SCAN_WAIT_MS, {
    artifacts: needsArtifacts(req.view),
  });
  await answer(ctx, services, done, req.view, req.withRecommendation ?? false);
}

const waitMs = (services: Services, seconds?: number) =>
  seconds === undefined ? services.config.SCAN_WAIT_MS : Math.min(seconds * 1000, 120_000);

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/scan',
    operationId: 'scanWebsite',
    summary: 'Scan a URL across 7 dimensions (variant A)',
    description:
      'Runs (or reuses, within the cache TTL) a scan. Waits up to SCAN_WAIT_MS (or `wait` seconds) and answers 200 with the result, else 202 with a Location to poll.',
    tags: ['Scans'],
    access: { kind: 'key', variants: ['A'] },
    request: { query: ScanQueryA },
    responses: {
      200: { description: 'Scan result', schema: ScanResultA },
      202: { description: 'Still running; poll Location', schema: ScanPending, headers: locationHeader },
      422: {
        description:
          'The site could not be fetched (`site_unreachable`), or the page answered HTTP 4xx/5xx (`target_error_status`, with `httpStatus`): an error page is not scored. `scan_failed`: the scan could not be completed (its job ran out of attempts); `browser_memory_budget` / `worker_memory_budget`: the browser or the worker went over its memory budget (BROWSER_MEMORY_BUDGET_MB, WORKER_MEMORY_BUDGET_MB) while it ran. A new request starts a fresh scan',
      },
    },
    async handler(ctx, { query }, services) {
      await scanAndAnswer(ctx, services, {
        url: query.url,
        mode: query.mode,
        accountId: ctx.state.principal!.accountId,
        view: 'a',
        waitMs: waitMs(services, query.wait),
        withRecommendation: query.include_recommendation,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/public/scan',
    operationId: 'publicAgentReadabilityScan',
    summary: 'Agent-readability scan, five dimensions (variant B, no key)',
    tags: ['Scans'],
    access: { kind: 'ip', bucket: 'public-scan', ipLimit: (c) => c.PUBLIC_SCAN_IP_LIMIT },
    request: { body: PublicScanBody },
    responses: {
      200: { description: 'Scan result', schema: ScanResultB },
      202: { description: 'Still running; poll Location', schema: ScanPending, headers: locationHeader },
      422: {
        description:
          'The site could not be fetched (`site_unreachable`), or the page answered HTTP 4xx/5xx (`target_error_status`, with `httpStatus`): an error page is not scored. `scan_failed`: the scan could not be completed (its job ran out of attempts); `browser_memory_budget` / `worker_memory_budget`: the browser or the worker went over its memory budget (BROWSER_MEMORY_BUDGET_MB, WORKER_MEMORY_BUDGET_MB) while it ran. A new request starts a fresh scan',
      },
    },
    async handler(ctx, { body }, services) {
      await scanAndAnswer(ctx, services, { url: body.url, mode: body.mode, accountId: null, view: 'b' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/scans/:id',
    operationId: 'getScan',
    summary: 'Poll a scan by id',
    description:
      'Scan ids are unguessable, so the free views (b, llmstxt, citability) need no key. `view=a` (the paid seven-dimension result) needs a variant A key, as GET /api/v1/scan does. Polls are counted in a bucket of their own (RATE_LIMIT_POLL per hour, per key or per client address), so waiting for a scan does not use up the key’s hourly calls.',
    tags: ['Scans'],
    access: { kind: 'optional-key', bucket: 'poll', limit: (c) => c.RATE_LIMIT_POLL },
    request: { params: ScanIdParams, query: ScanViewQuery },
    responses: {
      200: {
        description: 'Scan result in the shape `view` asks for',
        schema: z.union([ScanResultA, ScanResultB, LlmsTxtReport, CitabilityScore]),
      },
      202: { description: 'Still running', schema: ScanPending, headers: locationHeader },
      401: { description: '`view=a` without a valid API key' },
      403: { description: '`view=a` with a variant B key' },
      422: {
        description:
          'The site could not be fetched (`site_unreachable`), or the page answered HTTP 4xx/5xx (`target_error_status`, with `httpStatus`): an error page is not scored. `scan_failed`: the scan could not be completed (its job ran out of attempts); `browser_memory_budget` / `worker_memory_budget`: the browser or the worker went over its memory budget (BROWSER_MEMORY_BUDGET_MB, WORKER_MEMORY_BUDGET_MB) while it ran. A new request starts a fresh scan',
      },
    },
    async handler(ctx, { params, query }, services) {
      // Every scan is scored under every model, so the A view must be guarded here: otherwise a
      // keyless public scan polled with view=a would hand out the paid result.
      if (query.view === 'a') requireVariantA(ctx);
      const scan = await getScan(services, params.id, { artifacts: needsArtifacts(query.view) });
      if (!scan) throw notFound('No scan with that id.');
      await answer(ctx, services, scan, query.view, query.include_recommendation ?? false);
    },
  }),
];
