import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { jobsAdded } from '../metrics.ts';
import { GEO_RUN_ATTEMPTS, GEO_RUN_PRIORITY, GEO_RUN_TASK } from './jobs.ts';

// The Sunday schedule (worker/crontab): a visibility run for every active own site of every
// active Growth/Agency subscription that has prompts, fanned out like monitoring: each batch is
// ONE statement that inserts the runs (one per site and Sunday: a unique index makes a re-run of
// the fan-out find them instead of asking again) and enqueues their jobs with one bulk add_jobs,
// so a crash loses neither. Budget and deadlines are the runs' own business.

export interface GeoFanoutOptions {
  batch: number;
  providers: string[];
  runsPerPrompt: number;
  /** The Sunday served (YYYY-MM-DD); by default the current UTC date of the database clock. */
  slot?: string;
  signal?: AbortSignal;
}

export async function fanOutGeoRuns(
  db: Kysely<Database>,
  opts: GeoFanoutOptions,
): Promise<{ scheduled: number }> {
  if (opts.providers.length === 0) return { scheduled: 0 };
  let scheduled = 0;
  while (!opts.signal?.aborted) {
    const { rows } = await sql<{ n: number }>`
      with slot as (
        select coalesce(${opts.slot ?? null}::date, (now() at time zone 'utc')::date) as d
      ), due as (
        select m.id as site_id, m.account_id, m.url, m.label
          from monitored_sites m
          join subscriptions s on s.account_id = m.account_id and s.status = 'active'
                              and s.plan in ('growth', 'agency')
         where m.status = 'active' and m.site_type = 'own'
           and exists (select 1 from geo_prompts p where p.account_id = m.account_id)
           and not exists (select 1 from geo_runs r, slot
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
               array_agg(row(
                 ${GEO_RUN_TASK}::text,
                 json_build_object('runId', i.id),
                 null::text, null::timestamptz,
                 ${GEO_RUN_ATTEMPTS}::int,
                 'geo_run:' || i.id,
                 ${GEO_RUN_PRIORITY}::int,
                 null::text[]
               )::graphile_worker.job_spec) as a
          from inserted i
      )
      select n, (select count(*)::int from graphile_worker.add_jobs(a)) as added from specs where n > 0`.execute(
      db,
    );
    const n = rows[0]?.n ?? 0;
    if (n === 0) break;
    scheduled += n;
    jobsAdded.inc({ task: GEO_RUN_TASK }, n);
    if (n < opts.batch) break;
  }
  return { scheduled };
}
