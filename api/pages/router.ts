import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { sql } from 'kysely';
import { getAccountView, issueKey } from '../../shared/accounts/accounts.ts';
import {
  listKeys,
  liveKeyCount,
  ownKeyExists,
  revokeOwnKey,
  setNotificationPreferences,
} from '../../shared/accounts/console.ts';
import { createMailer } from '../../shared/accounts/mail.ts';
import { passwordProblem } from '../../shared/accounts/passwords.ts';
import {
  type AuthAction,
  acceptInvite,
  confirmSignup,
  emailLooksValid,
  getInvite,
  normalizeEmail,
  requestReset,
  requestSignup,
  resetPassword,
  resetPending,
  signupPending,
  takeAuthAttempt,
  verifySignIn,
} from '../../shared/accounts/people.ts';
import { takeToken } from '../../shared/accounts/rate-limit.ts';
import {
  createSession,
  endSession,
  loadSession,
  newSecret,
  SESSION_COOKIE,
  type SessionView,
} from '../../shared/accounts/sessions.ts';
import { rotateStatusToken } from '../../shared/accounts/status-token.ts';
import { siteInsights } from '../../shared/agent-traffic/insights.ts';
import {
  getSite,
  latestScans,
  listSites,
  registerSite,
  removeSite,
} from '../../shared/agent-traffic/sites.ts';
import {
  resolveWindow,
  siteAgents,
  siteDailyByPlatform,
  sitePages,
  siteStats,
} from '../../shared/agent-traffic/stats.ts';
import { recommendBundle } from '../../shared/audits/bundles.ts';
import { getOrder, listOrders, reportUrl } from '../../shared/audits/orders.ts';
import { listProducts } from '../../shared/audits/products.ts';
import { AppError } from '../../shared/errors.ts';
import { html } from '../../shared/html.ts';
import { recentAlerts, sitesWithHistory } from '../../shared/monitoring/history.ts';
import { addSite, statusPageUrl } from '../../shared/monitoring/sites.ts';
import { getScan, requestScan, vetTargetUrl } from '../../shared/scans/scans.ts';
import type { Services } from '../../shared/services.ts';
import { AGENT_READABILITY, modelResult, presentScanA } from '../presenters/scan.ts';
import {
  keyShownOnce,
  renderCheckInbox,
  renderConfirmSignup,
  renderInvite,
  renderMessage,
  renderResetForm,
  renderResetRequest,
  renderSignIn,
  renderSignUp,
} from './auth-pages.ts';
import { type CitabilityView, renderAgentSite, renderAgentSites } from './b-sites-pages.ts';
import {
  renderAccount,
  renderKeys,
  renderNoPlan,
  renderNotFound,
  renderOrder,
  renderOrders,
  renderOverview,
  renderSite,
  renderSites,
} from './console-pages.ts';
import { PAGE_CSP, type Viewer } from './layout.ts';
import { phaseLabel, renderHome, renderProgress, renderReport, renderScanFailed } from './scan-page.ts';

// Every page for people, mounted by api/app.ts in one line. Pages call the same shared/ functions
// as the REST handlers. Security: a strict CSP (assets only from this server), a CSRF token on every
// form (the session's, or a double-submit cookie before sign-in), httpOnly SameSite cookies that are
// Secure whenever the request came over https, and no-store on everything personal.

const CSRF_COOKIE = 'sl_csrf';

