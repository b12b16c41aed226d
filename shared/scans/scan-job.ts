import { sql } from 'kysely';
import { isDbUnavailable, isPgError, isStorageFull } from '../db/errors.ts';
import { toJsonb } from '../db/json.ts';
import type { Scan } from '../db/tables/scans.ts';
import { AppError } from '../errors.ts';
import { notify } from '../jobs/events.ts';
import type { JobContext } from '../jobs/job.ts';
import { RUN_LOCK, withRunLock } from '../jobs/run-lock.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { isGatherError } from '../scan-engine/artifacts.ts';
import { runScan, type ScanOutcome, scanDeadlineMs } from './gather-and-score.ts';
import { missingArtifacts, partialReasons } from './partial.ts';
import { STARTING_PHASE } from './phases.ts';
import { scanTopic } from './scans.ts';

// One scans row, gathered and scored (the scan_url job). Idempotent: a re-run after a crash
// overwrites the same row. Pollers see the phase as it moves and are woken by NOTIFY at the end.

export function executeScan(ctx: JobContext, scanId: string): Promise<void> {
  // Held for the whole attempt, so a stranded-scan settle never fails a scan a worker is on.
  return withRunLock(ctx.db, RUN_LOCK.scan, scanId, () => scanUnderLock(ctx, scanId));
}

type Db = JobContext['db'];

/** The final write of a scan: artifacts and results arrive as jsonb text (runScan's jsonb). */
interface ScanEnd {
  status: 'done' | 'failed';
  error?: object;
  artifacts?: string;
  results?: string;
  missing?: string[];
  reasons?: Record<string, string>;
}

/** Writes the scan's end state and wakes its pollers, in one transaction. */
async function finishScan(db: Db, scanId: string, values: ScanEnd): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('scans')
      .set({
        status: values.status,
        phase: null,
        finished_at: sql<Date>`now()`,
        error: toJsonb(values.error ?? null),
        artifacts: values.artifacts ?? 'null',
        results: values.results ?? 'null',
        missing_artifacts: values.missing ?? [],
        partial_reasons: toJsonb(values.reasons ?? {}),
      })
      .where('id', '=', scanId)
      .execute();
    await notify(trx, scanTopic(scanId));
  });
}

/**
 * Phase callbacks for runScan: pollers see each phase as it starts (a handful per scan), written
 * in order while the scan is running; `written()` settles once every phase write has.
 */
function phaseWriter(ctx: JobContext, scanId: string) {
  const { db, config, log } = ctx;
  let phaseWrites: Promise<unknown> = Promise.resolve();
  return {
    onPhase: (phase: string) => {
      phaseWrites = phaseWrites.then(() =>
        db
          .updateTable('scans')
          .set({ phase })
          .where('id', '=', scanId)
          .where('status', '=', 'running')
          .execute()
          .catch(() => {}),
      );
    },
    onPhaseDone: (phase: string, ms: number) => {
      if (ms > config.SCAN_SLOW_PHASE_MS) log.info({ scanId, phase, ms }, 'slow scan phase');
      else log.debug({ scanId, phase, ms }, 'scan phase done');
    },
    written: () => phaseWrites,
  };
}

/**
 * Why a gathered scan cannot be scored, or null when it can: without the main document there is
 * nothing to score (say why instead of scoring zeros); a page over the browser's memory budget is
 * hostile (say so rather than score what the browser saw before it was stopped).
 */
function unscorable(
  outcome: ScanOutcome,
  url: string,
): { code: string; message: string; hostile: boolean } | null {
  const page = outcome.artifacts.Page;
  if (!page || isGatherError(page)) {
    const e = page && isGatherError(page) ? page.error : { message: 'page not gathered' };
    const code = e.code === 'url_not_allowed' ? 'url_not_allowed' : 'site_unreachable';
    return { code, message: `Could not fetch ${url}: ${e.message}`, hostile: false };
  }
  const overBudget = [outcome.artifacts.Rendered, outcome.artifacts.Lighthouse].find(
    (a) => isGatherError(a) && a.error.code === 'memory_budget_exceeded',
  );
  if (overBudget && isGatherError(overBudget)) {
    return { code: 'browser_memory_budget', message: overBudget.error.message, hostile: true };
  }
  return null;
}

