import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { jobsAdded, monitorFanoutDuration, monitorScansScheduled, monitorSitesDue } from '../metrics.ts';
import { type ClaimCounts, type FanoutOptions, type FanoutResult, fanOut } from '../watch/schedule.ts';
import {
  MONITOR_JOB_KEY_PREFIX,
  MONITOR_SCAN_ATTEMPTS,
  MONITOR_SCAN_PRIORITY,
  MONITOR_SCAN_TASK,
} from './jobs.ts';

// The scheduler. Due-ness is row state (next_scan_due_at), so a run claims what is due now
// however many cron ticks were missed: after a day of downtime every site runs once, not once per
// missed tick. Each batch is ONE statement: claim due rows (skip those another fan-out holds),
// move each to its next slot (monitor_next_due: a fixed per-site phase spreads sites over the
// period), and enqueue their jobs (watch_slot_jobs, sql/functions/watch.sql). The period comes
// from the subscription row the claim share-locks: a plan change in flight holds that row, so its
// sites are skipped until it commits, and one committed meanwhile is re-read at the lock, never
// rescheduled on the period it replaced. Claim and enqueue commit together, so a crash loses
// neither. next_scan_due_at is in no index (sql/014), so the reschedule is a HOT update in place:
// the claim scans the table, and no index is rewritten.

export const PERIOD_SECONDS = { daily: 86_400, weekly: 604_800 } as const;

/** Claims due monitored sites in batches and enqueues their monitor_scan jobs (watch/schedule.ts). */
export async function fanOutDueSites(db: Kysely<Database>, opts: FanoutOptions): Promise<FanoutResult> {
  const end = monitorFanoutDuration.startTimer();
  try {
    const result = await fanOut((asOf, batch) => claimDueSites(db, asOf, batch), opts);
    monitorSitesDue.set(result.claimed);
    return result;
  } finally {
    end();
  }
}

/** One batch: claim, reschedule and enqueue in one statement. */
async function claimDueSites(db: Kysely<Database>, asOf: Date | null, batch: number): Promise<ClaimCounts> {
  const { rows } = await sql<{ claimed: number; added: number }>`
    with due as (
      select m.id, m.next_scan_due_at as due_at,
             case s.scan_frequency when 'daily' then ${PERIOD_SECONDS.daily}::bigint
                                   else ${PERIOD_SECONDS.weekly}::bigint end as period
        from monitored_sites m
        join subscriptions s on s.account_id = m.account_id and s.status = 'active'
       where m.status = 'active'
         and m.next_scan_due_at <= coalesce(${asOf}::timestamptz, now())
       order by m.next_scan_due_at
       limit ${batch}
         for update of m skip locked
         for share of s skip locked
    ), claimed as (
      update monitored_sites m
         set next_scan_due_at = monitor_next_due(m.id, due.period, coalesce(${asOf}::timestamptz, now()))
        from due
       where m.id = due.id
      returning m.id, due.due_at
    )
    select count(*)::int as claimed,
           watch_slot_jobs(${MONITOR_SCAN_TASK}::text, ${MONITOR_SCAN_ATTEMPTS}::int, ${MONITOR_JOB_KEY_PREFIX}::text,
                           ${MONITOR_SCAN_PRIORITY}::int, array_agg(c.id), array_agg(c.due_at)) as added
      from claimed c`.execute(db);
  const claimed = rows[0]?.claimed ?? 0;
  if (claimed > 0) {
    monitorScansScheduled.inc(claimed);
    jobsAdded.inc({ task: MONITOR_SCAN_TASK }, claimed);
  }
  return { claimed, added: rows[0]?.added ?? 0 };
}
