import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { jobsAdded } from '../metrics.ts';
import { GEO_RUN_ATTEMPTS, GEO_RUN_PRIORITY, GEO_RUN_TASK } from './jobs.ts';

// The Sunday schedule (worker/crontab): a visibility run for every active own site of every
// active Growth/Agency subscription that has prompts, fanned out like monitoring: each batch is
// ONE statement that inserts the runs (one per site and Sunday: a unique index makes a re-run of
// the fan-out find them instead of asking again) and enqueues their jobs with one bulk add_jobs,
// so a crash loses neither. Budget and deadlines are the runs' own business.
//
// The cron runs every few minutes, not once at 04:00: graphile-worker does not backfill missed
// ticks, so workers down at 04:00 (or a failed fan-out) would lose the week. Each tick serves the
// most recent Sunday 04:00 UTC at or before its clock, as a one-off tick at 04:00 would have: a
// site or an account's first prompt added after that moment waits for the next Sunday. Once a
// fan-out has gone through every due site the Sunday is marked done (geo_schedule_slots), so the
// rest of the week's ticks cost one primary-key lookup.

export interface GeoFanoutOptions {
  batch: number;
  providers: string[];
  runsPerPrompt: number;
  /** Tests drive the schedule with this; in production the database clock decides. */
  asOf?: Date;
  signal?: AbortSignal;
}

export interface GeoFanoutResult {
  /** Runs created (with their jobs). */
  scheduled: number;
  /** The Sunday served (YYYY-MM-DD); null when no answer engine is configured. */
  slot: string | null;
  /** Batch statements run: 0 when the Sunday was already done. */
  batches: number;
}

export async function fanOutGeoRuns(db: Kysely<Database>, opts: GeoFanoutOptions): Promise<GeoFanoutResult> {
  if (opts.providers.length === 0) return { scheduled: 0, slot: null, batches: 0 };
  const probe = await sql<{ slot: string; done: boolean }>`
    select s.slot::text as slot, exists (select 1 from geo_schedule_slots g where g.slot = s.slot) as done
      from (select geo_schedule_slot(coalesce(${opts.asOf ?? null}::timestamptz, now())) as slot) s`.execute(
    db,
  );
  const { slot, done } = probe.rows[0]!;
  let scheduled = 0;
  let batches = 0;
  let complete = done;
  while (!complete && !opts.signal?.aborted) {
    const { rows } = await sql<{ due: number; n: number }>`
      with slot as (
        select ${slot}::date as d, (${slot}::date + time '04:00') at time zone 'UTC' as at
      ), due as (
        select m.id as site_id, m.account_id, m.url, m.label
          from monitored_sites m
          join subscriptions s on s.account_id = m.account_id and s.status = 'active'
                              and s.plan in ('growth', 'agency')
         cross join slot
         where m.status = 'active' and m.site_type = 'own'
           -- Only what existed at the Sunday's 04:00: a late tick schedules what a punctual one would have.
           and m.created_at <= slot.at
           and exists (select 1 from geo_prompts p where p.account_id = m.account_id and p.created_at <= slot.at)
           and not exists (select 1 from geo_runs r
                            where r.site_id = m.id and r.kind = 'visibility' and r.schedule_slot = slot.d)
         order by m.id
         limit ${opts.batch}
      ), inserted as (
        insert into geo_runs (id, account_id, site_id, kind, trigger, providers, runs_per_prompt, sites, schedule_slot)
        select 'gr_' || substr(md5(random()::text || clock_timestamp()::text || due.site_id::text), 1, 24),
               due.account_id, due.site_id, 'visibility', 'schedule', ${opts.providers}::text[], ${opts.runsPerPrompt}::int,
               jsonb_build_array(jsonb_build_object('id', due.site_id, 'url', due.url, 'label', due.label, 'isOwn', true)),
               slot.d
          from due, slot
        on conflict do nothing
        returning id
      ), specs as (
        select count(*)::int as n,
               coalesce(array_agg(row(
                 ${GEO_RUN_TASK}::text,
                 json_build_object('runId', i.id),
                 null::text, null::timestamptz,
                 ${GEO_RUN_ATTEMPTS}::int,
                 'geo_run:' || i.id,
                 ${GEO_RUN_PRIORITY}::int,
                 null::text[]
               )::graphile_worker.job_spec), '{}') as a
          from inserted i
      )
      select (select count(*)::int from due) as due,
             n, case when n > 0 then (select count(*)::int from graphile_worker.add_jobs(a)) else 0 end as added
        from specs`.execute(db);
    batches++;
    const due = rows[0]?.due ?? 0;
    const n = rows[0]?.n ?? 0;
    scheduled += n;
    if (n) jobsAdded.inc({ task: GEO_RUN_TASK }, n);
    // Done when nothing is due, or the last batch took every due site. A site that lost the race to
    // a concurrent fan-out (n < due) is looked at again: that fan-out may yet roll back.
    complete = due === 0 || (due < opts.batch && n === due);
  }
  if (complete && !done) {
    await sql`insert into geo_schedule_slots (slot) values (${slot}::date) on conflict do nothing`.execute(
      db,
    );
  }
  return { scheduled, slot, batches };
}
