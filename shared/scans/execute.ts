import { sql } from 'kysely';
import { AppError } from '../errors.ts';
import { notify } from '../jobs/events.ts';
import type { JobContext } from '../jobs/job.ts';
import { createUrlPolicy } from '../net/url-policy.ts';
import { isGatherError } from '../scan/artifacts.ts';
import { runScan } from './run-scan.ts';
import { scanTopic } from './scans.ts';

// One scans row, gathered and scored (the scan_url job). Idempotent: a re-run after a crash
// overwrites the same row. Pollers see the phase as it moves and are woken by NOTIFY at the end.

export async function executeScan(ctx: JobContext, scanId: string): Promise<void> {
  const { db, config, log, signal, browser } = ctx;
  const scan = await db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirst();
  if (!scan) return log.warn({ scanId }, 'scan row is gone; nothing to do');
  if (scan.status === 'done') return;
  await db
    .updateTable('scans')
    .set({ status: 'running', phase: 'starting', started_at: sql<Date>`now()` })
    .where('id', '=', scanId)
    .execute();

  const deadlineMs = scan.mode === 'full' ? config.SCAN_FULL_DEADLINE_MS : config.SCAN_QUICK_DEADLINE_MS;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(deadlineMs)]);
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

  const finish = async (values: {
    status: 'done' | 'failed';
    error?: object;
    artifacts?: object;
    results?: object;
  }) => {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('scans')
        .set({
          status: values.status,
          phase: null,
          finished_at: sql<Date>`now()`,
          error: JSON.stringify(values.error ?? null),
          artifacts: JSON.stringify(values.artifacts ?? null),
          results: JSON.stringify(values.results ?? null),
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
    });
    await phaseWrites;
    const page = outcome.artifacts.Page;
    if (!page || isGatherError(page)) {
      // Without the main document there is nothing to score: say why instead of scoring zeros.
      const e = page && isGatherError(page) ? page.error : { message: 'page not gathered' };
      const code = e.code === 'url_not_allowed' ? 'url_not_allowed' : 'site_unreachable';
      await finish({
        status: 'failed',
        error: { code, message: `Could not fetch ${scan.url}: ${e.message}` },
        artifacts: outcome.artifacts,
      });
      log.info({ scanId, url: scan.url, code }, 'scan failed: page unreachable');
      return;
    }
    await finish({ status: 'done', artifacts: outcome.artifacts, results: outcome.results });
    log.debug(
      { scanId, url: scan.url, mode: scan.mode, score: outcome.results['site-audit']?.overallScore },
      'scan done',
    );
  } catch (err) {
    if (signal.aborted) throw err; // shutting down: leave it to the retry
    const code = err instanceof AppError ? err.code : deadline.aborted ? 'scan_timeout' : 'scan_error';
    await finish({ status: 'failed', error: { code, message: (err as Error).message } });
    log.warn({ scanId, err }, 'scan failed');
  }
}
