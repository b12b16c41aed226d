import { timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { RateState } from '../../shared/accounts/rate-limit.ts';
import { findNul } from '../../shared/db/json.ts';
import type { Variant } from '../../shared/db/tables/accounts.ts';
import { html } from '../../shared/html.ts';
import { createMailer } from '../../shared/people/mail.ts';
import {
  createSession,
  loadSession,
  newSecret,
  SESSION_COOKIE,
  type SessionView,
} from '../../shared/people/sessions.ts';
import type { Services } from '../../shared/services.ts';
import { noteFailure, toAppError } from '../middlewares/errors.ts';
import { setRateHeaders } from '../middlewares/guard.ts';
import { renderMessage } from './auth-pages.ts';
import { renderNotFound } from './console-pages.ts';
import { PAGE_CSP, type Viewer } from './layout.ts';

// What every page route shares: the session, CSRF on forms, cookies, security headers, and errors
// rendered as pages. Security: a strict CSP (assets only from this server), a CSRF token on every
// form (the session's, or a double-submit cookie before sign-in), httpOnly SameSite cookies that
// are Secure whenever the request came over https, and no-store on everything personal.

const CSRF_COOKIE = 'sl_csrf';

/** Who is asking, as a page handler sees it. */
export interface Web {
  viewer: Viewer | null;
  session: SessionView | null;
  /** The token this response's forms carry. */
  csrf: string;
}

export type Form = Record<string, string>;

export type Handler = (ctx: Context, web: Web) => Promise<void>;

/** The string fields of a parsed form body. */
export function formOf(ctx: Context): Form {
  const body = (ctx.request as { body?: unknown }).body;
  const out: Form = {};
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

export const cookieBase = (ctx: Context) => ({
  httpOnly: true,
  secure: ctx.secure,
  path: '/',
  overwrite: true,
});

/** The double-submit CSRF token of a browser without a session, set on first sight. */
function anonCsrf(ctx: Context): string {
  let token = ctx.cookies.get(CSRF_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
    token = newSecret();
    ctx.cookies.set(CSRF_COOKIE, token, { ...cookieBase(ctx), sameSite: 'strict' });
  }
  return token;
}

function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Post/redirect/get: 303 See Other, so the browser GETs `location` and a reload repeats nothing. */
export function seeOther(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
}

export function html200(ctx: Context, body: string, status = 200) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/**
 * The bucket this request was counted in, as X-RateLimit-* (the frame would otherwise show the
 * address's general bucket, which a form's own allowance is not), and Retry-After once it is full.
 */
export function showBucket(ctx: Context, state: RateState): void {
  setRateHeaders(ctx, state);
  if (!state.allowed)
    ctx.set('Retry-After', String(Math.max(1, state.reset - Math.floor(Date.now() / 1000))));
}

/** The security headers of every page (also error pages made outside a page route). */
export function setPageHeaders(ctx: Context) {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

/** What each group of page routes is given by the router. */
export interface PageKit {
  services: Services;
  /** What the people functions of shared/accounts take. */
  deps: Pick<Services, 'db' | 'config'> & { mailer: ReturnType<typeof createMailer> };
  /** Wraps a handler: loads the session, checks CSRF on POST, renders errors as pages. */
  page(handler: Handler, opts?: { signedIn?: boolean }): Middleware;
  /** `page` for the console: a browser without a session is sent to sign in. */
  signedIn(handler: Handler): Middleware;
  /** Starts a session for the account and sets its cookie. */
  startSession(ctx: Context, accountId: string): Promise<{ csrf: string }>;
  notFoundPage(ctx: Context, web: Web): void;
}

export function pageKit(services: Services): PageKit {
  const { db, config, log } = services;
  const deps = { db, config, mailer: createMailer(config, log) };

  const page =
    (handler: Handler, opts: { signedIn?: boolean } = {}): Middleware =>
    async (ctx) => {
      ctx.state.routeName = (ctx as { _matchedRoute?: string })._matchedRoute ?? ctx.path;
      setPageHeaders(ctx);
      const session = await loadSession(db, ctx.cookies.get(SESSION_COOKIE));
      const viewer = session ? { email: session.email, variant: session.variant, csrf: session.csrf } : null;
      if (opts.signedIn && !session) {
        if (ctx.method === 'GET') {
          ctx.redirect(`/signin?next=${encodeURIComponent(ctx.path)}`);
          return;
        }
        html200(
          ctx,
          renderMessage(
            'Signed out',
            html`<p>Your session has ended. <a href="/signin">Sign in</a> again.</p>`,
          ),
          401,
        );
        return;
      }
      const web: Web = { viewer, session, csrf: session?.csrf ?? anonCsrf(ctx) };
      if (ctx.method === 'POST') {
        const sent = formOf(ctx)._csrf;
        // Signed in, only the session's own token counts: the double-submit cookie could have
        // been planted (from a sibling subdomain, or over plain http) by whoever chose its value.
        const ok = session ? sameSecret(sent, session.csrf) : sameSecret(sent, ctx.cookies.get(CSRF_COOKIE));
        if (!ok) {
          html200(
            ctx,
            renderMessage(
              'Form refused',
              'This form could not be accepted: it was not sent from a Sightline page, or it is too old. Go back, reload the page and try again.',
              viewer,
            ),
            403,
          );
          return;
        }
      }
      // Postgres refuses a NUL byte in text: say so rather than fail on the first query.
      const nul = findNul({ ...ctx.params, ...formOf(ctx) }, 'field');
      if (nul) {
        html200(
          ctx,
          renderMessage(
            'Invalid character',
            'This address or form holds a character that cannot be stored (a NUL byte). Remove it and try again.',
            viewer,
          ),
          400,
        );
        return;
      }
      try {
        await handler(ctx, web);
      } catch (thrown) {
        // As in the API: a value Postgres cannot take is the request's fault, a lost database a 503.
        const err = toAppError(thrown);
        noteFailure(ctx, thrown, err, log); // the request's one log line carries it (observe.ts)
        if (err.status < 500 || err.status === 503) {
          for (const [name, value] of Object.entries(err.extra.headers ?? {})) ctx.set(name, value);
          html200(
            ctx,
            err.status === 404 ? renderNotFound(viewer) : renderMessage(err.title, err.detail, viewer),
            err.status,
          );
          return;
        }
        html200(
          ctx,
          renderMessage(
            'Something went wrong',
            'Something went wrong on our side; it has been logged. Please try again.',
            viewer,
          ),
          500,
        );
      }
    };

  return {
    services,
    deps,
    page,
    signedIn: (handler) => page(handler, { signedIn: true }),
    startSession: async (ctx, accountId) => {
      const s = await createSession(db, accountId, config.SESSION_TTL_DAYS, ctx.get('user-agent'));
      ctx.cookies.set(SESSION_COOKIE, s.token, { ...cookieBase(ctx), sameSite: 'lax', maxAge: s.maxAgeMs });
      return s;
    },
    notFoundPage: (ctx, web) => html200(ctx, renderNotFound(web.viewer), 404),
  };
}

/** The signed-in viewer and account of a `signedIn` handler (set whenever it runs). */
export const viewerOf = (web: Web) => web.viewer!;
export const accountOf = (web: Web) => web.session!.accountId;
/** Whether the signed-in account is of this variant (the other variant's pages answer 404). */
export const isVariant = (web: Web, variant: Variant) => web.session?.variant === variant;
