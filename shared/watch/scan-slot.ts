import { performance } from 'node:perf_hooks';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type { ScanMode } from '../db/tables/scans.ts';
import type { WatchScansTable } from '../db/tables/watch.ts';
import type { JobContext } from '../jobs/job.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { runScan, type ScanOutcome, scanDeadlineMs } from '../scans/gather-and-score.ts';
import { insertFinishedScan } from '../scans/scans.ts';
import { type AlertDraft, slotLogFields } from './alerts.ts';
import { type AlertOutbox, deliverPendingAlerts, type WatchSiteColumn } from './deliver.ts';
import type { PageDown } from './page-down.ts';

// One schedule slot of one watched site, whoever watches it: load the site (a site no longer
// watched is skipped), scan it with the scan engine under the scan deadline, measure the page,
// then in one transaction record the scan and the slot, compare with the scans before and decide
// and record the alerts, then send them. Idempotent per slot: the job carries the slot it serves,
// and a re-run after a crash finds the slot's row and only finishes sending what the first run
// recorded. What differs between the kinds of watched site (A monitored sites, B registered
// sites: the scoring model, the alert rules, their tables) is the kind, this pipeline's parameter.

/** A watched site as its kind loads it; the IndexNow key is checked when the site has one. */
export interface WatchedSite {
  id: string;
  account_id: string;
  url: string;
  indexnow_key?: string | null;
  indexnow_key_location?: string | null;
}

/** What a scan says of the page: its scores, or why it could not be read. */
export type Measured = { status: 'ok'; overall: number } | PageDown;

/** A kind's own columns of its watch_scans row: its scores (the pipeline sets the others). */
export type SlotColumns = Omit<
  Insertable<WatchScansTable>,
  WatchSiteColumn | 'due_at' | 'scan_id' | 'status' | 'error' | 'scan_mode'
>;

/** Everything the alert rules of one recorded slot see. */
export interface RecordedSlot<S, M, L, P> {
  site: S;
  /** The site row as the kind locked it. */
  locked: L;
  /** The scans before this one, as the kind's rules compare with them. */
  before: P;
  measured: M;
  scan: { id: string; scannedAt: Date };
}

export interface Raised {
  alerts: AlertDraft[];
  /** The alerts were recorded with nowhere to send them (kept for the status page only). */
  unsent: boolean;
}

/** What one kind of watched site gives the pipeline. */
export interface WatchKind<S extends WatchedSite, M extends Measured, L, P> {
  /** Names the slot in logs ("<name> recorded"). */
  name: string;
  /** The log line of a slot whose site is no longer watched. */
  skipped: string;
  outbox: AlertOutbox;
  /** The site when it is still watched. */
  load(db: Kysely<Database>, siteId: string): Promise<S | undefined>;
  mode(config: Config): ScanMode;
  /** The scoring models the scan runs (checks run once for all of them). */
  models: readonly string[];
  measure(outcome: ScanOutcome): M;
  /** Locks the site row (one writer per site: the rules read the scans before); undefined when gone. */
  lock(trx: Transaction<Database>, site: S): Promise<L | undefined>;
  /** The scans the rules compare with, read before this one is stored. */
  before(trx: Transaction<Database>, site: S, mode: ScanMode): Promise<P>;
  columns(trx: Transaction<Database>, slot: { site: S; measured: M }): Promise<SlotColumns>;
  /** Decides and records the slot's alerts and the site's own updates, in the slot's transaction. */
  raise(trx: Transaction<Database>, slot: RecordedSlot<S, M, L, P>): Promise<Raised>;
  /** Counts a recorded slot in the kind's metrics. */
  counted(site: S, measured: M): void;
}

export interface Slot {
  siteId: string;
  dueAt: Date;
}

