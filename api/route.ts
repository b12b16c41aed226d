import type { Context } from 'koa';
import type { z } from 'zod';
import type { AccessRule } from '../shared/accounts/admission.ts';
import type { Principal } from '../shared/accounts/auth.ts';
import type { Services } from '../shared/services.ts';

// One declaration per endpoint: the same zod schemas validate requests, type the handler's input
// and generate /openapi.json, so the description cannot drift from the code.

/** Who may call an endpoint and how it is counted: the one admission path's rules. */
export type Access = AccessRule;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string; // default application/json
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface RouteInput<Q, P, B> {
  query: Q;
  params: P;
  body: B;
}

export interface RouteContext extends Context {
  state: {
    requestId: string;
    principal?: Principal;
    routeName?: string;
  } & Record<string, unknown>;
}

export interface RouteDef<
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string; // Koa style: /api/v1/audit/:orderId
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  request?: { query?: Q; params?: P; body?: B };
  responses: Record<number, ResponseSpec>;
  handler: (
    ctx: RouteContext,
    input: RouteInput<z.output<Q>, z.output<P>, z.output<B>>,
    services: Services,
  ) => Promise<void> | void;
  /**
   * A quick check of the parsed JSON body, for hot routes whose schema's parse is a visible share
   * of a call: the body itself when it certainly passes the body schema unchanged (the schema
   * would return an equal value), undefined to let the schema decide (and name the errors).
   */
  validBody?: (raw: unknown) => unknown;
  /** Largest body this route accepts (413 beyond), when it differs from BODY_LIMIT. */
  bodyLimit?: string;
  /** The handler reads the body itself (a signed webhook needs its exact bytes): no parser runs. */
  rawBody?: boolean;
  /** Hidden from /openapi.json (e.g. /metrics). */
  hidden?: boolean;
}

export function defineRoute<Q extends z.ZodType, P extends z.ZodType, B extends z.ZodType>(
  def: RouteDef<Q, P, B>,
): RouteDef {
  return def as unknown as RouteDef;
}
