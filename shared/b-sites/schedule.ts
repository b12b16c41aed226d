import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { jobsAdded } from '../metrics.ts';
import { type ClaimCounts, type FanoutOptions, type FanoutResult, fanOut } from '../watch/schedule.ts';
import { defineSlotJob } from '../watch/slot-job.ts';

// The weekly scheduler of registered B sites (interface.md: Mondays 03:00 UTC), built like the
// monitoring fan-out: due-ness is row state (b_site_schedules.next_scan_due_at), so a run claims
// what is due now however many cron ticks, or Mondays, were missed, and moves each row to the
// next Monday after now in the same statement: a missed tick catches up once, never twice.
// Claim and enqueue are one statement (watch_slot_jobs, sql/functions/watch.sql), so a crash
// loses neither.
// Every due site moves on; only sites of optimisation-tier B accounts get a job (scheduled
// monitoring is an optimisation feature, decisions.md), so an upgrade takes effect next Monday.

/** The b_site_scan job: one weekly scan of one registered site for one Monday slot. */
export const bSiteScanJob = defineSlotJob('b_site_scan');
export const B_SITE_SCAN_TASK = bSiteScanJob.name;
export const B_SITE_SCAN_ATTEMPTS = 3;
/** Below interactive work (priority 0), like monitor scans: a Monday backlog never delays an API scan. */
export const B_SITE_SCAN_PRIORITY = 10;
/** One pending weekly scan per site: a newer claim replaces a job that has not started. */
export const B_SITE_JOB_KEY_PREFIX = 'b_site_scan:';

/** Claims due registered sites in batches and enqueues b_site_scan jobs (watch/schedule.ts). */
export function fanOutBSites(db: Kysely<Database>, opts: FanoutOptions): Promise<FanoutResult> {
  return fanOut((asOf, batch) => claimDueBSites(db, asOf, batch), opts);
}

/** One batch: every due row moves on; sites of optimisation-tier accounts get a job. */
async function claimDueBSites(db: Kysely<Database>, asOf: Date | null, batch: number): Promise<ClaimCounts> {
  const { rows } = await sql<{ claimed: number; added: number }>`
    with due as (
      select d.site_id, d.next_scan_due_at as due_at
        from b_site_schedules d
       where d.next_scan_due_at <= coalesce(${asOf}::timestamptz, now())
       order by d.next_scan_due_at
       limit ${batch}
         for update of d skip locked
    ), claimed as (
      update b_site_schedules d
         set next_scan_due_at = b_sites_next_slot(coalesce(${asOf}::timestamptz, now()))
        from due
       where d.site_id = due.site_id
      returning d.site_id, due.due_at
    ), eligible as (
      select c.site_id, c.due_at
        from claimed c
        join agent_sites s on s.id = c.site_id
        join accounts a on a.id = s.account_id
       where a.variant = 'B' and a.tier = 'optimisation'
    )
    select (select count(*)::int from claimed) as claimed,
           watch_slot_jobs(${B_SITE_SCAN_TASK}::text, ${B_SITE_SCAN_ATTEMPTS}::int, ${B_SITE_JOB_KEY_PREFIX}::text,
                           ${B_SITE_SCAN_PRIORITY}::int, array_agg(e.site_id), array_agg(e.due_at)) as added
      from eligible e`.execute(db);
  const added = rows[0]?.added ?? 0;
  if (added) jobsAdded.inc({ task: B_SITE_SCAN_TASK }, added);
  return { claimed: rows[0]?.claimed ?? 0, added };
}