/** Stores a gathered scan: failed when it cannot be scored, else done (partial when artifacts are missing). */
async function storeOutcome(ctx: JobContext, scan: Scan, outcome: ScanOutcome): Promise<void> {
  const { db, log } = ctx;
  const scanId = scan.id;
  const failure = unscorable(outcome, scan.url);
  if (failure) {
    const { hostile, ...error } = failure;
    await finishScan(db, scanId, { status: 'failed', error, artifacts: outcome.jsonb?.artifacts });
    if (hostile) log.warn({ scanId, url: scan.url }, 'scan failed: browser memory budget exceeded');
    else log.info({ scanId, url: scan.url, code: error.code }, 'scan failed: page unreachable');
    return;
  }
  const missing = missingArtifacts(scan.mode, outcome.artifacts);
  const reasons = partialReasons(scan.mode, outcome.artifacts);
  await finishScan(db, scanId, { status: 'done', ...outcome.jsonb, missing, reasons });
  log.debug(
    {
      scanId,
      url: scan.url,
      mode: scan.mode,
      score: outcome.results['site-audit']?.overallScore,
      ...(missing.length ? { partial: reasons } : {}),
    },
    'scan done',
  );
}

/**
 * A scan attempt that threw. Shutting down, or the database gone or out of disk: the row goes
 * back to `queued` (when the database lets us, so nobody reads a half-done scan as running
 * forever) and the error is rethrown so graphile-worker runs the job again. Anything else fails
 * the scan with a code. An abort whose reason is an AppError is a verdict on this scan (the
 * worker's memory budget), not a shutdown.
 */
async function settleThrown(
  ctx: JobContext,
  scanId: string,
  deadline: AbortSignal,
  thrown: unknown,
): Promise<void> {
  const { db, log, signal } = ctx;
  const verdict = signal.aborted && signal.reason instanceof AppError ? signal.reason : undefined;
  const err = verdict ?? thrown;
  if ((signal.aborted && !verdict) || isDbUnavailable(err) || isStorageFull(err)) {
    await db
      .updateTable('scans')
      .set({ status: 'queued', phase: null })
      .where('id', '=', scanId)
      .where('status', '=', 'running')
      .execute()
      .catch(() => {});
    throw err;
  }
  const code = err instanceof AppError ? err.code : deadline.aborted ? 'scan_timeout' : 'scan_error';
  // Database errors are logged, never stored for clients: their text can quote data and schema.
  const message = isPgError(err) ? 'The scan result could not be stored.' : (err as Error).message;
  await finishScan(db, scanId, { status: 'failed', error: { code, message } });
  log.warn({ scanId, err }, 'scan failed');
}

async function scanUnderLock(ctx: JobContext, scanId: string): Promise<void> {
  const { db, config, log, signal, browser } = ctx;
  const scan = await db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirst();
  if (!scan) return log.warn({ scanId }, 'scan row is gone; nothing to do');
  // Done, or failed (by its last attempt, or settled as stranded while no worker held the lock).
  if (scan.status === 'done' || scan.status === 'failed') return;
  await db
    .updateTable('scans')
    .set({ status: 'running', phase: STARTING_PHASE, started_at: sql<Date>`now()` })
    .where('id', '=', scanId)
    .execute();

  const deadline = AbortSignal.any([signal, AbortSignal.timeout(scanDeadlineMs(config, scan.mode))]);
  const phases = phaseWriter(ctx, scanId);
  try {
    const outcome = await runScan(new URL(scan.url), scan.mode, {
      policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
      browser,
      signal: deadline,
      onPhase: phases.onPhase,
      onPhaseDone: phases.onPhaseDone,
      log: (msg) => log.debug({ scanId }, msg),
      jsonb: true,
    });
    await phases.written();
    // Stopped by a shutdown: gatherers turned the abort into errors, so the outcome is incomplete.
    // It is not stored; the job fails and runs again (settleThrown).
    if (signal.aborted) throw signal.reason ?? new Error('worker shutting down');
    await storeOutcome(ctx, scan, outcome);
  } catch (thrown) {
    await settleThrown(ctx, scanId, deadline, thrown);
  }
}