export async function scanSlot<S extends WatchedSite, M extends Measured, L, P>(
  deps: JobContext,
  kind: WatchKind<S, M, L, P>,
  slot: Slot,
): Promise<'scanned' | 'already_scanned' | 'skipped'> {
  const { db, config, log } = deps;
  const site = await kind.load(db, slot.siteId);
  if (!site) {
    log.info({ siteId: slot.siteId }, kind.skipped);
    return 'skipped';
  }
  if (await slotRecorded(db, kind.outbox.site, site.id, slot.dueAt)) {
    await deliverPendingAlerts(deps, kind.outbox, site.id); // a re-run finishes what the first recorded
    return 'already_scanned';
  }
  const mode = kind.mode(config);
  const started = performance.now();
  const outcome = await scanSite(deps, kind, site, mode);
  const measured = kind.measure(outcome);
  const raised = await recordSlot(db, kind, {
    site,
    dueAt: slot.dueAt,
    mode,
    elapsedMs: performance.now() - started,
    outcome,
    measured,
  });
  if (!raised) return 'already_scanned';
  kind.counted(site, measured);
  if (raised.unsent) for (const a of raised.alerts) kind.outbox.counted(a.type, 'no_webhook');
  log.info(slotLogFields(site, measured, raised.alerts), `${kind.name} recorded`);
  await deliverPendingAlerts(deps, kind.outbox, site.id);
  return 'scanned';
}

async function slotRecorded(db: Kysely<Database>, column: WatchSiteColumn, siteId: string, dueAt: Date) {
  const row = await db
    .selectFrom('watch_scans')
    .select('id')
    .where(column, '=', siteId)
    .where('due_at', '=', dueAt)
    .executeTakeFirst();
  return row !== undefined;
}

/** The scan engine on the site, under the scan deadline, scored with the kind's models. */
async function scanSite<S extends WatchedSite>(
  deps: JobContext,
  kind: { models: readonly string[] },
  site: S,
  mode: ScanMode,
): Promise<ScanOutcome> {
  const { config, log } = deps;
  const deadline = AbortSignal.any([deps.signal, AbortSignal.timeout(scanDeadlineMs(config, mode))]);
  const outcome = await runScan(new URL(site.url), mode, {
    policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
    browser: deps.browser,
    signal: deadline,
    log: (msg) => log.debug({ siteId: site.id }, msg),
    indexnow: site.indexnow_key
      ? { key: site.indexnow_key, keyLocation: site.indexnow_key_location ?? null }
      : undefined,
    models: [...kind.models],
  });
  if (deps.signal.aborted) throw new Error('worker shutting down: the scan is left to the retry');
  return outcome;
}

/** Lost the slot to another run: the whole recording rolls back, leaving no orphan scan row. */
class SlotTaken extends Error {}

/**
 * Records one slot in one transaction: the scan (artifacts and every model's results, for the
 * other views), the slot's watch_scans row, its alerts and the kind's updates of the site.
 * Undefined when another run recorded the slot first.
 */
async function recordSlot<S extends WatchedSite, M extends Measured, L, P>(
  db: Kysely<Database>,
  kind: WatchKind<S, M, L, P>,
  input: { site: S; dueAt: Date; mode: ScanMode; elapsedMs: number; outcome: ScanOutcome; measured: M },
): Promise<Raised | undefined> {
  const { site, measured, mode } = input;
  const column = kind.outbox.site;
  const error = measured.status === 'down' ? { code: measured.code, message: measured.reason } : null;
  try {
    return await db.transaction().execute(async (trx) => {
      // A second run for the same slot waits at the lock, then finds the slot taken.
      const locked = await kind.lock(trx, site);
      if (locked === undefined) return undefined;
      if (await slotRecorded(trx, column, site.id, input.dueAt)) return undefined;
      const before = await kind.before(trx, site, mode); // read before this scan is stored
      const { id: scanId } = await insertFinishedScan(trx, {
        url: site.url,
        mode,
        accountId: site.account_id,
        elapsedMs: input.elapsedMs,
        error,
        artifacts: input.outcome.artifacts,
        results: input.outcome.results,
      });
      const scan = await trx
        .insertInto('watch_scans')
        .values({
          ...(await kind.columns(trx, { site, measured })),
          [column]: site.id,
          due_at: input.dueAt,
          scan_id: scanId,
          status: measured.status,
          error: toJsonb(error),
          scan_mode: mode,
        })
        .onConflict((oc) => oc.columns([column, 'due_at']).doNothing())
        .returning(['id', 'scanned_at'])
        .executeTakeFirst();
      if (!scan) throw new SlotTaken();
      return kind.raise(trx, {
        site,
        locked,
        before,
        measured,
        scan: { id: scan.id, scannedAt: scan.scanned_at },
      });
    });
  } catch (err) {
    if (err instanceof SlotTaken) return undefined;
    throw err;
  }
}
