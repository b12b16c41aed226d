import { defineRoute } from '../../route.ts';
import { scanAndAnswer } from '../scans/index.ts';
import { locationHeader, ScanPending } from '../scans/schema.ts';
import { CitabilityScore, LlmsTxtReport, ToolBody } from './schema.ts';

// Free GEO tools (variant A, no key, per-IP limits of interface.md). Both ride on a quick scan,
// so they share its job, its TTL cache and its stored artifacts.

export default [
  defineRoute({
    method: 'post',
    path: '/api/tools/llmstxt',
    operationId: 'checkLlmsTxt',
    summary: "Check a site's llms.txt against the llms.txt specification (free, 5 per hour per IP)",
    tags: ['Free tools'],
    access: { kind: 'ip', bucket: 'tools-llmstxt', ipLimit: 5 },
    request: { body: ToolBody },
    responses: {
      200: { description: 'llms.txt report', schema: LlmsTxtReport },
      202: { description: 'Still running; poll Location', schema: ScanPending, headers: locationHeader },
      422: { description: 'The site could not be fetched' },
    },
    async handler(ctx, { body }, services) {
      await scanAndAnswer(ctx, services, { url: body.url, mode: 'quick', accountId: null, view: 'llmstxt' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/tools/citability',
    operationId: 'checkCitability',
    summary: 'Citability score of a page for AI answer engines (free, 3 per hour per IP)',
    tags: ['Free tools'],
    access: { kind: 'ip', bucket: 'tools-citability', ipLimit: 3 },
    request: { body: ToolBody },
    responses: {
      200: { description: 'Citability score', schema: CitabilityScore },
      202: { description: 'Still running; poll Location', schema: ScanPending, headers: locationHeader },
      422: {
        description:
          'The site could not be fetched (`site_unreachable`), or the page answered HTTP 4xx/5xx (`target_error_status`, with `httpStatus`): an error page is not scored. `scan_failed`: the scan could not be completed (its job ran out of attempts); `browser_memory_budget` / `worker_memory_budget`: the browser or the worker went over its memory budget (BROWSER_MEMORY_BUDGET_MB, WORKER_MEMORY_BUDGET_MB) while it ran. A new request starts a fresh scan',
      },
    },
    async handler(ctx, { body }, services) {
      await scanAndAnswer(ctx, services, {
        url: body.url,
        mode: 'quick',
        accountId: null,
        view: 'citability',
      });
    },
  }),
];
