import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';
import {
  isDbUnavailable,
  isPgError,
  isStorageFull,
  storageFullEpisodeStarts,
} from '../../shared/db/errors.ts';
import { AppError, methodNotAllowed, storageFull } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';

// Every error leaves as application/problem+json (RFC 9457) with a stable `code`; never a stack.
const PROBLEM_BASE = 'https://sightline.dev/problems/';

const BY_STATUS: Record<number, { code: string; title: string }> = {
  400: { code: 'invalid_request', title: 'Bad request' },
  401: { code: 'unauthorized', title: 'Unauthorized' },
  403: { code: 'forbidden', title: 'Forbidden' },
  404: { code: 'not_found', title: 'Not found' },
  405: { code: 'method_not_allowed', title: 'Method not allowed' },
  413: { code: 'payload_too_large', title: 'Payload too large' },
  415: { code: 'unsupported_media_type', title: 'Unsupported media type' },
  429: { code: 'rate_limited', title: 'Too many requests' },
};

/** Seconds a client is told to wait while the database is unreachable. */
export const DB_RETRY_AFTER_SECONDS = 5;

export const databaseUnavailable = () =>
  new AppError(
    503,
    'database_unavailable',
    'Service unavailable',
    'The database is unreachable for the moment; retry shortly.',
    { headers: { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) } },
  );

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // Database trouble: never the driver's text (it can quote data and schema).
  if (isStorageFull(err)) return storageFull();
  if (isDbUnavailable(err)) return databaseUnavailable();
  if (isPgError(err) && err.code.startsWith('22')) {
    return new AppError(
      422,
      'unprocessable_value',
      'Unprocessable value',
      'A value in the request cannot be stored or compared (out of range or malformed).',
    );
  }
  const e = err as {
    status?: number;
    statusCode?: number;
    expose?: boolean;
    message?: string;
    type?: string;
  };
  const status = isPgError(err) ? undefined : (e.status ?? e.statusCode);
  if (status && status >= 400 && status < 500) {
    const known = BY_STATUS[status] ?? { code: 'client_error', title: 'Client error' };
    let detail = e.expose !== false && e.message ? e.message : known.title;
    if (status === 413) detail = 'The request body is larger than this endpoint accepts.';
    if (e.type === 'entity.parse.failed' || /JSON/i.test(detail))
      detail = 'The request body is not valid JSON.';
    return new AppError(status, known.code, known.title, detail);
  }
  return new AppError(
    500,
    'internal_error',
    'Internal server error',
    'Something went wrong on our side; it has been logged.',
  );
}

/** Throws the problem for an answer nothing gave a body: no route (404), 405 and 501 from the router. */
export function throwIfUnanswered(ctx: Context): void {
  if (ctx.status === 404 && ctx.body === undefined) {
    throw new AppError(404, 'not_found', 'Not found', `No route for ${ctx.method} ${ctx.path}.`);
  }
  // The router answers 405/501 itself (with an Allow header); give those a problem body too.
  if (ctx.status === 405 && ctx.body === undefined) throw methodNotAllowed();
  if (ctx.status === 501 && ctx.body === undefined) {
    throw new AppError(501, 'not_implemented', 'Not implemented', `${ctx.method} is not supported.`);
  }
}

/**
 * Notes a thrown error for the request's one log line (observe.ts): an unexpected failure (a 500)
 * is kept with its stack; an answer the service gives on purpose (any AppError, a 503 of a lost
 * database) is logged by its status and code alone.
 */
export function noteFailure(ctx: Context, thrown: unknown, answered: AppError, log: Logger): void {
  ctx.state.problemCode = answered.code;
  if (answered.code === 'storage_full') {
    if (storageFullEpisodeStarts())
      log.error(
        { err: thrown },
        'the database is out of disk space: writes answer 503 storage_full until it has room',
      );
  } else if (answered.status === 500) ctx.state.failure = thrown;
}

/** Answers a thrown error as problem+json (a step of the outer middleware, frame.ts). */
export function answerProblem(ctx: Context, err: unknown, log: Logger): void {
  const appErr = toAppError(err);
  noteFailure(ctx, err, appErr, log);
  const { errors, headers, ...extra } = appErr.extra;
  ctx.status = appErr.status;
  for (const [k, v] of Object.entries(headers ?? {})) ctx.set(k, v);
  ctx.type = 'application/problem+json';
  ctx.body = {
    type: PROBLEM_BASE + appErr.code,
    title: appErr.title,
    status: appErr.status,
    detail: appErr.detail,
    code: appErr.code,
    instance: ctx.path,
    requestId: ctx.state.requestId,
    ...(errors ? { errors } : {}),
    ...extra,
  };
}

const CLIENT_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    detail: 'The request line and headers are larger than this server accepts (16 KiB).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    detail: 'The request was not received in time.',
  },
  ERR_HTTP_HEADERS_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    detail: 'The request headers were not received in time.',
  },
};

/**
 * The http server's `clientError` handler: a request Node's parser refuses before Koa sees it
 * (oversized headers, malformed request line, timeouts) is still answered as problem+json.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const s = socket as Duplex & { _httpMessage?: { headersSent?: boolean } };
  if (err.code === 'ECONNRESET' || !socket.writable || s._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[err.code ?? ''] ?? {
    status: 400,
    code: 'malformed_request',
    detail: 'The request is not valid HTTP/1.1.',
  };
  const title = STATUS_CODES[known.status] ?? 'Bad request';
  const body = JSON.stringify({
    type: PROBLEM_BASE + known.code,
    title,
    status: known.status,
    detail: known.detail,
    code: known.code,
  });
  socket.end(
    `HTTP/1.1 ${known.status} ${title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
