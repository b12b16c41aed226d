import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { AppError, FieldError } from '../../shared/errors.ts';

// JSON-RPC error codes of interface.md section 7, plus one for the rate limit (which it leaves
// open). The SDK turns any thrown error with a numeric `code` into a JSON-RPC error object, so
// these are thrown from request handlers. `data.code` carries the same stable machine code as
// the REST problem bodies.

export const RPC = {
  unauthorized: -32001,
  tierRequired: -32002,
  /** Ours: the JSON-RPC side of HTTP 429 (the server error range -32000..-32099 is ours to use). */
  rateLimited: -32029,
  invalidParams: ErrorCode.InvalidParams,
  internal: ErrorCode.InternalError,
} as const;

interface RpcErrorData {
  code: string;
  errors?: FieldError[];
  [k: string]: unknown;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: RpcErrorData,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const invalidParams = (tool: string, errors: FieldError[]) =>
  new RpcError(
    RPC.invalidParams,
    `Invalid arguments for ${tool}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    { code: 'invalid_params', errors },
  );

/** Field names as the tool's caller knows them: services name them `url`, `body.product`, ... */
const argumentName = (field: string) => field.replace(/^(body|query|params)\./, '');

/**
 * A service's AppError, in MCP terms: what the caller got wrong is a JSON-RPC error; what went
 * wrong with the work itself (an unreachable site, an unknown order) is a tool result with
 * isError, so an agent can read it and carry on; undefined means "not a caller error".
 */
export function rpcErrorFor(tool: string, err: AppError): RpcError | undefined {
  if (err.status === 400) {
    const errors = (err.extra.errors ?? []).map((e) => ({
      field: argumentName(e.field),
      message: e.message,
    }));
    return new RpcError(RPC.invalidParams, `Invalid arguments for ${tool}: ${err.detail}`, {
      code: err.code,
      errors,
    });
  }
  if (err.status === 401) return new RpcError(RPC.unauthorized, err.detail, { code: err.code });
  // A plan the account lacks (GEO's Growth or Agency) is forbidden like a low tier: -32002.
  if (err.code === 'tier_required' || err.code === 'subscription_required')
    return new RpcError(RPC.tierRequired, err.detail, { code: err.code });
  return undefined;
}
