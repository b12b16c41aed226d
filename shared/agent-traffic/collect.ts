import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import { authenticate, bearerToken } from '../accounts/auth.ts';
import { isIngestToken, siteByIngestToken, siteByTrackingId } from '../agent-sites/sites.ts';
import type { Verifier } from '../agent-verification/verify.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { type AppError, notFound, unauthorized, variantMismatch } from '../errors.ts';
import { createVerifier, type IngestRequest } from './ingest.ts';

// POST /api/v1/collect: who may post (the site's ingest token, or a B key of the site's account)
// and how an item becomes an IngestRequest.

export type CollectAuth =
  | { ok: true; site: AgentSite; via: 'ingest_token' | 'key' }
  | { ok: false; error: AppError };

export async function authorizeCollect(
  db: Kysely<Database>,
  header: string | undefined,
  trackingId: string,
): Promise<CollectAuth> {
  const token = bearerToken(header);
  if (token === undefined)
    return { ok: false, error: unauthorized('Send Authorization: Bearer <ingest token or API key>.') };
  if (isIngestToken(token)) {
    const site = await siteByIngestToken(db, token);
    if (!site) return { ok: false, error: unauthorized('The ingest token is not valid.') };
    if (site.tracking_id !== trackingId)
      return { ok: false, error: notFound(`This ingest token does not belong to site ${trackingId}.`) };
    return { ok: true, site, via: 'ingest_token' };
  }
  const auth = await authenticate(db, header);
  if (!auth.ok)
    return {
      ok: false,
      error: unauthorized(
        auth.reason === 'revoked'
          ? 'This API key has been revoked.'
          : 'The API key or ingest token is not valid.',
      ),
    };
  if (auth.principal.variant !== 'B')
    return {
      ok: false,
      error: variantMismatch(
        'This endpoint belongs to variant B (agent readability); your key is a variant A (site audit) key.',
      ),
    };
  const site = await siteByTrackingId(db, trackingId);
  if (!site || site.account_id !== auth.principal.accountId)
    return { ok: false, error: notFound(`No site ${trackingId} for this account.`) };
  return { ok: true, site, via: 'key' };
}

export interface CollectItem {
  time: string | number;
  method: string;
  path: string;
  status?: number | null;
  ip: string;
  user_agent: string;
  referer?: string | null;
  headers?: Record<string, string>;
}

export const validIp = (s: string) => isIP(s) !== 0;

/**
 * The earliest time an agent event can carry (collect refuses older items; an import keeps
 * nothing past AGENT_EVENTS_RETENTION_DAYS): also the earliest `since` of the statistics windows.
 */
export const EARLIEST_EVENT_MS = Date.UTC(2000, 0, 1);

/** Path and query of a path or absolute URL. */
export function requestPath(p: string): string {
  if (p.startsWith('/')) return p;
  const u = new URL(p);
  return u.pathname + u.search;
}

export function toIngestRequest(item: CollectItem): IngestRequest {
  const time = new Date(item.time);
  const path = requestPath(item.path);
  const headers = item.headers
    ? Object.fromEntries(Object.entries(item.headers).map(([k, v]) => [k.toLowerCase(), v]))
    : undefined;
  const method = item.method.toUpperCase();
  const status = item.status ?? null;
  const referer = item.referer ?? null;
  return {
    time,
    method,
    path,
    status,
    ip: item.ip,
    userAgent: item.user_agent,
    referer,
    headers,
    // The same request posted again (a retried batch) hashes the same and is stored once.
    hash: JSON.stringify([time.toISOString(), method, path, status, item.ip, item.user_agent, referer]),
  };
}

let shared: { config: Config; verifier: Verifier } | undefined;
/** One verifier per process (its caches are the point). */
export function processVerifier(config: Config): Verifier {
  if (shared?.config !== config) shared = { config, verifier: createVerifier(config) };
  return shared.verifier;
}
