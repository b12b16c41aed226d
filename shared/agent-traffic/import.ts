import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Verifier } from '../agent-verification/verify.ts';
import type { Database } from '../db/database.ts';
import type { AgentSite } from '../db/tables/agent-traffic.ts';
import { type IngestCounts, type IngestRequest, ingest, pastRetention, recordCoverage } from './ingest.ts';
import { detectFormat, HEADER, type LineParser, type LogFormat, parserFor } from './log-formats.ts';
import { foldPages } from './page-rollups.ts';

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

export interface ImportSummary {
  source: string;
  format: LogFormat | null;
  lines: number;
  requests: number;
  badLines: number;
  badSamples: { line: number; text: string }[];
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
 * time: readline's event and promise per line cost about a quarter more CPU (2.4 against 1.9 µs a
 * line reading the bench's log; the same lines, also for chunks cut inside \r\n or a character).
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
  const batchSize = opts.batchSize ?? 5000;
  const { lines, totalBytes, bytesRead } = await openLog(file);
  const summary: ImportSummary = {
    source: file === '-' ? 'stdin' : file,
    format: opts.format === 'auto' ? null : opts.format,
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
  const days = new Map<number, number>();
  // Days of requests past retention are not covered: ingest drops those requests.
  const expired = pastRetention(opts.retentionDays);
  let parser: LineParser | null = summary.format ? parserFor(summary.format) : null;
  const pendingDetect: string[] = [];
  let batch: IngestRequest[] = [];
  // Batches being stored while the next is parsed: two, so Postgres can use a second core.
  const inFlight: Promise<void>[] = [];
  const MAX_IN_FLIGHT = 2;
  let lastProgress = Date.now();
  // Identical lines within one second are distinct requests: number them.
  let dupSecond = Number.NaN;
  const dupCounts = new Map<string, number>();

  const add = (c: IngestCounts) => {
    summary.agents += c.agents;
    summary.stored += c.stored;
    summary.duplicates += c.duplicates;
    summary.aiReferrals += c.ai_referrals;
    summary.humansIgnored += c.humans_ignored;
    summary.botsIgnored += c.bots_ignored;
    summary.expired += c.expired;
    summary.pendingVerification += c.pending_verification;
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const todo = batch;
    batch = [];
    if (inFlight.length >= MAX_IN_FLIGHT) await inFlight.shift();
    const p = ingest(db, site, 'import', todo, opts.verifier, {
      retentionDays: opts.retentionDays,
      coverage: false,
    }).then(add);
    p.catch(() => {}); // awaited (and thrown) at a later flush or the end
    inFlight.push(p);
  };

  /** True when the batch is full and must be flushed. */
  const handle = (line: string, lineNo: number): boolean => {
    if (line.length === 0 || line.trim() === '') return false;
    const r = parser!(line);
    if (r === HEADER) return false;
    if (!r) {
      summary.badLines++;
      if (summary.badSamples.length < 5) summary.badSamples.push({ line: lineNo, text: line.slice(0, 300) });
      return false;
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
      const d = Math.floor(r.time.getTime() / 86_400_000); // UTC day number, named once at the end
      days.set(d, (days.get(d) ?? 0) + 1);
    }
    r.hash = n === 0 ? line : `${line}\n#${n}`; // hashed by ingest if stored
    batch.push(r as IngestRequest);
    return batch.length >= batchSize;
  };

  let lineNo = 0;
  for await (const chunk of lines)
    for (const line of chunk) {
      lineNo++;
      summary.lines++;
      if (!parser) {
        pendingDetect.push(line);
        if (pendingDetect.length < 20) continue;
        summary.format = detectFormat(pendingDetect);
        if (!summary.format) throw new Error('could not detect the log format; pass --format');
        parser = parserFor(summary.format);
        for (const [i, l] of pendingDetect.entries())
          if (handle(l, lineNo - pendingDetect.length + 1 + i)) await flush();
        pendingDetect.length = 0;
        continue;
      }
      if (handle(line, lineNo)) await flush();
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
    summary.format = detectFormat(pendingDetect);
    if (!summary.format) throw new Error('could not detect the log format; pass --format');
    parser = parserFor(summary.format);
    for (const [i, l] of pendingDetect.entries()) if (handle(l, i + 1)) await flush();
  }
  await flush();
  for (const p of inFlight.splice(0)) await p;
  await foldPages(db, site.id); // the file's page counts into the page and path rollups (sql/018)
  const dayNames = new Map(
    [...days].map(([d, n]) => [new Date(d * 86_400_000).toISOString().slice(0, 10), n]),
  );
  await recordCoverage(db, site.id, `import:${summary.format ?? 'unknown'}`, dayNames, 'max');
  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  return summary;
}
