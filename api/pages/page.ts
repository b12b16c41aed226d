import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Variant } from '../../shared/db/tables/accounts.ts';
import { html } from '../../shared/html.ts';
import { renderMessage } from './auth-pages.ts';
import { formOf, html200, isVariant, type PageKit, type Web } from './web.ts';

// One declaration per page, as api/route.ts declares an endpoint: its method and path, who may
// see it, the zod schemas of its path parameters and form, and its handler. The mount wraps each
// in the page kit (session, CSRF, headers, errors as pages) and checks the declaration before the
// handler runs, so a handler sees only callers and input its declaration admits.

/**
 * Who may see a page: anyone, any signed-in account, or only a signed-in account of one variant
 * (the other variant's accounts get the not-found page, as if the page did not exist).
 */
export type PageAuth = 'anyone' | 'signed-in' | Variant;

export interface PageInput<P, F> {
  params: P;
  form: F;
}

export interface PageDef<P extends z.ZodType = z.ZodType, F extends z.ZodType = z.ZodType> {
  method: 'get' | 'post';
  path: string; // Koa style: /console/sites/:id
  auth: PageAuth;
  /** Path parameters; a value that does not parse is the not-found page. */
  params?: P;
  /** The POST form's fields; a form that does not parse is a 400 page naming its fields. */
  form?: F;
  /**
   * Callers that do not ask for HTML (Accept without text/html): 'pass' leaves the request to
   * the API routes behind the pages; a function answers them itself. Unset: the page for all.
   */
  forMachines?: 'pass' | ((ctx: Context, kit: PageKit) => void);
  handler: (
    ctx: Context,
    web: Web,
    input: PageInput<z.output<P>, z.output<F>>,
    kit: PageKit,
  ) => Promise<void>;
}

export function definePage<P extends z.ZodType, F extends z.ZodType>(def: PageDef<P, F>): PageDef {
  return def as unknown as PageDef;
}

/** Whether the caller asked for a page (a browser's Accept names text/html). */
export const wantsHtml = (ctx: Context) => (ctx.get('accept') ?? '').includes('text/html');

/** Mounts declared pages on the pages' router, each wrapped by the page kit. */
export function mountPages(router: Router, kit: PageKit, pages: PageDef[]): void {
  for (const def of pages) {
    const page = kit.page((ctx, web) => runPage(def, kit, ctx, web), { signedIn: def.auth !== 'anyone' });
    router[def.method](def.path, (ctx, next) => {
      if (def.forMachines && !wantsHtml(ctx)) {
        if (def.forMachines === 'pass') return next();
        ctx.state.routeName = def.path;
        def.forMachines(ctx, kit);
        return;
      }
      return page(ctx, next);
    });
  }
}

async function runPage(def: PageDef, kit: PageKit, ctx: Context, web: Web): Promise<void> {
  if ((def.auth === 'A' || def.auth === 'B') && !isVariant(web, def.auth)) return kit.notFoundPage(ctx, web);
  const params = def.params
    ? def.params.safeParse(ctx.params ?? {})
    : { success: true as const, data: ctx.params };
  if (!params.success) return kit.notFoundPage(ctx, web);
  const form = def.form ? def.form.safeParse(formOf(ctx)) : { success: true as const, data: formOf(ctx) };
  if (!form.success) {
    const fields = form.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`);
    html200(
      ctx,
      renderMessage(
        'Check the form',
        html`<p>This form could not be accepted:</p><ul>${fields.map((f) => html`<li>${f}</li>`)}</ul><p>Go back, correct it and send it again.</p>`,
        web.viewer,
      ),
      400,
    );
    return;
  }
  await def.handler(ctx, web, { params: params.data, form: form.data }, kit);
}
