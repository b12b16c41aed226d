import type { GeoRun, GeoRunKind } from '../../../shared/db/tables/geo.ts';
import type { Scan } from '../../../shared/db/tables/scans.ts';
import { AppError } from '../../../shared/errors.ts';
import { addPrompt, listPrompts, removePrompt } from '../../../shared/geo/prompts.ts';
import { checkSite, siteSeedPrompts } from '../../../shared/geo/site-checks.ts';
import { checkView, historyView, latestRunView, latestView, presentRun } from '../../../shared/geo/views.ts';
import { awaitRun, getAccountRun, isFinished, requestRun } from '../../../shared/geo/visibility-runs.ts';
import type { Services } from '../../../shared/services.ts';
import { ProblemSchema } from '../../openapi.ts';
import { presentPrompt } from '../../presenters/geo.ts';
import { type Access, defineRoute, type RouteContext } from '../../route.ts';
import {
  CheckPending,
  CheckQuery,
  GeoCheck,
  GeoCitability,
  GeoHistory,
  GeoLatest,
  HistoryQuery,
  locationHeader,
  PromptBody,
  PromptList,
  PromptParams,
  PromptRecord,
  RunParams,
  RunPending,
  RunQuery,
  SeedPrompts,
  ShareOfVoice,
  SiteParams,
  VisibilityRun,
} from './schema.ts';

// GEO for monitored sites (variant A). Any A tier may call; what they need is an active Growth or
// Agency plan on the account (403 subscription_required otherwise); a site of another account is
// 404. Checks and runs are jobs: answered 200 within the wait bound, else 202 + Location.
const access: Access = { kind: 'key', variants: ['A'] };
const tags = ['GEO'];
const problem = (description: string) => ({
  description,
  schema: ProblemSchema,
  contentType: 'application/problem+json',
});
const noEngine = problem('No answer engine is configured (answer_engine_unavailable)');
const base = (siteId: number) => `/api/v1/geo/sites/${siteId}`;

const waitMs = (services: Services, seconds?: number) =>
  seconds === undefined ? services.config.GEO_WAIT_MS : Math.min(seconds * 1000, 120_000);

function pendingCheck(ctx: RouteContext, scan: Scan, path: string) {
  const poll = `${path}?scan_id=${scan.id}`;
  ctx.status = 202;
  ctx.set('Location', poll);
  ctx.set('Retry-After', '2');
  ctx.body = { scanId: scan.id, status: scan.status as 'queued' | 'running', poll };
}

/** 200 with the finished run (a failed run is a problem naming the provider's error), else 202. */
async function answerRun(ctx: RouteContext, services: Services, run: GeoRun) {
  if (!isFinished(run)) {
    const poll = `/api/v1/geo/runs/${run.id}`;
    ctx.status = 202;
    ctx.set('Location', poll);
    ctx.set('Retry-After', '5');
    ctx.body = { runId: run.id, kind: run.kind, status: run.status as 'queued' | 'running', poll };
    return;
  }
  if (run.status === 'failed') {
    const e = run.error ?? { code: 'answer_engine_failed', message: 'The run failed.' };
    throw new AppError(502, e.code, 'Answer engine failed', e.message, { runId: run.id });
  }
  ctx.body = await presentRun(services.db, run);
}

