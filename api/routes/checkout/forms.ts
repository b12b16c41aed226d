import type { RouteContext } from '../../route.ts';

/** A field of the posted form (application/x-www-form-urlencoded), trimmed; undefined if absent. */
export function formField(ctx: RouteContext, name: string): string | undefined {
  const body = (ctx.request as { body?: unknown }).body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}
