// Classifies errors from pg / Kysely without ever passing their text on: Postgres messages can
// quote stored data, schema names and values, so clients get a generic problem instead.

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, recovery)
  '53300', // too_many_connections
]);

const CONNECTION_MESSAGES =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Connection refused|the database system is (starting|shutting)/i;

type Cause = { code?: unknown; message?: unknown; cause?: unknown };

/** The error and the causes it wraps (a few levels deep). */
function* chain(err: unknown): Generator<Cause> {
  for (let e = err as Cause | undefined, i = 0; e && i < 5; i++, e = e.cause as Cause | undefined) yield e;
}

/** The database could not be reached or dropped the connection: worth a retry shortly. */
export function isDbUnavailable(err: unknown): boolean {
  for (const e of chain(err)) {
    if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some(isDbUnavailable)) return true;
  }
  return false;
}

/** Postgres is out of disk space (53100 disk_full): its writes fail until space is freed. */
export function isStorageFull(err: unknown): boolean {
  for (const e of chain(err)) if (e.code === '53100') return true;
  return false;
}

/** A full disk is one condition, not one per request: it is logged once per episode. */
const STORAGE_FULL_EPISODE_GAP_MS = 60_000;
let lastStorageFull = Number.NEGATIVE_INFINITY;

/** True for the first disk-full error after a minute without one (the one to log). */
export function storageFullEpisodeStarts(now = Date.now()): boolean {
  const starts = now - lastStorageFull > STORAGE_FULL_EPISODE_GAP_MS;
  lastStorageFull = now;
  return starts;
}

/** A Postgres error (has a five-character SQLSTATE and a severity), as pg raises it. */
export function isPgError(err: unknown): err is { code: string; severity: string } {
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  return !!e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string';
}
