import { sql } from 'kysely';
import { isDbUnavailable, isPgError, isStorageFull } from '../db/errors.ts';
import { toJsonb } from '../db/json.ts';
import { AppError } from '../errors.ts';
import { notify } from '../jobs/events.ts';
import type { JobContext } from '../jobs/job.ts';
import { RUN_LOCK, withRunLock } from '../jobs/run-lock.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { isGatherError } from '../scan-engine/artifacts.ts';
import { runScan, scanDeadlineMs } from './gather-and-score.ts';
import { missingArtifacts, partialReasons } from './partial.ts';
import { STARTING_PHASE } from './phases.ts';
import { scanTopic } from './scans.ts';

// One scans row, gathered and scored (the scan_url job). Idempotent: a re-run after a crash
// overwrites the same row. Pollers see the phase as it moves and are woken by NOTIFY at the end.

export function executeScan(ctx: JobContext, scanId: string): Promise<void> {
  // Held for the whole attempt, so a stranded-scan settle never fails a scan a worker is on.
  return withRunLock(ctx.db, RUN_LOCK.scan, scanId, () => scanUnderLock(ctx, scanId));
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
  // Pollers see each phase as it starts (a handful per scan), written in order.
  let phaseWrites: Promise<unknown> = Promise.resolve();
  const onPhase = (phase: string) => {
    phaseWrites = phaseWrites.then(() =>
      db
        .updateTable('scans')
        .set({ phase })
        .where('id', '=', scanId)
        .where('status', '=', 'running')
        .execute()
        .catch(() => {}),
    );
  };
  const onPhaseDone = (phase: string, ms: number) => {
    if (ms > config.SCAN_SLOW_PHASE_MS) log.info({ scanId, phase, ms }, 'slow scan phase');
    else log.debug({ scanId, phase, ms }, 'scan phase done');
  };

  // Artifacts and results arrive as jsonb text, written in the scoring thread (runScan's jsonb).
  const finish = async (values: {
    status: 'done' | 'failed';
    error?: object;
    artifacts?: string;
    results?: string;
    missing?: string[];
    reasons?: Record<string, string>;
  }) => {
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
  };

  try {
    const outcome = await runScan(new URL(scan.url), scan.mode, {
      policy: createUrlPolicy(config.SCAN_ALLOW_HOSTS),
      browser,
      signal: deadline,
      onPhase,
      onPhaseDone,
      log: (msg) => log.debug({ scanId }, msg),
      jsonb: true,
    });
    await phaseWrites;
    // Stopped by a shutdown: gatherers turned the abort into errors, so the outcome is incomplete.
    // It is not stored; the job fails and runs again (see the catch below).
    if (signal.aborted) throw signal.reason ?? new Error('worker shutting down');
    const page = outcome.artifacts.Page;
    if (!page || isGatherError(page)) {
      // Without the main document there is nothing to score: say why instead of scoring zeros.
      const e = page && isGatherError(page) ? page.error : { message: 'page not gathered' };
      const code = e.code === 'url_not_allowed' ? 'url_not_allowed' : 'site_unreachable';
      await finish({
        status: 'failed',
        error: { code, message: `Could not fetch ${scan.url}: ${e.message}` },
        artifacts: outcome.jsonb?.artifacts,
      });
      log.info({ scanId, url: scan.url, code }, 'scan failed: page unreachable');
      return;
    }
    const overBudget = [outcome.artifacts.Rendered, outcome.artifacts.Lighthouse].find(
      (a) => isGatherError(a) && a.error.code === 'memory_budget_exceeded',
    );
    if (overBudget && isGatherError(overBudget)) {
      // A hostile page: say so rather than score what the browser saw before it was stopped.
      await finish({
        status: 'failed',
        error: { code: 'browser_memory_budget', message: overBudget.error.message },
        artifacts: outcome.jsonb?.artifacts,
      });
      log.warn({ scanId, url: scan.url }, 'scan failed: browser memory budget exceeded');
      return;
    }
    const missing = missingArtifacts(scan.mode, outcome.artifacts);
    const reasons = partialReasons(scan.mode, outcome.artifacts);
    await finish({ status: 'done', ...outcome.jsonb, missing, reasons });
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
  } catch (thrown) {
    // An abort whose reason is an AppError is a verdict on this scan (the worker's memory budget),
    // not a shutdown: the scan fails with its code.
    const verdict = signal.aborted && signal.reason instanceof AppError ? signal.reason : undefined;
    const err = verdict ?? thrown;
    if ((signal.aborted && !verdict) || isDbUnavailable(err) || isStorageFull(err)) {
      // Shutting down, or the database went away or out of disk: this attempt fails and
      // graphile-worker runs the job again. The row goes back to `queued` (when the database lets
      // us) so nobody reads a half-done scan as running forever.
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
    await finish({ status: 'failed', error: { code, message } });
    log.warn({ scanId, err }, 'scan failed');
  }
}
