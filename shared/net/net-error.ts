import { AppError } from '../errors.ts';

// Why a fetch could not complete, as a stable code. Policy refusals are not NetErrors: they are
// AppErrors with code `url_not_allowed` (shared/errors.ts), so the API can render them as 400.
export type NetErrorCode =
  | 'dns_failure'
  | 'connection_refused'
  | 'connect_timeout'
  | 'timeout'
  | 'aborted'
  | 'tls_error'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'decode_error'
  | 'network_error';

export class NetError extends Error {
  constructor(
    readonly code: NetErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NetError';
  }
}

const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)|HOSTNAME_MISMATCH)/;

/** Maps a Node socket/DNS/TLS error to a NetError; other errors (policy refusals) pass through. */
export function toNetError(err: unknown, host: string): unknown {
  if (!(err instanceof Error) || err instanceof NetError || err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || code === 'EAI_FAIL')
    return new NetError('dns_failure', `Could not resolve ${host}`, { cause: err });
  if (code === 'ECONNREFUSED')
    return new NetError('connection_refused', `${host} refused the connection`, { cause: err });
  if (TLS_CODE.test(code) || /certificate|ssl|tls/i.test(err.message))
    return new NetError('tls_error', `TLS error with ${host}: ${code || err.message}`, { cause: err });
  return new NetError('network_error', `Network error with ${host}: ${code || err.message}`, { cause: err });
}
