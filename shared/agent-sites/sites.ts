import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { normalizeTargetUrl } from '../net/url-policy.ts';

// Registered sites (variant B). An operator (CLI) or the account console registers them; each
// gets a public tracking id (`site_…`, names the site in collect batches) and a secret ingest
// token (`sit_…`, shown once, stored as a SHA-256 like API keys).

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      const v = b & 63;
      if (v < 62 && out.length < length) out += ALPHABET[v];
    }
  }
  return out;
}

export const TRACKING_PREFIX = 'site_';
export const INGEST_TOKEN_PREFIX = 'sit_';
const INGEST_TOKEN_RE = /^sit_[0-9A-Za-z]{40}$/;

export const hashIngestToken = (token: string) => createHash('sha256').update(token).digest();
export const isIngestToken = (token: string) => INGEST_TOKEN_RE.test(token);

export interface RegisteredSite {
  site: AgentSite;
  /** Shown once. */
  ingestToken: string;
}

export async function registerSite(
  db: Kysely<Database>,
  input: { accountId: string | number; url: string; label?: string | null },
): Promise<RegisteredSite> {
  const url = normalizeTargetUrl(input.url);
  const label = (input.label ?? '').trim() || url.hostname;
  if (label.length > 200)
    throw badRequest('The label is longer than 200 characters.', [
      { field: 'label', message: 'at most 200 characters' },
    ]);
  const account = await db
    .selectFrom('accounts')
    .select(['id', 'variant'])
    .where('id', '=', String(input.accountId))
    .executeTakeFirst();
  if (!account) throw notFound(`No account ${input.accountId}.`);
  if (account.variant !== 'B')
    throw new AppError(
      400,
      'variant_mismatch',
      'Wrong variant',
      'Agent-traffic sites belong to variant B accounts.',
    );
  const ingestToken = `${INGEST_TOKEN_PREFIX}${base62(40)}`;
  const site = await db
    .insertInto('agent_sites')
    .values({
      account_id: String(input.accountId),
      tracking_id: `${TRACKING_PREFIX}${base62(16)}`,
      url: url.toString(),
      domain: url.hostname,
      label,
      ingest_token_hash: hashIngestToken(ingestToken),
      ingest_token_prefix: ingestToken.slice(0, INGEST_TOKEN_PREFIX.length + 6),
    })
    .onConflict((oc) => oc.columns(['account_id', 'url']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!site)
    throw new AppError(
      409,
      'site_exists',
      'Site already registered',
      `${url} is already registered for this account.`,
    );
  return { site, ingestToken };
}

export async function listSites(db: Kysely<Database>, accountId: string | number): Promise<AgentSite[]> {
  return db
    .selectFrom('agent_sites')
    .selectAll()
    .where('account_id', '=', String(accountId))
    .orderBy('id')
    .execute();
}

/** `siteId` is the numeric id or the tracking id. Another account's site is 404, like a missing one. */
export async function getSite(
  db: Kysely<Database>,
  accountId: string | number,
  siteId: string | number,
): Promise<AgentSite> {
  const id = String(siteId);
  let q = db.selectFrom('agent_sites').selectAll().where('account_id', '=', String(accountId));
  if (/^\d{1,18}$/.test(id)) q = q.where('id', '=', id);
  else if (id.startsWith(TRACKING_PREFIX)) q = q.where('tracking_id', '=', id);
  else throw notFound(`No site ${id}.`);
  const site = await q.executeTakeFirst();
  if (!site) throw notFound(`No site ${id}.`);
  return site;
}

/** Deletes the site with its events, rollups, referrals and coverage. */
export async function removeSite(
  db: Kysely<Database>,
  accountId: string | number,
  siteId: string | number,
): Promise<void> {
  const site = await getSite(db, accountId, siteId);
  await db.transaction().execute(async (trx) => {
    for (const table of [
      'agent_events',
      // Pending page counts before the rollups: a fold under way holds them, so this waits for it
      // and the deletes below then see what it folded.
      'agent_page_pending',
      'agent_rollups',
      'agent_daily_rollups',
      'agent_page_rollups',
      'agent_path_rollups',
      'agent_path_blocks',
      'ai_referrals',
      'ai_referral_rollups',
      'agent_coverage',
    ] as const)
      await trx.deleteFrom(table).where('site_id', '=', site.id).execute();
    await trx.deleteFrom('agent_sites').where('id', '=', site.id).execute();
  });
}

/** The site an ingest token belongs to, or undefined. */
export async function siteByIngestToken(db: Kysely<Database>, token: string): Promise<AgentSite | undefined> {
  if (!isIngestToken(token)) return undefined;
  return db
    .selectFrom('agent_sites')
    .selectAll()
    .where('ingest_token_hash', '=', hashIngestToken(token))
    .executeTakeFirst();
}

export async function siteByTrackingId(
  db: Kysely<Database>,
  trackingId: string,
): Promise<AgentSite | undefined> {
  return db.selectFrom('agent_sites').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();
}

export interface SiteScanSummary {
  lastScanAt: Date | null;
  overallScore: number | null;
  grade: string | null;
  scanId: string | null;
}

/** The newest finished agent-readability scan of each site's URL (any account's scan of that URL counts). */
export async function latestScans(
  db: Kysely<Database>,
  sites: AgentSite[],
): Promise<Map<string, SiteScanSummary>> {
  const out = new Map<string, SiteScanSummary>();
  if (sites.length === 0) return out;
  const urls = [...new Set(sites.map((s) => s.url))];
  const { rows } = await sql<{
    url: string;
    id: string;
    finished_at: Date;
    score: number | null;
    grade: string | null;
  }>`
    select distinct on (url) url, id, finished_at,
      (results -> 'agent-readability' ->> 'overallScore')::int as score,
      results -> 'agent-readability' ->> 'grade' as grade
    from scans
    where url = any(${urls}::text[]) and status = 'done' and results ? 'agent-readability'
    order by url, finished_at desc`.execute(db);
  const byUrl = new Map(rows.map((r) => [r.url, r]));
  for (const s of sites) {
    const r = byUrl.get(s.url);
    out.set(s.id, {
      lastScanAt: r?.finished_at ?? null,
      overallScore: r?.score ?? null,
      grade: r?.grade ?? null,
      scanId: r?.id ?? null,
    });
  }
  return out;
}

/** Operator look-up (CLI): by numeric id or tracking id, any account. */
export async function siteByIdOrTracking(db: Kysely<Database>, idOrTracking: string): Promise<AgentSite> {
  let q = db.selectFrom('agent_sites').selectAll();
  if (/^\d{1,18}$/.test(idOrTracking)) q = q.where('id', '=', idOrTracking);
  else q = q.where('tracking_id', '=', idOrTracking);
  const site = await q.executeTakeFirst();
  if (!site) throw notFound(`No site ${idOrTracking}.`);
  return site;
}