function runRoute(kind: GeoRunKind, path: string) {
  const sov = kind === 'sov';
  return defineRoute({
    method: 'post',
    path: `/api/v1/geo/sites/:site_id/${path}`,
    operationId: sov ? 'runShareOfVoice' : 'runVisibility',
    summary: sov ? 'Run share of voice against your competitors' : 'Run the AI-visibility test',
    description: sov
      ? 'Asks every canonical prompt of the account GEO_RUNS_PER_PROMPT times per configured answer engine, once for all sites, and ranks the own site against the account’s monitoring competitors by citation rate. A run already queued or running is joined. 200 when done within the wait bound, else 202 with a Location to poll.'
      : 'Asks every canonical prompt of the account GEO_RUNS_PER_PROMPT times per configured answer engine and reports how often the site is cited (registrable-domain match), with a 95% Wilson interval, mentions, first-citation positions and every raw answer. A run already queued or running is joined. 200 when done within the wait bound, else 202 with a Location to poll. A run skipped for the monthly call budget answers 200 with status `skipped`.',
    tags,
    access,
    request: { params: SiteParams, query: RunQuery },
    responses: {
      200: { description: 'The finished run', schema: sov ? ShareOfVoice : VisibilityRun },
      202: { description: 'Still running; poll Location', schema: RunPending, headers: locationHeader },
      409: problem('The account has no canonical prompts (no_prompts)'),
      502: problem('Every answer engine failed (provider_timeout, provider_rate_limited, ...)'),
      503: noEngine,
    },
    async handler(ctx, { params, query }, services) {
      const run = await requestRun(services, ctx.state.principal!.accountId, params.site_id, kind, 'api');
      await answerRun(ctx, services, await awaitRun(services, run, waitMs(services, query.wait)));
    },
  });
}

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/check',
    operationId: 'geoCheckSite',
    summary: 'A fresh GEO check of a monitored site (6 signals, 85 points)',
    description:
      'Scans the site now (quick mode, no cache), scores the six GEO signals (crawlers 20, llmstxt 15, schema 15, citability 15, indexnow 10, https 10) and stores the result. 202 with a Location (this path with `scan_id`) when the scan outlasts the wait.',
    tags,
    access,
    request: { params: SiteParams, query: CheckQuery },
    responses: {
      200: { description: 'GEO check', schema: GeoCheck },
      202: { description: 'Still scanning; poll Location', schema: CheckPending, headers: locationHeader },
      422: problem('The site could not be fetched'),
    },
    async handler(ctx, { params, query }, services) {
      const out = await checkSite(services, ctx.state.principal!.accountId, params.site_id, {
        fresh: true,
        scanId: query.scan_id,
        waitMs: waitMs(services, query.wait),
      });
      if (out.kind === 'pending') return pendingCheck(ctx, out.scan, `${base(params.site_id)}/check`);
      ctx.body = checkView(out.row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/citability',
    operationId: 'geoSiteCitability',
    summary: 'Citability score of a monitored site',
    description:
      'Five 0-100 dimensions from a quick scan of the site (reused within the scan cache TTL), stored with the GEO check.',
    tags,
    access,
    request: { params: SiteParams, query: CheckQuery },
    responses: {
      200: { description: 'Citability score', schema: GeoCitability },
      202: { description: 'Still scanning; poll Location', schema: CheckPending, headers: locationHeader },
      422: problem('The site could not be fetched'),
    },
    async handler(ctx, { params, query }, services) {
      const out = await checkSite(services, ctx.state.principal!.accountId, params.site_id, {
        fresh: false,
        scanId: query.scan_id,
        waitMs: waitMs(services, query.wait),
      });
      if (out.kind === 'pending') return pendingCheck(ctx, out.scan, `${base(params.site_id)}/citability`);
      ctx.body = { ...(out.row.citability as object), checkedAt: out.row.checked_at.toISOString() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/latest',
    operationId: 'geoSiteLatest',
    summary: 'The latest stored GEO check, citability, visibility and share of voice of a site',
    description: 'Stored results only (nothing is run); a part never run is null.',
    tags,
    access,
    request: { params: SiteParams },
    responses: { 200: { description: 'Latest GEO results', schema: GeoLatest } },
    async handler(ctx, { params }, services) {
      ctx.body = await latestView(services, ctx.state.principal!.accountId, params.site_id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/history',
    operationId: 'geoSiteHistory',
    summary: 'Past GEO checks and visibility / share-of-voice runs, newest first',
    description: 'Paginated (`page`, `per_page`); runs carry their raw answers, citations and token usage.',
    tags,
    access,
    request: { params: SiteParams, query: HistoryQuery },
    responses: { 200: { description: 'History page', schema: GeoHistory } },
    async handler(ctx, { params, query }, services) {
      ctx.body = await historyView(
        services,
        ctx.state.principal!.accountId,
        params.site_id,
        query.page,
        query.per_page,
      );
    },
  }),
  runRoute('visibility', 'visibility/run'),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/visibility',
    operationId: 'geoSiteVisibility',
    summary: 'The latest visibility run of a site',
    description:
      'With its status (a failed or skipped run says why in `error`). 404 not_run_yet before the first.',
    tags,
    access,
    request: { params: SiteParams },
    responses: { 200: { description: 'Latest visibility run', schema: VisibilityRun }, 503: noEngine },
    async handler(ctx, { params }, services) {
      ctx.body = await latestRunView(services, ctx.state.principal!.accountId, params.site_id, 'visibility');
    },
  }),
  runRoute('sov', 'geo-sov/run'),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/geo-sov',
    operationId: 'geoSiteShareOfVoice',
    summary: 'The latest share of voice of a site against its competitors',
    tags,
    access,
    request: { params: SiteParams },
    responses: { 200: { description: 'Share of voice', schema: ShareOfVoice }, 503: noEngine },
    async handler(ctx, { params }, services) {
      ctx.body = await latestRunView(services, ctx.state.principal!.accountId, params.site_id, 'sov');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/runs/:run_id',
    operationId: 'getGeoRun',
    summary: 'Poll a visibility or share-of-voice run',
    tags,
    access,
    request: { params: RunParams },
    responses: {
      200: { description: 'The finished run', schema: VisibilityRun.or(ShareOfVoice) },
      202: { description: 'Still running', schema: RunPending, headers: locationHeader },
      502: problem('Every answer engine failed'),
    },
    async handler(ctx, { params }, services) {
      await answerRun(
        ctx,
        services,
        await getAccountRun(services, ctx.state.principal!.accountId, params.run_id),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/sites/:site_id/seed-prompts',
    operationId: 'geoSeedPrompts',
    summary: 'Prompts suggested from the site’s own content',
    description:
      'From the page title and description, headings, JSON-LD products and services, and FAQ questions. Suggestions only: add the ones you want with POST /api/v1/geo/prompts.',
    tags,
    access,
    request: { params: SiteParams },
    responses: {
      200: { description: 'Suggested prompts', schema: SeedPrompts },
      202: { description: 'Still scanning; poll Location', schema: CheckPending, headers: locationHeader },
      422: problem('The site could not be fetched'),
    },
    async handler(ctx, { params }, services) {
      const out = await siteSeedPrompts(services, ctx.state.principal!.accountId, params.site_id);
      if (out.kind === 'pending') {
        const poll = `${base(params.site_id)}/seed-prompts`;
        ctx.status = 202;
        ctx.set('Location', poll);
        ctx.set('Retry-After', '2');
        ctx.body = { scanId: out.scan.id, status: out.scan.status as 'queued' | 'running', poll };
        return;
      }
      ctx.body = { siteId: Number(out.site.id), url: out.site.url, prompts: out.prompts };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/geo/prompts',
    operationId: 'addGeoPrompt',
    summary: 'Add a canonical prompt',
    description:
      'Growth keeps up to 10 prompts, Agency 20 (403 quota_exceeded beyond). 409 prompt_exists for a duplicate.',
    tags,
    access,
    request: { body: PromptBody },
    responses: {
      201: {
        description: 'The prompt',
        schema: PromptRecord,
        headers: { Location: { description: 'The prompt', schema: { type: 'string' } } },
      },
      409: problem('The account already has that prompt'),
    },
    async handler(ctx, { body }, services) {
      const row = await addPrompt(services.db, ctx.state.principal!.accountId, body);
      ctx.status = 201;
      ctx.set('Location', `/api/v1/geo/prompts/${row.id}`);
      ctx.body = presentPrompt(row);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/geo/prompts',
    operationId: 'listGeoPrompts',
    summary: 'The account’s canonical prompts, with the quota',
    tags,
    access,
    responses: { 200: { description: 'Prompts', schema: PromptList } },
    async handler(ctx, _input, services) {
      const { prompts, quota } = await listPrompts(services.db, ctx.state.principal!.accountId);
      ctx.body = { prompts: prompts.map(presentPrompt), quota, used: prompts.length };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/geo/prompts/:id',
    operationId: 'removeGeoPrompt',
    summary: 'Delete a canonical prompt',
    description: 'Past runs keep the prompt’s text and label with their answers.',
    tags,
    access,
    request: { params: PromptParams },
    responses: { 204: { description: 'Removed' } },
    async handler(ctx, { params }, services) {
      await removePrompt(services.db, ctx.state.principal!.accountId, params.id);
      ctx.status = 204;
    },
  }),
];