// ---- static assets, from this folder and from installed npm packages (never a CDN) -------------

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const ASSET_FILES: Record<string, { file: string; type: string }> = {
  'app.css': { file: path.join(here, 'assets/app.css'), type: 'text/css; charset=utf-8' },
  'app.js': { file: path.join(here, 'assets/app.js'), type: 'text/javascript; charset=utf-8' },
  'favicon.svg': { file: path.join(here, 'assets/favicon.svg'), type: 'image/svg+xml' },
  'uplot.js': {
    file: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};
const assets = new Map(
  Object.entries(ASSET_FILES).map(([name, a]) => {
    const body = fs.readFileSync(a.file);
    return [
      name,
      { body, type: a.type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` },
    ];
  }),
);

// ---- request helpers ---------------------------------------------------------------------------

interface Web {
  viewer: Viewer | null;
  session: SessionView | null;
  /** The token this response's forms carry. */
  csrf: string;
}

type Form = Record<string, string>;

function formOf(ctx: Context): Form {
  const body = (ctx.request as { body?: unknown }).body;
  const out: Form = {};
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

const cookieBase = (ctx: Context) => ({ httpOnly: true, secure: ctx.secure, path: '/', overwrite: true });

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

function html200(ctx: Context, body: string, status = 200) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

function setPageHeaders(ctx: Context) {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

type Handler = (ctx: Context, web: Web) => Promise<void>;

export function pageRoutes(services: Services): Middleware {
  const { db, config, log } = services;
  const mailer = createMailer(config, log);
  const deps = { db, config, mailer };
  const router = new Router();
  // Forms are parsed only once a page route has matched (as API bodies are, after routing).
  router.use(
    koaBody({
      formLimit: config.BODY_LIMIT,
      jsonLimit: config.BODY_LIMIT,
      textLimit: config.BODY_LIMIT,
      multipart: false,
      onError: (err) => {
        throw err;
      },
    }),
  );

  /** Loads the session, checks CSRF on POST, renders errors as pages. */
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
        const ok = sameSecret(sent, session?.csrf) || sameSecret(sent, ctx.cookies.get(CSRF_COOKIE));
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
      try {
        await handler(ctx, web);
      } catch (err) {
        if (err instanceof AppError && err.status < 500) {
          html200(
            ctx,
            err.status === 404 ? renderNotFound(viewer) : renderMessage(err.title, err.detail, viewer),
            err.status,
          );
          return;
        }
        log.error({ err, path: ctx.path, requestId: ctx.state.requestId }, 'page failed');
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
  const signedIn = (h: Handler) => page(h, { signedIn: true });
  const viewerOf = (web: Web) => web.viewer!;
  const accountOf = (web: Web) => web.session!.accountId;

  const startSession = async (ctx: Context, accountId: string) => {
    const s = await createSession(db, accountId, config.SESSION_TTL_DAYS, ctx.get('user-agent'));
    ctx.cookies.set(SESSION_COOKIE, s.token, { ...cookieBase(ctx), sameSite: 'lax', maxAge: s.maxAgeMs });
    return s;
  };

  const limitedPage = (resetAt: number, action: AuthAction) => {
    const minutes = Math.max(1, Math.ceil((resetAt * 1000 - Date.now()) / 60_000));
    const what =
      action === 'signin' ? 'sign-in attempts' : action === 'signup' ? 'sign-ups' : 'reset requests';
    return renderMessage(
      'Too many attempts',
      `There have been too many ${what} from your address or for this email address. Try again in about ${minutes} min.`,
    );
  };

  // ---- assets -----------------------------------------------------------------------------------
  router.get('/assets/:name', async (ctx) => {
    const a = assets.get(ctx.params.name!);
    if (!a) return; // falls through to the API's 404
    ctx.state.routeName = '/assets/:name';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('ETag', a.etag);
    if (ctx.get('if-none-match') === a.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = a.type;
    ctx.body = a.body;
  });

  // ---- the free scan ----------------------------------------------------------------------------
  router.get('/', async (ctx, next) => {
    // Content negotiation: browsers ask for text/html; API clients (curl's */*, JSON) get JSON.
    if (!(ctx.get('accept') ?? '').includes('text/html')) {
      ctx.state.routeName = '/';
      ctx.body = {
        service: 'Sightline',
        status: `${config.publicBaseUrl}/api/v1/status`,
        openapi: `${config.publicBaseUrl}/openapi.json`,
        docs: config.docsUrl,
      };
      return;
    }
    await page(async (c, web) => {
      const url = typeof c.query.url === 'string' ? c.query.url.slice(0, 2000) : undefined;
      html200(c, renderHome({ viewer: web.viewer, csrf: web.csrf, url }));
    })(ctx, next);
  });

  router.post(
    '/scan',
    page(async (ctx, web) => {
      const input = (formOf(ctx).url ?? '').trim();
      if (!input) {
        html200(
          ctx,
          renderHome({ viewer: web.viewer, csrf: web.csrf, error: 'Enter a website address.' }),
          400,
        );
        return;
      }
      // The same per-address allowance as the keyless API scan (POST /api/public/scan): one bucket.
      const state = await takeToken(db, `ip:public-scan:${ctx.ip}`, config.PUBLIC_SCAN_IP_LIMIT);
      ctx.set('X-RateLimit-Limit', String(state.limit));
      ctx.set('X-RateLimit-Remaining', String(state.remaining));
      ctx.set('X-RateLimit-Reset', String(state.reset));
      if (!state.allowed) {
        ctx.set('Retry-After', String(Math.max(1, state.reset - Math.floor(Date.now() / 1000))));
        html200(
          ctx,
          renderHome({
            viewer: web.viewer,
            csrf: web.csrf,
            url: input,
            limited: { limit: state.limit, resetAt: state.reset, now: Date.now() },
          }),
          429,
        );
        return;
      }
      let url: URL;
      try {
        url = await vetTargetUrl(services, input);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 400) throw err;
        html200(ctx, renderHome({ viewer: web.viewer, csrf: web.csrf, url: input, error: err.detail }), 400);
        return;
      }
      const scan = await requestScan(services, {
        url,
        mode: config.WEB_SCAN_MODE,
        accountId: web.session?.accountId ?? null,
      });
      ctx.status = 303;
      ctx.redirect(`/r/${scan.id}`);
    }),
  );

  const SCAN_ID = /^sc_[A-Za-z0-9_-]{16}$/;

  router.get('/r/:id/state', async (ctx) => {
    ctx.state.routeName = '/r/:id/state';
    ctx.set('Cache-Control', 'no-store');
    const scan = SCAN_ID.test(ctx.params.id!) ? await getScan(services, ctx.params.id!) : undefined;
    if (!scan) {
      ctx.status = 404;
      ctx.body = { done: true };
      return;
    }
    ctx.body = {
      done: scan.status === 'done' || scan.status === 'failed',
      status: scan.status,
      label: phaseLabel(scan),
    };
  });

  router.get(
    '/r/:id',
    page(async (ctx, web) => {
      const id = ctx.params.id!;
      const scan = SCAN_ID.test(id) ? await getScan(services, id) : undefined;
      if (!scan) {
        html200(ctx, renderNotFound(web.viewer), 404);
        return;
      }
      // The link is the secret (scan ids are unguessable): keep it out of Referer headers.
      ctx.set('Referrer-Policy', 'no-referrer');
      if (scan.status === 'queued' || scan.status === 'running') {
        html200(ctx, renderProgress(scan, web.viewer));
        return;
      }
      if (scan.status === 'failed') {
        html200(ctx, renderScanFailed(scan, web.viewer));
        return;
      }
      const a = presentScanA(scan);
      const prices = new Map((await listProducts(db)).map((p) => [p.id, p.price_pence]));
      html200(
        ctx,
        renderReport({
          scan,
          a: { ...a, recommendation: recommendBundle(a.dimensions, prices, config) },
          b: modelResult(scan, AGENT_READABILITY),
          shareUrl: `${config.publicSiteUrl}/r/${scan.id}`,
          viewer: web.viewer,
        }),
      );
    }),
  );

  // ---- sign-in, sign-up, invitations, reset ------------------------------------------------------
  const safeNext = (next: string | undefined) =>
    next && /^\/console(\/[A-Za-z0-9_\-/]*)?$/.test(next) ? next : '/console';

  router.get(
    '/signin',
    page(async (ctx, web) => {
      if (web.session) return ctx.redirect('/console');
      const next = typeof ctx.query.next === 'string' ? safeNext(ctx.query.next) : undefined;
      html200(ctx, renderSignIn({ csrf: web.csrf, next }));
    }),
  );
  router.post(
    '/signin',
    page(async (ctx, web) => {
      const f = formOf(ctx);
      const email = normalizeEmail(f.email ?? '');
      const next = safeNext(f.next);
      const state = await takeAuthAttempt(deps, 'signin', ctx.ip, email);
      if (!state.allowed) {
        ctx.set('Retry-After', String(Math.max(1, state.reset - Math.floor(Date.now() / 1000))));
        html200(ctx, limitedPage(state.reset, 'signin'), 429);
        return;
      }
      const accountId = email && f.password ? await verifySignIn(db, email, f.password) : null;
      if (!accountId) {
        html200(
          ctx,
          renderSignIn({
            csrf: web.csrf,
            email,
            next,
            errors: { form: 'That email and password do not match an account.' },
          }),
          401,
        );
        return;
      }
      await endSession(db, ctx.cookies.get(SESSION_COOKIE)); // a previous session in this browser ends
      await startSession(ctx, accountId);
      ctx.status = 303;
      ctx.redirect(next);
    }),
  );
  router.post(
    '/signout',
    page(async (ctx) => {
      await endSession(db, ctx.cookies.get(SESSION_COOKIE));
      ctx.cookies.set(SESSION_COOKIE, null, { ...cookieBase(ctx), sameSite: 'lax' });
      ctx.status = 303;
      ctx.redirect('/');
    }),
  );

  router.get(
    '/signup',
    page(async (ctx, web) => {
      if (web.session) return ctx.redirect('/console');
      html200(ctx, renderSignUp({ csrf: web.csrf }));
    }),
  );
  router.post(
    '/signup',
    page(async (ctx, web) => {
      const f = formOf(ctx);
      const email = normalizeEmail(f.email ?? '');
      const password = f.password ?? '';
      const errors: { email?: string; password?: string } = {};
      if (!emailLooksValid(email)) errors.email = 'Enter an email address, like name@example.com.';
      const pw = passwordProblem(password);
      if (pw) errors.password = pw;
      if (errors.email || errors.password) {
        html200(ctx, renderSignUp({ csrf: web.csrf, email, errors }), 400);
        return;
      }
      const state = await takeAuthAttempt(deps, 'signup', ctx.ip, email);
      if (!state.allowed) {
        html200(ctx, limitedPage(state.reset, 'signup'), 429);
        return;
      }
      await requestSignup(deps, email, password);
      html200(ctx, renderCheckInbox(email, 'signup'));
    }),
  );

  const expired = (what: string) =>
    renderMessage('Link expired', `This ${what} link has expired or was already used. Links work once.`);
  const welcome = (ctx: Context, made: { key: string; keyPrefix: string; email: string }, viewer: Viewer) =>
    html200(
      ctx,
      renderMessage(
        'Welcome to Sightline',
        html`<p>Your account <strong>${made.email}</strong> is ready, and you are signed in. We also emailed you this key.</p>${keyShownOnce(made.key, made.keyPrefix)}<p><a class="button" href="/console">Go to the console</a></p>`,
        viewer,
      ),
    );

  router.get(
    '/signup/confirm/:token',
    page(async (ctx, web) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      if (!(await signupPending(db, ctx.params.token!))) return html200(ctx, expired('confirmation'), 410);
      html200(ctx, renderConfirmSignup(web.csrf, ctx.params.token!));
    }),
  );
  router.post(
    '/signup/confirm/:token',
    page(async (ctx) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      const made = await confirmSignup(deps, ctx.params.token!);
      if (!made) return html200(ctx, expired('confirmation'), 410);
      const s = await startSession(ctx, made.accountId);
      welcome(ctx, made, { email: made.email, variant: 'A', csrf: s.csrf });
    }),
  );

  router.get(
    '/invite/:token',
    page(async (ctx, web) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      const invite = await getInvite(db, ctx.params.token!);
      if (!invite) return html200(ctx, expired('invitation'), 410);
      html200(
        ctx,
        renderInvite({ csrf: web.csrf, token: ctx.params.token!, email: invite.email, tier: invite.tier }),
      );
    }),
  );
  router.post(
    '/invite/:token',
    page(async (ctx, web) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      const token = ctx.params.token!;
      const invite = await getInvite(db, token);
      if (!invite) return html200(ctx, expired('invitation'), 410);
      const password = formOf(ctx).password ?? '';
      const pw = passwordProblem(password);
      if (pw) {
        html200(
          ctx,
          renderInvite({
            csrf: web.csrf,
            token,
            email: invite.email,
            tier: invite.tier,
            errors: { password: pw },
          }),
          400,
        );
        return;
      }
      const made = await acceptInvite(deps, token, password);
      if (!made) return html200(ctx, expired('invitation'), 410);
      const s = await startSession(ctx, made.accountId);
      welcome(ctx, made, { email: made.email, variant: invite.variant, csrf: s.csrf });
    }),
  );

  router.get(
    '/reset',
    page(async (ctx, web) => html200(ctx, renderResetRequest({ csrf: web.csrf, email: web.viewer?.email }))),
  );
  router.post(
    '/reset',
    page(async (ctx, web) => {
      const email = normalizeEmail(formOf(ctx).email ?? '');
      if (!emailLooksValid(email)) {
        html200(
          ctx,
          renderResetRequest({
            csrf: web.csrf,
            email,
            errors: { email: 'Enter an email address, like name@example.com.' },
          }),
          400,
        );
        return;
      }
      const state = await takeAuthAttempt(deps, 'reset', ctx.ip, email);
      if (!state.allowed) {
        html200(ctx, limitedPage(state.reset, 'reset'), 429);
        return;
      }
      await requestReset(deps, email);
      html200(ctx, renderCheckInbox(email, 'reset'));
    }),
  );
  router.get(
    '/reset/:token',
    page(async (ctx, web) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      if (!(await resetPending(db, ctx.params.token!))) return html200(ctx, expired('password reset'), 410);
      html200(ctx, renderResetForm({ csrf: web.csrf, token: ctx.params.token! }));
    }),
  );
  router.post(
    '/reset/:token',
    page(async (ctx, web) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      const token = ctx.params.token!;
      const password = formOf(ctx).password ?? '';
      const pw = passwordProblem(password);
      if (pw) return html200(ctx, renderResetForm({ csrf: web.csrf, token, errors: { password: pw } }), 400);
      const accountId = await resetPassword(deps, token, password);
      if (!accountId) return html200(ctx, expired('password reset'), 410);
      ctx.cookies.set(SESSION_COOKIE, null, { ...cookieBase(ctx), sameSite: 'lax' });
      html200(
        ctx,
        renderMessage(
          'Password changed',
          html`<p>Your new password is set, and every session of your account was signed out.</p><p><a class="button" href="/signin">Sign in</a></p>`,
        ),
      );
    }),
  );

  // ---- the console ------------------------------------------------------------------------------
  const accountInfo = async (accountId: string) => {
    const a = await getAccountView(db, accountId);
    if (!a) throw new AppError(404, 'not_found', 'Not found');
    return a;
  };
  const activeSubscription = (accountId: string) =>
    db
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'active')
      .executeTakeFirst();
  const notFoundPage = (ctx: Context, web: Web) => html200(ctx, renderNotFound(web.viewer), 404);
  const variantA = (web: Web) => web.session!.variant === 'A';

  router.get(
    '/console',
    signedIn(async (ctx, web) => {
      const accountId = accountOf(web);
      const account = await accountInfo(accountId);
      const sub = account.variant === 'A' ? await activeSubscription(accountId) : undefined;
      const sites = sub
        ? Number(
            (
              await db
                .selectFrom('monitored_sites')
                .select((eb) => eb.fn.countAll<string>().as('n'))
                .where('account_id', '=', accountId)
                .executeTakeFirstOrThrow()
            ).n,
          )
        : 0;
      const orders = account.variant === 'A' ? (await listOrders(db, { accountId, limit: 1000 })).length : 0;
      html200(
        ctx,
        renderOverview(viewerOf(web), {
          account,
          liveKeys: await liveKeyCount(db, accountId),
          monitoring: sub ? { sites, quota: sub.site_quota } : null,
          orders,
          agentSites: account.variant === 'B' ? (await listSites(db, accountId)).length : undefined,
          baseUrl: config.publicBaseUrl,
        }),
      );
    }),
  );

  router.get(
    '/console/keys',
    signedIn(async (ctx, web) => html200(ctx, renderKeys(viewerOf(web), await listKeys(db, accountOf(web))))),
  );
  router.post(
    '/console/keys',
    signedIn(async (ctx, web) => {
      const key = await issueKey(db, accountOf(web));
      html200(
        ctx,
        renderKeys(viewerOf(web), await listKeys(db, accountOf(web)), {
          created: { key: key.key, prefix: key.displayPrefix },
        }),
        201,
      );
    }),
  );
  router.post(
    '/console/keys/:id/revoke',
    signedIn(async (ctx, web) => {
      const accountId = accountOf(web);
      const id = ctx.params.id!;
      if (!(await ownKeyExists(db, accountId, id))) return notFoundPage(ctx, web);
      await revokeOwnKey(db, accountId, id);
      const keys = await listKeys(db, accountId);
      const prefix = keys.find((k) => k.id === id)?.display_prefix;
      html200(ctx, renderKeys(viewerOf(web), keys, { revoked: prefix }));
    }),
  );

  router.get(
    '/console/account',
    signedIn(async (ctx, web) =>
      html200(ctx, renderAccount(viewerOf(web), await accountInfo(accountOf(web)))),
    ),
  );
  router.post(
    '/console/account/notifications',
    signedIn(async (ctx, web) => {
      const f = formOf(ctx);
      await setNotificationPreferences(db, accountOf(web), {
        email_alerts: f.email_alerts === 'on',
        weekly_digest: f.weekly_digest === 'on',
      });
      html200(ctx, renderAccount(viewerOf(web), await accountInfo(accountOf(web)), true));
    }),
  );

  const sitesPage = async (
    ctx: Context,
    web: Web,
    form?: Parameters<typeof renderSites>[1]['form'],
    status = 200,
    newStatusUrl?: string,
  ) => {
    const accountId = accountOf(web);
    const sub = await activeSubscription(accountId);
    if (!sub) return html200(ctx, renderNoPlan(viewerOf(web)));
    html200(
      ctx,
      renderSites(viewerOf(web), {
        sites: await sitesWithHistory(db, accountId),
        quota: sub.site_quota,
        plan: sub.plan,
        scanFrequency: sub.scan_frequency,
        statusPage: { prefix: sub.status_token_prefix, newUrl: newStatusUrl },
        alerts: await recentAlerts(db, accountId),
        form,
      }),
      status,
    );
  };
  router.get(
    '/console/sites',
    signedIn(async (ctx, web) => (variantA(web) ? sitesPage(ctx, web) : notFoundPage(ctx, web))),
  );
  router.post(
    '/console/sites',
    signedIn(async (ctx, web) => {
      if (!variantA(web)) return notFoundPage(ctx, web);
      const f = formOf(ctx);
      const siteType = f.site_type === 'competitor' ? 'competitor' : 'own';
      const label = f.label?.trim() || undefined;
      try {
        const site = await addSite(services, accountOf(web), { url: f.url ?? '', label, siteType });
        await sitesPage(ctx, web, { added: site.label }, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        await sitesPage(ctx, web, { url: f.url, label: f.label, siteType, error: err.detail }, err.status);
      }
    }),
  );
  router.post(
    '/console/sites/status-link',
    signedIn(async (ctx, web) => {
      if (!variantA(web)) return notFoundPage(ctx, web);
      const token = await rotateStatusToken(db, accountOf(web));
      await sitesPage(ctx, web, undefined, 200, token ? statusPageUrl(config, token) : undefined);
    }),
  );
  router.get(
    '/console/sites/:id',
    signedIn(async (ctx, web) => {
      const id = ctx.params.id!;
      if (!variantA(web) || !/^\d{1,18}$/.test(id)) return notFoundPage(ctx, web);
      const [site] = await sitesWithHistory(db, accountOf(web), { siteId: id });
      if (!site) return notFoundPage(ctx, web);
      html200(
        ctx,
        renderSite(viewerOf(web), {
          ...site,
          alerts: await recentAlerts(db, accountOf(web), { siteId: id }),
        }),
      );
    }),
  );

  router.get(
    '/console/audits',
    signedIn(async (ctx, web) => {
      if (!variantA(web)) return notFoundPage(ctx, web);
      html200(
        ctx,
        renderOrders(viewerOf(web), await listOrders(db, { accountId: accountOf(web), limit: 200 })),
      );
    }),
  );
  router.get(
    '/console/audits/:id',
    signedIn(async (ctx, web) => {
      if (!variantA(web)) return notFoundPage(ctx, web);
      const order = await getOrder(db, accountOf(web), ctx.params.id!); // another account's: 404
      const links =
        order.status === 'delivered'
          ? { html: reportUrl(config, order), json: reportUrl(config, order, 'json') }
          : null;
      html200(ctx, renderOrder(viewerOf(web), order, links));
    }),
  );
  // ---- agent traffic (B): registered sites and their dashboards ----------------------------------
  const variantB = (web: Web) => web.session!.variant === 'B';
  const agentSitesPage = async (
    ctx: Context,
    web: Web,
    extra: Omit<Parameters<typeof renderAgentSites>[1], 'sites' | 'baseUrl' | 'now'> = {},
    status = 200,
  ) => {
    const sites = await listSites(db, accountOf(web));
    const scans = await latestScans(db, sites);
    const { rows } = await sql<{ now: Date }>`select date_trunc('second', now()) as now`.execute(db);
    html200(
      ctx,
      renderAgentSites(viewerOf(web), {
        sites: sites.map((site) => ({ site, scan: scans.get(site.id) })),
        baseUrl: config.publicBaseUrl,
        now: rows[0]!.now.toISOString().replace('.000Z', 'Z'),
        ...extra,
      }),
      status,
    );
  };
  router.get(
    '/console/agent-sites',
    signedIn(async (ctx, web) => (variantB(web) ? agentSitesPage(ctx, web) : notFoundPage(ctx, web))),
  );
  router.post(
    '/console/agent-sites',
    signedIn(async (ctx, web) => {
      if (!variantB(web)) return notFoundPage(ctx, web);
      const f = formOf(ctx);
      try {
        const made = await registerSite(db, { accountId: accountOf(web), url: f.url ?? '', label: f.label });
        // The ingest token is in this answer only: never cached, never in a Referer.
        ctx.set('Referrer-Policy', 'no-referrer');
        await agentSitesPage(ctx, web, { registered: { site: made.site, token: made.ingestToken } }, 201);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        await agentSitesPage(
          ctx,
          web,
          { form: { url: f.url, label: f.label, error: err.detail } },
          err.status,
        );
      }
    }),
  );
  const AGENT_SITE_ID = /^(?:\d{1,18}|site_[0-9A-Za-z]{16})$/;
  router.get(
    '/console/agent-sites/:id',
    signedIn(async (ctx, web) => {
      const id = ctx.params.id!;
      if (!variantB(web) || !AGENT_SITE_ID.test(id)) return notFoundPage(ctx, web);
      const site = await getSite(db, accountOf(web), id); // another account's: 404
      const w = await resolveWindow(db);
      const [stats, daily, agents, pages, insights, scans] = await Promise.all([
        siteStats(db, site, w),
        siteDailyByPlatform(db, site, w),
        siteAgents(db, site, w),
        sitePages(db, site, w, 20),
        siteInsights(db, site, w),
        latestScans(db, [site]),
      ]);
      const scanId = scans.get(site.id)?.scanId;
      const scan = scanId ? await getScan(services, scanId, { artifacts: false }) : undefined;
      const citability: CitabilityView | null =
        scan?.finished_at && scan.results?.[AGENT_READABILITY]
          ? {
              // The newest scan of the address counts whoever ran it (as GET /api/v1/sites), but
              // its report link (the scan id is the secret) only for this account's own scans.
              scanId: scan.account_id === accountOf(web) ? scan.id : null,
              scannedAt: scan.finished_at,
              result: modelResult(scan, AGENT_READABILITY),
            }
          : null;
      html200(
        ctx,
        renderAgentSite(viewerOf(web), {
          site,
          stats,
          daily,
          agents,
          pages,
          insights,
          scan: citability,
          baseUrl: config.publicBaseUrl,
        }),
      );
    }),
  );
  router.post(
    '/console/agent-sites/:id/remove',
    signedIn(async (ctx, web) => {
      const id = ctx.params.id!;
      if (!variantB(web) || !AGENT_SITE_ID.test(id)) return notFoundPage(ctx, web);
      const site = await getSite(db, accountOf(web), id); // another account's: 404
      await removeSite(db, accountOf(web), site.id);
      await agentSitesPage(ctx, web, { removed: site.label });
    }),
  );

  router.get(
    '/console/*rest',
    signedIn(async (ctx, web) => notFoundPage(ctx, web)),
  );

  return router.routes() as Middleware;
}
