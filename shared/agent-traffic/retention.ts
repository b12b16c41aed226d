import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.ts';

// Raw events are kept AGENT_EVENTS_RETENTION_DAYS (default 400); rollups, referral rollups and
// coverage are kept. Whole month partitions past the cut-off are dropped (no row-by-row delete);
// the partition the cut-off falls in is trimmed. Also trims raw AI referrals, the weighted
// ingest buckets and week-old reverse-DNS verdicts (agent_rdns_checks).

export async function pruneAgentEvents(
  db: Kysely<Database>,
  retentionDays: number,
): Promise<{
  droppedPartitions: string[];
  deletedEvents: number;
  deletedReferrals: number;
  deletedRdnsChecks: number;
}> {
  const { rows } = await sql<{ name: string; upper: Date; cutoff: Date }>`
    select c.relname as name,
      (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz as upper,
      now() - make_interval(days => ${retentionDays}::int) as cutoff
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'agent_events'::regclass`.execute(db);
  const dropped: string[] = [];
  for (const r of rows) {
    if (r.upper <= r.cutoff) {
      await sql`drop table ${sql.id(r.name)}`.execute(db);
      dropped.push(r.name);
    }
  }
  const ev =
    await sql`delete from agent_events where time < now() - make_interval(days => ${retentionDays}::int)`.execute(
      db,
    );
  const refs =
    await sql`delete from ai_referrals where time < now() - make_interval(days => ${retentionDays}::int)`.execute(
      db,
    );
  await sql`delete from rate_limit_weights where minute < now() - interval '2 hours'`.execute(db);
  // Reverse-DNS verdicts are reused for a day and retried within one: a week-old one serves
  // nothing, except a failure whose events still wait (agent_rdns_checks schedules their retries).
  const checks = await sql`
    delete from agent_rdns_checks c where c.checked_at < now() - interval '7 days'
      and not exists (select 1 from agent_events e
        where e.agent = c.agent and e.ip = c.ip and e.verification = 'unverified')`.execute(db);
  return {
    droppedPartitions: dropped,
    deletedEvents: Number(ev.numAffectedRows ?? 0),
    deletedReferrals: Number(refs.numAffectedRows ?? 0),
    deletedRdnsChecks: Number(checks.numAffectedRows ?? 0),
  };
}
