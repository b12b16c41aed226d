import { sql } from 'kysely';
import {
  type AgentDataSummary,
  agentDataFreshness,
  summariseFreshness,
} from '../../../shared/agent-verification/sources-age.ts';
import { providerStatus } from '../../../shared/geo/answer-engines/index.ts';
import type { Services } from '../../../shared/services.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import { StatusResponse } from './schema.ts';

export const API_VERSION = '1.0.0';
const JSON_TYPE = 'application/json; charset=utf-8';

// Health is the database answering. Checked at most once a second per process, so a load
// balancer hammering /status costs one cheap query per second, not one per call.
// Within that second the answer is made without a promise.
let lastCheck = 0;
let lastHealthy = true;
async function checkDatabase(services: Services): Promise<boolean> {
  lastCheck = Date.now();
  lastHealthy = await sql`select 1`.execute(services.db).then(
    () => true,
    () => false,
  );
  return lastHealthy;
}

/** The database's health as /api/v1/status reports it (checked at most once a second). */
export async function serviceHealthy(services: Services): Promise<boolean> {
  return Date.now() - lastCheck < 1000 ? lastHealthy : checkDatabase(services);
}

// The age of the agent catalogue and verification sources, read at most once a minute (in the
// background after the first): the details change by the day, not by the call.
const DETAILS_EVERY_MS = 60_000;
let details: { agentData: AgentDataSummary } | null = null;
let detailsAt = 0;
let detailsReading: Promise<void> | null = null;
function refreshDetails(services: Services): Promise<void> {
  detailsAt = Date.now();
  detailsReading ??= agentDataFreshness(services.db)
    .then((freshness) => {
      details = { agentData: summariseFreshness(freshness) };
    })
    .catch(() => {}) // a database that does not answer: the status says so; details keep their last value
    .finally(() => {
      detailsReading = null;
    });
  return detailsReading;
}

// The answer depends only on the configuration, the health flag and the details: serialised and
// encoded once per flag and details, as this is the endpoint load balancers and uptime checks call most.
const bodies = new WeakMap<Services['config'], Map<boolean, { details: unknown; body: Buffer }>>();
function statusBody(services: Services, healthy: boolean): Buffer {
  let byHealth = bodies.get(services.config);
  if (!byHealth) {
    byHealth = new Map();
    bodies.set(services.config, byHealth);
  }
  let cached = byHealth.get(healthy);
  if (cached === undefined || cached.details !== details) {
    cached = {
      details,
      body: Buffer.from(
        JSON.stringify({
          status: healthy ? 'operational' : 'degraded',
          version: API_VERSION,
          docs: services.config.docsUrl,
          answerEngines: providerStatus(services.config),
          ...(details ? { details } : {}),
        }),
      ),
    };
    byHealth.set(healthy, cached);
  }
  return cached.body;
}

/** A function of the module, not a closure made on every call of the busiest endpoint. */
function answer(ctx: RouteContext, services: Services, healthy: boolean): void {
  ctx.status = healthy ? 200 : 503;
  ctx.set('Content-Type', JSON_TYPE); // what `ctx.type = 'application/json'` sets, without its look-up
  ctx.body = statusBody(services, healthy);
}

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/status',
    operationId: 'getStatus',
    summary: 'Service health',
    tags: ['Service'],
    access: { kind: 'public' },
    responses: {
      200: { description: 'Healthy', schema: StatusResponse },
      503: { description: 'Database unreachable', schema: StatusResponse },
    },
    handler(ctx, _input, services) {
      if (Date.now() - detailsAt >= DETAILS_EVERY_MS) {
        const reading = refreshDetails(services);
        if (!details)
          return reading.then(() => checkDatabase(services)).then((h) => answer(ctx, services, h));
      }
      if (Date.now() - lastCheck < 1000) return answer(ctx, services, lastHealthy);
      return checkDatabase(services).then((healthy) => answer(ctx, services, healthy));
    },
  }),
];
