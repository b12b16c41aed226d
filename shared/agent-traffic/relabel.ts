import { type Kysely, sql, type Transaction } from 'kysely';
import { catalogueVersionInUse } from '../agent-catalogue/classify.ts';
import { classifyVisit } from '../agent-catalogue/classify-visit.ts';
import { refreshCatalogue } from '../agent-catalogue/watch.ts';
import { refreshVerificationSources } from '../agent-verification/sources-sync.ts';
import { CONFIDENCE, type Verifier, verifyWithoutRdns } from '../agent-verification/verify.ts';
import type { Database } from '../db/database.ts';
import { addJob } from '../jobs/queue.ts';
import { foldPages } from './page-rollups.ts';
import { rollupDeltaCtes } from './rollup-deltas.ts';
import { requestVerification } from './verify-pending.ts';

// History follows the catalogue: the stored events of the retention window are labelled again
// (platform, agent, type) with the classifier in use, and their rollups moved with them, so the
// statistics never mix two catalogues. Each distinct user agent is classified once (its labels are
// kept per run in agent_relabel_labels); the window is then walked one (site, UTC day) at a time,
// and each day's events, their hourly and daily rollups, their page counts (through
// agent_page_pending) and the run's progress change in one transaction. A run that dies continues
// after the last day it finished; a finished run leaves nothing to change, so running it again
// changes nothing.
//
// Only user agents the classifier names as agents are relabelled: events stored for another
// reason (a browser's visit proved by a Web Bot Auth signature, named by its signer) keep their
// labels. An event whose name changes is verified again as the new name calls for (its vendor's IP
// ranges, or `pending` for reverse DNS, which verify_agent_visits settles): a bot first stored
// unrecognised and later named GPTBot is checked against OpenAI's ranges like a new visit. A Web
// Bot Auth signature proved the request itself and stays.

export const RELABEL_TASK = 'relabel_agent_events';

export type RelabelClassifier = (ua: string) => {
  isAi: boolean;
  agent?: string;
  platform: string | null;
  type: string | null;
  confidence: number;
};

export interface RelabelProgress {
  run: string;
  userAgents: number;
  total: number;
  done: number;
  changed: number;
}

export interface RelabelOptions {
  /** The classifier in use (the process's catalogue); the default is the one ingestion uses. */
  classify?: RelabelClassifier;
  /** The catalogue version `classify` stands for: a run of another version is not resumed. */
  catalogue?: string;
  /** AGENT_EVENTS_RETENTION_DAYS: events older than this are past relabelling (null: all). */
  retentionDays: number | null;
  /** Checks an event again under its new name, as ingestion does (createVerifier). */
  verifier: Verifier;
  onProgress?: (p: RelabelProgress) => void;
  signal?: AbortSignal;
}

export interface RelabelSummary extends RelabelProgress {
  resumed: boolean;
  finished: boolean;
  /** Of the user agents classified, those whose label is an agent's (the others are left alone). */
  labelled: number;
}

interface Run {
  id: string;
  catalogue: string;
  since: Date;
  user_agents: number;
  total_events: string;
  done_events: string;
  changed_events: string;
  cursor_site: string | null;
  cursor_day: string | null;
}

/** Queues one relabelling run (a catalogue change calls this); a queued run is replaced, runs never overlap. */
export async function enqueueRelabel(db: Kysely<Database> | Transaction<Database>): Promise<{ id: string }> {
  return addJob(
    db,
    RELABEL_TASK,
    {},
    { jobKey: RELABEL_TASK, jobKeyMode: 'replace', queueName: RELABEL_TASK },
  );
}

/** The version of the catalogue the process classifies with: what the default classifier stands for. */
export const catalogueVersion = (): string => catalogueVersionInUse();

/** Relabels the retention window's events, resuming an unfinished run of the same catalogue. */
export async function relabelAgentEvents(
  db: Kysely<Database>,
  opts: RelabelOptions,
): Promise<RelabelSummary> {
  // The default classifier labels with the database's catalogue as it is now.
  if (!opts.classify) await refreshCatalogue(db);
  const classify = opts.classify ?? classifyVisit;
  const catalogue = opts.catalogue ?? catalogueVersion();
  const { run, resumed, labelled } = await openRun(db, catalogue, classify, opts.retentionDays);
  const progress: RelabelProgress = {
    run: run.id,
    userAgents: run.user_agents,
    total: Number(run.total_events),
    done: Number(run.done_events),
    changed: Number(run.changed_events),
  };
  opts.onProgress?.({ ...progress });
  await refreshVerificationSources(db, opts.verifier.ranges); // synced vendor lists, as ingestion uses
  const days = await daysAfter(db, run);
  const sites = new Set<string>();
  for (const d of days) {
    if (opts.signal?.aborted) return { ...progress, resumed, finished: false, labelled };
    const { changed, pending } = await relabelDayRetrying(db, run, d, opts.verifier);
    // Events that now wait for reverse DNS: the job that settles them is queued, as ingestion does.
    if (pending) requestVerification(db);
    progress.done += d.events;
    progress.changed += changed;
    if (changed > 0) sites.add(d.site_id);
    opts.onProgress?.({ ...progress });
  }
  // Page rollups: the day deltas went to agent_page_pending; fold them and drop the emptied rows.
  for (const site of sites) {
    await foldPages(db, site);
    await sql`delete from agent_page_rollups where site_id = ${site}::bigint and visits <= 0`.execute(db);
  }
  await sql`
    update agent_relabel_runs set state = 'done', finished_at = now(), updated_at = now(),
      total_events = greatest(total_events, done_events)
    where id = ${run.id}::bigint`.execute(db);
  await sql`delete from agent_relabel_labels where run_id = ${run.id}::bigint`.execute(db);
  return { ...progress, resumed, finished: true, labelled };
}

