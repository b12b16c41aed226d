import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Verifier } from '../agent-verification/verify.ts';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { type IngestCounts, type IngestRequest, ingest, pastRetention, recordCoverage } from './ingest.ts';
import {
  detectFormat,
  HEADER,
  type LineParser,
  type LogFormat,
  type LogReading,
  parserFor,
} from './log-formats.ts';
import { compactPending, foldPages } from './page-rollups.ts';

// `sightline logs import`: streams a log (plain or gzip, a file or stdin) line by line in
// constant memory, parses it in the chosen format, and feeds the one ingest pipeline in batches.
// Each request's id is the hash of its line (plus its occurrence among identical lines of the same
// second), so importing the same file again stores nothing new. Bad lines are counted and sampled.

export interface ImportProgress {
  lines: number;
  bytesRead: number;
  totalBytes: number | null;
  elapsedMs: number;
}

export interface ImportSummary extends LogReading {
  agents: number;
  stored: number;
  duplicates: number;
  aiReferrals: number;
  humansIgnored: number;
  botsIgnored: number;
  /** Requests older than the raw-event retention: neither stored nor counted (ingest). */
  expired: number;
  /** Of `stored`, the events waiting for reverse DNS (the worker's verify_agent_visits). */
  pendingVerification: number;
  seconds: number;
}

export interface ImportOptions {
  format: LogFormat | 'auto';
  verifier: Verifier;
  /** AGENT_EVENTS_RETENTION_DAYS (ingest's retentionDays). */
  retentionDays: number | null;
  batchSize?: number;
  onProgress?: (p: ImportProgress) => void;
  progressEveryMs?: number;
}

/**
 * The lines of a byte stream, split as readline splits them with crlfDelay Infinity (a line ends
 * at \r\n, \n or \r; a last line without an end is a line), handed out a chunk's lines at a
 * time: readline pays an event and a promise per line (docs/benchmarks.md, "Numbers moved out of
 * code comments"). Chunks cut inside \r\n or a character give the same lines.
 */
export async function* lineChunks(bytes: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let sawCr = false; // the text so far ended with \r: a \n that starts the next is part of it
  const split = (text: string, out: string[]) => {
    const s = rest + (sawCr && text.charCodeAt(0) === 10 ? text.slice(1) : text);
    sawCr = false;
    let start = 0;
    let nl = s.indexOf('\n');
    let cr = s.indexOf('\r');
    for (;;) {
      if (nl !== -1 && nl < start) nl = s.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = s.indexOf('\r', start);
      if (cr !== -1 && (nl === -1 || cr < nl)) {
        out.push(s.slice(start, cr));
        if (cr + 1 < s.length) start = s.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        else {
          start = cr + 1;
          sawCr = true;
        }
      } else if (nl !== -1) {
        out.push(s.slice(start, nl));
        start = nl + 1;
      } else break;
    }
    rest = s.slice(start);
  };
  for await (const chunk of bytes) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text.length === 0) continue;
    const out: string[] = [];
    split(text, out);
    if (out.length) yield out;
  }
  const out: string[] = [];
  const tail = decoder.end();
  if (tail) split(tail, out);
  if (rest.length) out.push(rest);
  if (out.length) yield out;
}

/** A file path or '-' (stdin) as a byte stream, un-gzipped when it starts with gzip's magic bytes. */
export async function openLog(
  file: string,
): Promise<{ lines: AsyncIterable<string[]>; totalBytes: number | null; bytesRead: () => number }> {
  // Stat first: a stream opened on a missing file emits its error with no listener yet.
  const totalBytes = file === '-' ? null : statSync(file).size;
  const raw = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
  let read = 0;
  const it = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head = await it.next();
  const body = Readable.from(
    (async function* () {
      if (!head.done) {
        read += head.value.length;
        yield head.value;
      }
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        read += n.value.length;
        yield n.value;
      }
    })(),
    { objectMode: false },
  );
  const gz = !head.done && head.value[0] === 0x1f && head.value[1] === 0x8b;
  const text = gz ? body.pipe(createGunzip()) : body;
  return {
    lines: lineChunks(text),
    totalBytes,
    bytesRead: () => read,
  };
}

export async function importLog(
  db: Kysely<Database>,
  site: AgentSite,
  file: string,
  opts: ImportOptions,
): Promise<ImportSummary> {
  const started = Date.now();
  const { lines, totalBytes, bytesRead } = await openLog(file);
  const summary = emptySummary(file === '-' ? 'stdin' : file, opts.format === 'auto' ? null : opts.format);
  // By UTC day number, the requests not past retention (ingest drops the others): named at the end.
  const days = new Map<number, number>();
  const read = requestReader(summary, pastRetention(opts.retentionDays), days);
  const store = batchStore(db, site, opts, summary);
  let parser: LineParser | null = summary.format ? parserFor(summary.format) : null;
  // With --format auto, the first lines wait here until there are enough to detect the format.
  const pendingDetect: string[] = [];
  let lastProgress = Date.now();

  let lineNo = 0;
  for await (const chunk of lines)
    for (const line of chunk) {
      lineNo++;
      summary.lines++;
      if (!parser) {
        pendingDetect.push(line);
        if (pendingDetect.length < 20) continue;
        parser = detectParser(summary, pendingDetect);
        for (const [i, l] of pendingDetect.entries()) {
          const r = read(parser, l, lineNo - pendingDetect.length + 1 + i);
          if (r && store.add(r)) await store.flush();
        }
        pendingDetect.length = 0;
        continue;
      }
      const r = read(parser, line, lineNo);
      if (r && store.add(r)) await store.flush();
      if (
        opts.onProgress &&
        (summary.lines & 1023) === 0 &&
        Date.now() - lastProgress >= (opts.progressEveryMs ?? 500)
      ) {
        lastProgress = Date.now();
        opts.onProgress({
          lines: summary.lines,
          bytesRead: bytesRead(),
          totalBytes,
          elapsedMs: lastProgress - started,
        });
      }
    }
  if (!parser && pendingDetect.length) {
    parser = detectParser(summary, pendingDetect);
    for (const [i, l] of pendingDetect.entries()) {
      const r = read(parser, l, i + 1);
      if (r && store.add(r)) await store.flush();
    }
  }
  await store.finish();
  await foldPages(db, site.id); // the file's page counts into the page and path rollups (sql/018)
  await compactPending(db, site.id); // the batches are done: the fold's deleted rows can go now
  const dayNames = new Map(
    [...days].map(([d, n]) => [new Date(d * 86_400_000).toISOString().slice(0, 10), n]),
  );
  await recordCoverage(db, site.id, `import:${summary.format ?? 'unknown'}`, dayNames, 'max');
  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  return summary;
}

