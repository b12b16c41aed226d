import type { Middleware } from 'koa';
import type { z } from 'zod';
import { findNul } from '../../shared/db/json.ts';
import { badRequest, type FieldError } from '../../shared/errors.ts';
import type { RouteContext, RouteDef, RouteInput } from '../route.ts';

function fieldErrors(where: string, error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({
    field: [where, ...i.path.map(String)].join('.'),
    message: i.message,
  }));
}

/**
 * A route's validation step: query, params and body parsed with the route's schemas into the
 * handler's input; a failure is one 400 naming every bad field.
 */
export function routeInput(def: RouteDef): (ctx: RouteContext) => RouteInput<unknown, unknown, unknown> {
  const schemas = def.request ?? {};
  return (ctx) => {
    const errors: FieldError[] = [];
    // Most calls have no query string: then no parse (Koa's getter builds a URLSearchParams).
    const query = parse(errors, 'query', schemas.query, ctx.querystring ? ctx.query : {});
    const params = parse(errors, 'params', schemas.params, ctx.params ?? {});
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = parse(
      errors,
      'body',
      schemas.body,
      rawBody === undefined || rawBody === null ? {} : rawBody,
      def.validBody,
    );
    if (errors.length) throw badRequest(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
    return { query, params, body };
  };
}

/** A route's validation middleware: the handler's input, as `ctx.state.input`, or one 400. */
export function validate(def: RouteDef): Middleware {
  const input = routeInput(def);
  return (ctx, next) => {
    ctx.state.input = input(ctx as RouteContext);
    return next();
  };
}

function parse(
  errors: FieldError[],
  where: string,
  schema: z.ZodType | undefined,
  value: unknown,
  quick?: (raw: unknown) => unknown,
): unknown {
  // A NUL byte cannot be stored (Postgres text refuses it) and is never meaningful input.
  const nul = findNul(value, where);
  if (nul) {
    errors.push({ field: nul, message: 'must not contain a NUL byte (\\u0000 or %00)' });
    return undefined;
  }
  if (!schema) return value;
  const valid = quick?.(value);
  if (valid !== undefined) return valid;
  const r = schema.safeParse(value);
  if (!r.success) {
    errors.push(...fieldErrors(where, r.error));
    return undefined;
  }
  return r.data;
}