/** The unfinished run of this catalogue, or a new one (an unfinished run of another is superseded). */
async function openRun(
  db: Kysely<Database>,
  catalogue: string,
  classify: RelabelClassifier,
  retentionDays: number | null,
): Promise<{ run: Run; resumed: boolean; labelled: number }> {
  const { rows: open } = await sql<Run & { labelled: number }>`
    select r.*, (select count(*)::int from agent_relabel_labels l where l.run_id = r.id) as labelled
    from agent_relabel_runs r where state = 'running' order by id desc`.execute(db);
  const same = open.find((r) => r.catalogue === catalogue);
  const others = open.filter((r) => r !== same).map((r) => r.id);
  if (others.length) {
    await sql`update agent_relabel_runs set state = 'superseded', updated_at = now()
      where id = any(${others}::bigint[])`.execute(db);
    await sql`delete from agent_relabel_labels where run_id = any(${others}::bigint[])`.execute(db);
  }
  if (same) return { run: same, resumed: true, labelled: same.labelled };

  const since = retentionDays === null ? new Date(0) : new Date(Date.now() - retentionDays * 86_400_000);
  const { rows: uas } = await sql<{ user_agent: string }>`
    select distinct user_agent from agent_events where time >= ${since.toISOString()}::timestamptz`.execute(
    db,
  );
  const labels = uas.flatMap(({ user_agent }) => {
    const c = classify(user_agent);
    if (!c.agent && !c.isAi) return [];
    return [
      {
        ua: user_agent,
        platform: c.platform ?? 'Other',
        agent: c.agent ?? '',
        type: c.type ?? '',
        confidence: c.confidence,
      },
    ];
  });
  const { rows: totals } = await sql<{ n: string }>`
    select count(*) as n from agent_events where time >= ${since.toISOString()}::timestamptz`.execute(db);
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<Run>`
      insert into agent_relabel_runs (catalogue, since, user_agents, total_events)
      values (${catalogue}, ${since.toISOString()}::timestamptz, ${uas.length}, ${totals[0]?.n ?? 0}::bigint)
      returning *`.execute(tx);
    const run = rows[0]!;
    for (let i = 0; i < labels.length; i += 5000) {
      const part = labels.slice(i, i + 5000);
      await sql`
        insert into agent_relabel_labels (run_id, user_agent, platform, agent, type, confidence)
        select ${run.id}::bigint, * from unnest(${part.map((l) => l.ua)}::text[], ${part.map((l) => l.platform)}::text[],
          ${part.map((l) => l.agent)}::text[], ${part.map((l) => l.type)}::text[], ${part.map((l) => l.confidence)}::real[])`.execute(
        tx,
      );
    }
    return { run, resumed: false, labelled: labels.length };
  });
}

interface Day {
  site_id: string;
  day: string;
  events: number;
}

/** The (site, day)s of the run's window after its cursor, in the order the cursor advances. */
async function daysAfter(db: Kysely<Database>, run: Run): Promise<Day[]> {
  const { rows } = await sql<Day>`
    select site_id::text, to_char(d, 'YYYY-MM-DD') as day, events from (
      select site_id, (time at time zone 'UTC')::date as d, count(*)::int as events
      from agent_events where time >= ${run.since}::timestamptz group by 1, 2
    ) t
    where ${run.cursor_site}::bigint is null or (site_id, d) > (${run.cursor_site}::bigint, ${run.cursor_day}::date)
    order by site_id, d`.execute(db);
  return rows;
}

/** relabelDay, sent again when it deadlocks with an ingest batch or a verification upserting the same rollups. */
async function relabelDayRetrying(
  db: Kysely<Database>,
  run: Run,
  d: Day,
  verifier: Verifier,
): Promise<DayResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((tx) => relabelDay(tx, run, d, verifier));
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
    }
  }
}

// The day's events (e) with their user agent's label (l), and those whose label differs from it:
// fragments of both statements below.
const eventsWithLabels = (run: Run) =>
  sql`agent_events e join agent_relabel_labels l on l.run_id = ${run.id}::bigint and l.user_agent = e.user_agent`;
