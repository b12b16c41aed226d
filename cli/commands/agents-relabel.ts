import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { processVerifier } from '../../shared/agent-traffic/collect.ts';
import {
  enqueueRelabel,
  latestRelabelRun,
  RELABEL_TASK,
  type RelabelProgress,
  relabelAgentEvents,
} from '../../shared/agent-traffic/relabel.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';

export const relabelUsage = `sightline agents relabel [--wait | --here] [--json]
  Labels the stored agent events of the retention window again with the catalogue in use, and
  moves their rollups with them. Queues the relabel_agent_events job (a worker runs it);
  --wait follows its progress until it ends; --here runs it in this process instead.`;

const POLL_MS = 1000;

const line = (p: RelabelProgress) => {
  const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
  return `${p.done} / ${p.total} events (${pct}%), ${p.changed} relabelled`;
};

// `sightline agents relabel`: the catalogue changed (sync, add, remove) and history follows it.
export async function relabelCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      wait: { type: 'boolean', default: false },
      here: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    io.out(relabelUsage);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\n${relabelUsage}`);
  if (values.wait && values.here)
    throw new UsageError(`--wait and --here exclude each other\n${relabelUsage}`);
  const config = loadCliConfig();
  const db = await openDatabase(config, io);
  try {
    const handle = db.handle.db;
    if (values.here) {
      // Two runs at once would each count the same days: a worker's run under way goes first.
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from graphile_worker.jobs
        where task_identifier = ${RELABEL_TASK} and locked_at is not null`.execute(handle);
      if ((rows[0]?.n ?? 0) > 0)
        throw new UsageError('a worker is relabelling now: follow it with `sightline agents relabel --wait`');
      const show = (p: RelabelProgress) => (io.status ? io.status(line(p)) : undefined);
      const r = await relabelAgentEvents(handle, {
        retentionDays: config.AGENT_EVENTS_RETENTION_DAYS,
        verifier: processVerifier(config),
        onProgress: show,
      });
      io.status?.('');
      if (values.json) io.out(JSON.stringify(r));
      else
        io.out(
          `relabel run ${r.run}${r.resumed ? ' (resumed)' : ''}: ${r.userAgents} user agents classified, ${line(r)}`,
        );
      return 0;
    }
    const before = await latestRelabelRun(handle);
    const job = await enqueueRelabel(handle);
    if (!values.wait) {
      if (values.json) io.out(JSON.stringify({ queued: true, job: job.id }));
      else io.out(`relabel queued (job ${job.id}); follow it with \`sightline agents relabel --wait\``);
      return 0;
    }
    return await follow(handle, io, before?.run ?? null, values.json);
  } finally {
    await db.close();
  }
}

/** Prints the progress of the run after `previous` (or of the one resumed) until it is done. */
async function follow(
  handle: Parameters<typeof latestRelabelRun>[0],
  io: CliIO,
  previous: string | null,
  json: boolean,
): Promise<number> {
  let printed = '';
  let followed: string | null = null;
  for (;;) {
    const run = await latestRelabelRun(handle);
    // A run after the one that was newest when the job was queued, or that one resumed.
    const current: Awaited<ReturnType<typeof latestRelabelRun>> =
      run && (run.run !== previous || run.state === 'running' || run.run === followed) ? run : null;
    if (current) {
      followed = current.run;
      const text = `run ${current.run} ${current.state}: ${line(current)}`;
      if (text !== printed) {
        if (io.status && current.state === 'running') io.status(text);
        else if (current.state === 'running') io.err(text);
        printed = text;
      }
      if (current.state === 'done') {
        io.status?.('');
        io.out(json ? JSON.stringify(current) : `relabel ${text}`);
        return 0;
      }
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