function emptySummary(source: string, format: LogFormat | null): ImportSummary {
  return {
    source,
    format,
    lines: 0,
    requests: 0,
    badLines: 0,
    badSamples: [],
    agents: 0,
    stored: 0,
    duplicates: 0,
    aiReferrals: 0,
    humansIgnored: 0,
    botsIgnored: 0,
    expired: 0,
    pendingVerification: 0,
    seconds: 0,
  };
}

/** The parser of the format detected from sample lines (recorded in the summary); throws if none fits. */
function detectParser(summary: ImportSummary, sample: string[]): LineParser {
  summary.format = detectFormat(sample);
  if (!summary.format) throw new Error('could not detect the log format; pass --format');
  return parserFor(summary.format);
}

/**
 * Turns a log line into a request, or null for a blank line, a header or a bad line (counted and
 * sampled in the summary). Identical lines within one second are distinct requests: each after
 * the first gets a numbered hash text. Requests not past retention are counted in `days`.
 */
function requestReader(
  summary: ImportSummary,
  expired: (r: { time: Date }) => boolean,
  days: Map<number, number>,
): (parser: LineParser, line: string, lineNo: number) => IngestRequest | null {
  let dupSecond = Number.NaN;
  const dupCounts = new Map<string, number>();
  return (parser, line, lineNo) => {
    if (line.length === 0 || line.trim() === '') return null;
    const r = parser(line);
    if (r === HEADER) return null;
    if (!r) {
      summary.badLines++;
      if (summary.badSamples.length < 5) summary.badSamples.push({ line: lineNo, text: line.slice(0, 300) });
      return null;
    }
    summary.requests++;
    const sec = Math.floor(r.time.getTime() / 1000);
    if (sec !== dupSecond) {
      dupSecond = sec;
      dupCounts.clear();
    }
    const n = dupCounts.get(line) ?? 0;
    dupCounts.set(line, n + 1);
    if (!expired(r)) {
      const d = Math.floor(r.time.getTime() / 86_400_000);
      days.set(d, (days.get(d) ?? 0) + 1);
    }
    r.hash = n === 0 ? line : `${line}\n#${n}`; // hashed by ingest if stored
    return r as IngestRequest;
  };
}

/**
 * Stored events after which an import folds the site's pending page counts (collect: FOLD_AFTER).
 * GET /stats' top pages read the pending rows as they are, so during an import that statement
 * grows with the rows stored since the last fold: more frequent folds keep it cheaper, and an
 * import's rate did not change (docs/benchmarks.md, session 14, "/stats during a log import").
 */
const IMPORT_FOLD_AFTER = 10_000;

/**
 * Collects requests into batches and stores them through ingest, adding each batch's counts to
 * the summary. Up to two batches are stored while the next is parsed, so Postgres can use a
 * second core; a failed batch throws at a later flush or at finish.
 */
function batchStore(db: Kysely<Database>, site: AgentSite, opts: ImportOptions, summary: ImportSummary) {
  const batchSize = opts.batchSize ?? 5000;
  const MAX_IN_FLIGHT = 2;
  const inFlight: Promise<void>[] = [];
  let batch: IngestRequest[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const todo = batch;
    batch = [];
    if (inFlight.length >= MAX_IN_FLIGHT) await inFlight.shift();
    const p = ingest(db, site, 'import', todo, opts.verifier, {
      retentionDays: opts.retentionDays,
      coverage: false,
      foldAfter: IMPORT_FOLD_AFTER,
    }).then((c) => addCounts(summary, c));
    p.catch(() => {}); // awaited (and thrown) at a later flush or at finish
    inFlight.push(p);
  };
  return {
    /** Adds a request; true when the batch is full and must be flushed. */
    add: (r: IngestRequest): boolean => batch.push(r) >= batchSize,
    flush,
    /** Stores the last batch and waits for every batch in flight. */
    finish: async () => {
      await flush();
      for (const p of inFlight.splice(0)) await p;
    },
  };
}

function addCounts(summary: ImportSummary, c: IngestCounts): void {
  summary.agents += c.agents;
  summary.stored += c.stored;
  summary.duplicates += c.duplicates;
  summary.aiReferrals += c.ai_referrals;
  summary.humansIgnored += c.humans_ignored;
  summary.botsIgnored += c.bots_ignored;
  summary.expired += c.expired;
  summary.pendingVerification += c.pending_verification;
}
