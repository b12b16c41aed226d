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

/** The database could not be reached or dropped the connection: worth a retry shortly. */
export function isDbUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    i++
  ) {
    if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some(isDbUnavailable)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** A Postgres error (has a five-character SQLSTATE and a severity), as pg raises it. */
export function isPgError(err: unknown): err is { code: string; severity: string } {
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  return !!e && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string';
}