const changingOn = (run: Run, d: Day, from: string) => sql`e.site_id = ${d.site_id}::bigint
    and e.time >= greatest(${from}::timestamptz, ${run.since}::timestamptz)
    and e.time < ${from}::timestamptz + interval '1 day'
    and (e.platform, e.agent, e.type) is distinct from (l.platform, l.agent, l.type)`;

/** What each (new name, address) of the day's changing events verifies as, checked once each. */
async function verdictsOf(tx: Transaction<Database>, run: Run, d: Day, from: string, verifier: Verifier) {
  const { rows } = await sql<{ agent: string; platform: string; ip: string }>`
    select distinct l.agent, l.platform, host(e.ip) as ip from ${eventsWithLabels(run)}
    where ${changingOn(run, d, from)} and e.ip is not null and e.verification <> 'signature'`.execute(tx);
  const verdicts = rows.map((r) => verifyWithoutRdns(verifier, { ...r, signed: null }));
  return {
    agents: rows.map((r) => r.agent),
    ips: rows.map((r) => r.ip),
    verifications: verdicts,
    confidences: verdicts.map((v) => CONFIDENCE[v]),
  };
}

interface DayResult {
  changed: number;
  /** Some of the day's changed events now wait for reverse DNS. */
  pending: boolean;
}

/**
 * One site's day: its events whose label differs from their user agent's are relabelled and
 * verified again under the new name, each moved as -1 under its old label and verification and +1
 * under its new ones in the hourly, daily and pending page rollups (net per row, so no rollup row
 * is touched twice), emptied rollup rows are dropped and the run's cursor advances.
 */
async function relabelDay(
  tx: Transaction<Database>,
  run: Run,
  d: Day,
  verifier: Verifier,
): Promise<DayResult> {
  const from = `${d.day}T00:00:00Z`;
  const v = await verdictsOf(tx, run, d, from, verifier);
  const { rows } = await sql<{ changed: number }>`
    with verdict as (
      select * from unnest(${v.agents}::text[], ${v.ips}::inet[], ${v.verifications}::text[], ${v.confidences}::real[])
        as v(agent, ip, verification, confidence)
    ), target as (
      select e.site_id, e.time, e.hash, e.path, e.status,
        case when e.verification = 'signature' then e.verification else coalesce(v.verification, 'none') end as verification,
        e.verification as old_verification, v.confidence as verified_confidence,
        e.platform as old_platform, e.agent as old_agent, e.type as old_type,
        l.platform, l.agent, l.type, l.confidence
      from ${eventsWithLabels(run)} left join verdict v on v.agent = l.agent and v.ip = e.ip
      where ${changingOn(run, d, from)}
      for update of e
    ), moved as (
      update agent_events e set platform = t.platform, agent = t.agent, type = t.type,
        verification = t.verification,
        confidence = case
          when t.verification = 'signature' then e.confidence
          when t.verification = 'none' then least(${CONFIDENCE.none}::real, t.confidence)
          else t.verified_confidence end
      from target t where e.site_id = t.site_id and e.time = t.time and e.hash = t.hash
      returning t.*
    ), ${rollupDeltaCtes({ pages: true })}
    select count(*)::int as changed from moved`.execute(tx);
  const changed = rows[0]?.changed ?? 0;
  if (changed > 0) {
    await sql`delete from agent_rollups where site_id = ${d.site_id}::bigint and visits <= 0
      and hour >= ${from}::timestamptz and hour < ${from}::timestamptz + interval '1 day'`.execute(tx);
    await sql`delete from agent_daily_rollups where site_id = ${d.site_id}::bigint and visits <= 0
      and day = ${d.day}::date`.execute(tx);
  }
  await sql`
    update agent_relabel_runs set cursor_site = ${d.site_id}::bigint, cursor_day = ${d.day}::date,
      done_events = done_events + ${d.events}, changed_events = changed_events + ${changed}, updated_at = now()
    where id = ${run.id}::bigint`.execute(tx);
  return { changed, pending: changed > 0 && v.verifications.includes('pending') };
}

/** The newest run, for the CLI's progress and the console (null before the first). */
export async function latestRelabelRun(
  db: Kysely<Database>,
): Promise<
  (RelabelProgress & { state: string; catalogue: string; startedAt: Date; finishedAt: Date | null }) | null
> {
  const { rows } = await sql<
    Run & { state: string; started_at: Date; finished_at: Date | null }
  >`select * from agent_relabel_runs order by id desc limit 1`.execute(db);
  const r = rows[0];
  if (!r) return null;
  return {
    run: r.id,
    state: r.state,
    catalogue: r.catalogue,
    userAgents: r.user_agents,
    total: Number(r.total_events),
    done: Number(r.done_events),
    changed: Number(r.changed_events),
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
