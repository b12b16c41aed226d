import { readdirSync, type Stats, statSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import { refreshCatalogue } from '../../shared/agent-catalogue/watch.ts';
import { siteByIdOrTracking } from '../../shared/agent-sites/sites.ts';
import { processVerifier } from '../../shared/agent-traffic/collect.ts';
import { type ImportProgress, type ImportSummary, importLog } from '../../shared/agent-traffic/import.ts';
import { createVerifier } from '../../shared/agent-traffic/ingest.ts';
import { LOG_FORMATS, type LogFormat } from '../../shared/agent-traffic/log-formats.ts';
import { type LogReport, type ReportVerification, reportLog } from '../../shared/agent-traffic/report.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { logsUsage as usage } from '../usage.ts';

export { usage };

function progressLine(p: ImportProgress): string {
  const secs = Math.max(0.001, p.elapsedMs / 1000);
  const rate = Math.round(p.lines / secs);
  let eta = '';
  if (p.totalBytes && p.bytesRead > 0) {
    const left = (secs * (p.totalBytes - p.bytesRead)) / p.bytesRead;
    eta = `, ETA ${Math.max(0, Math.round(left))} s`;
  }
  return `${p.lines.toLocaleString('en')} lines, ${rate.toLocaleString('en')} lines/s${eta}`;
}

function summaryText(s: ImportSummary): string[] {
  const out = [
    `${s.source} (${s.format}): ${s.lines} lines, ${s.requests} requests, ${s.badLines} bad lines in ${s.seconds} s`,
    `  agents ${s.agents} (new ${s.stored}, already stored ${s.duplicates}), AI referrals ${s.aiReferrals}, humans ${s.humansIgnored}, other bots ${s.botsIgnored}, past retention ${s.expired}`,
  ];
  if (s.pendingVerification > 0)
    out.push(
      `  ${s.pendingVerification} agent visits wait for their reverse-DNS check (verification pending): a running worker settles them`,
    );
  for (const b of s.badSamples) out.push(`  bad line ${b.line}: ${b.text}`);
  return out;
}

/** The nice value an import runs at: batch work, below the service beside it (nice 0). */
const IMPORT_NICE = 10;

/**
 * Runs `fn` with this process's threads at IMPORT_NICE (threads started meanwhile, such as libuv's
 * file readers, inherit it), then gives each its priority back where allowed. An import keeps a
 * core busy parsing while its batches keep Postgres busy on the other: at equal priority the
 * API's requests queued behind it for a core (GET /stats during an import: the API's backends
 * never wait on a lock, they wait to run). Lower, the import gets every cycle the service leaves
 * idle, wherever the two share the scheduler (one session, or autogroups off). Its Postgres
 * backends keep their priority: they are the server's processes, not this one's.
 */
async function asBatchWork<T>(fn: () => Promise<T>): Promise<T> {
  let tids: number[];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {
    tids = [0]; // no /proc: the calling thread (the process, where threads are not tasks)
  }
  const before = new Map<number, number>();
  for (const tid of tids) {
    try {
      before.set(tid, getPriority(tid));
      setPriority(tid, IMPORT_NICE);
    } catch {
      // exited, or not allowed: it keeps its priority
    }
  }
  try {
    return await fn();
  } finally {
    for (const [tid, nice] of before) {
      try {
        setPriority(tid, nice);
      } catch {
        // raising a priority again needs privilege: a process that ends here loses nothing
      }
    }
  }
}

// Imports web-server access logs into a registered site's agent traffic (the same pipeline as
// POST /api/v1/collect). Idempotent: importing a file again stores nothing new.
export async function logs(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'import') throw new UsageError(usage);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      site: { type: 'string' },
      format: { type: 'string', default: 'auto' },
      json: { type: 'boolean', default: false },
      report: { type: 'boolean', default: false },
    },
  });
  if (!values.site && !values.report) throw new UsageError(`--site ID (or --report) is required\n${usage}`);
  const format = values.format as LogFormat | 'auto';
  if (format !== 'auto' && !LOG_FORMATS.includes(format))
    throw new UsageError(`--format must be auto or one of ${LOG_FORMATS.join(', ')}`);
  if (positionals.length === 0) throw new UsageError(`a FILE (or - for stdin) is required\n${usage}`);
  // Checked before any import starts: a missing or unreadable file is the caller's mistake.
  for (const file of positionals) {
    if (file === '-') continue;
    let stat: Stats;
    try {
      stat = statSync(file);
    } catch (err) {
      throw new UsageError(
        `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
  }
  const cfg = loadCliConfig();
  if (values.report) return reportOnly(positionals, format, values.json, cfg, io);
  if (!values.site) throw new UsageError(`--site ID is required\n${usage}`);
  const db = await openDatabase(cfg, io);
  const tty = Boolean(process.stderr.isTTY);
  try {
    const site = await siteByIdOrTracking(db.handle.db, values.site);
    await refreshCatalogue(db.handle.db); // classify with the database's catalogue (local entries too)
    const summaries: ImportSummary[] = [];
    for (const file of positionals) {
      const s = await asBatchWork(() =>
        importLog(db.handle.db, site, file, {
          format,
          verifier: processVerifier(cfg),
          retentionDays: cfg.AGENT_EVENTS_RETENTION_DAYS,
          // A progress line only on a terminal; pipes and files get the summary alone.
          onProgress: tty ? (p) => process.stderr.write(`\r${progressLine(p)}\u001b[K`) : undefined,
        }),
      );
      if (tty) process.stderr.write('\r\u001b[K');
      summaries.push(s);
      if (!values.json) for (const l of summaryText(s)) io.out(l);
    }
    if (values.json) io.out(JSON.stringify(summaries.length === 1 ? summaries[0] : summaries));
    return 0;
  } finally {
    await db.close();
  }
}

const MIX_NAMES: Record<ReportVerification, string> = {
  ip: 'inside the vendor ranges',
  none: 'no check offered',
  'not-checked': 'reverse DNS not run',
  'ranges-changed': 'ranges have changed since',
  spoofed: 'spoofed',
};

function reportText(r: LogReport): string[] {
  const mix = (m: Record<ReportVerification, number>) =>
    (Object.keys(MIX_NAMES) as ReportVerification[])
      .filter((k) => m[k] > 0)
      .map((k) => `${MIX_NAMES[k]} ${m[k]}`)
      .join(', ');
  const out = [
    `${r.source} (${r.format}): ${r.lines} lines, ${r.requests} requests, ${r.badLines} bad lines in ${r.seconds} s; report only, nothing stored`,
    `  ${r.from?.slice(0, 10) ?? '-'} to ${r.to?.slice(0, 10) ?? '-'}: agent visits ${r.agentVisits}, AI referrals ${r.aiReferrals}, humans ${r.humans}, other bots ${r.otherBots}`,
    `  verification: ${mix(r.verification) || 'none'}`,
  ];
  for (const a of r.agents.slice(0, 20))
    out.push(
      `  ${a.platform} ${a.agent ?? '(unnamed)'}: ${a.visits} visits, ${a.errors} errors; ${mix(a.verification)}`,
    );
  if (r.topPages.length)
    out.push(
      `  top pages: ${r.topPages
        .slice(0, 10)
        .map((p) => `${p.path} ${p.visits}`)
        .join(', ')}`,
    );
  for (const b of r.badSamples) out.push(`  bad line ${b.line}: ${b.text}`);
  return out;
}

/** --report: each file analysed into a report, nothing stored (no database needed). */
async function reportOnly(
  files: string[],
  format: LogFormat | 'auto',
  json: boolean,
  cfg: ReturnType<typeof loadCliConfig>,
  io: CliIO,
): Promise<number> {
  const reports: LogReport[] = [];
  // Ranges only: a report makes no network look-ups.
  const verifier = createVerifier({ ...cfg, AGENT_VERIFY_RDNS: false });
  for (const file of files) {
    const r = await reportLog(file, { format, verifier });
    reports.push(r);
    if (!json) for (const l of reportText(r)) io.out(l);
  }
  if (json) io.out(JSON.stringify(reports.length === 1 ? reports[0] : reports));
  return 0;
}
