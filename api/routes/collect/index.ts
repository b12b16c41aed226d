import { AdmissionError, Admitter, rateLimitError } from '../../../shared/accounts/admission.ts';
import { takeEvents } from '../../../shared/agent-traffic/budget.ts';
import { authorizeCollect, processVerifier, toIngestRequest } from '../../../shared/agent-traffic/collect.ts';
import { ingest, pastRetention } from '../../../shared/agent-traffic/ingest.ts';
import { rateLimited } from '../../../shared/metrics.ts';
import { callerOf, setRateHeaders } from '../../middlewares/guard.ts';
import { ProblemSchema } from '../../openapi.ts';
import { defineRoute } from '../../route.ts';
import { CollectBody, CollectResult, validCollectBody } from './schema.ts';

// POST /api/v1/collect: a site's server reports the requests it served. Authorised by the site's
// ingest token or a B key of the site's account. Access is declared `public` because the
// route guard knows API keys only: this handler authenticates itself (shared/agent-traffic/
// collect.ts) and meters ingestion by events per site per hour, not by the key's calls.

const problem = (description: string) => ({
  description,
  schema: ProblemSchema,
  contentType: 'application/problem+json',
});

export default [
  defineRoute({
    method: 'post',
    path: '/api/v1/collect',
    operationId: 'collectRequests',
    bodyLimit: '1mb', // batches of up to 1,000 requests
    summary: 'Report requests your site served (agent-traffic ingestion)',
    description:
      'Send `Authorization: Bearer <ingest token>` (from `sightline sites add`) or a variant B API key of the site’s account. 1 to 1,000 requests per batch, at most 1 MB. A batch with any invalid item is refused whole (400, `errors` names each bad index) and nothing of it is stored. Agents are classified (platform, agent, type) and verified (Web Bot Auth signature, vendor IP ranges, forward-confirmed reverse DNS, or `spoofed`); human visits from answer engines count as AI referrals; other visits are dropped. The same request posted again is stored once. Ingestion has its own budget per site, in events per rolling hour (`AGENT_INGEST_EVENTS_PER_HOUR`); the X-RateLimit-* headers of this endpoint describe that budget, and a batch that does not fit is refused whole with 429. Calls here do not count against the key’s hourly calls.',
    tags: ['Agent traffic'],
    access: { kind: 'public' },
    request: { body: CollectBody },
    validBody: validCollectBody,
    responses: {
      202: { description: 'Stored', schema: CollectResult },
      401: problem('Missing or invalid ingest token or API key'),
      403: problem('A variant A key'),
      404: problem('No such site for this token or account'),
      413: problem('Body larger than 1 MB'),
    },
    async handler(ctx, { body }, services) {
      const auth = await authorizeCollect(services.db, ctx.get('authorization') || undefined, body.site);
      if (!auth.ok) {
        // A failed authentication is counted per client address, through the one admission path.
        if (auth.error.status === 401) {
          const admitter = new Admitter(services.db, services.config);
          const state = await admitter.countFailedAuth(callerOf(ctx)).catch((err) => {
            if (err instanceof AdmissionError) setRateHeaders(ctx, err.rate);
            throw err;
          });
          setRateHeaders(ctx, state);
        }
        throw auth.error;
      }
      const limit = services.config.AGENT_INGEST_EVENTS_PER_HOUR;
      const retentionDays = services.config.AGENT_EVENTS_RETENTION_DAYS;
      const requests = body.requests.map(toIngestRequest);
      // Requests past retention are dropped unstored (ingest), so they spend none of the budget.
      const expired = pastRetention(retentionDays);
      const live = requests.reduce((n, r) => (expired(r) ? n : n + 1), 0);
      const budget = await takeEvents(services.db, auth.site.id, live, limit);
      setRateHeaders(ctx, budget);
      if (!budget.allowed) {
        rateLimited.inc({ kind: 'ingest' });
        throw rateLimitError(
          budget,
          `this site's ingestion (${budget.remaining} events left, the batch has ${live} within retention)`,
        );
      }
      const counts = await ingest(
        services.db,
        auth.site,
        'collect',
        requests,
        processVerifier(services.config),
        { retentionDays },
      );
      ctx.status = 202;
      ctx.body = { ...counts, invalid: 0 };
    },
  }),
];
