import type { Context } from 'koa';
import { html } from '../../../shared/html.ts';
import { passwordProblem } from '../../../shared/people/passwords.ts';
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
} from '../../../shared/people/people.ts';
import { endSession, SESSION_COOKIE } from '../../../shared/people/sessions.ts';
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
} from '../auth-pages.ts';
import type { Viewer } from '../layout.ts';
import { definePage, type PageDef } from '../page.ts';
import { cookieBase, formOf, html200, type PageKit, seeOther, showBucket } from '../web.ts';

// Sign-in and sign-out, sign-up and its confirmation link, invitations (variant B), password reset.
// Links that carry a token keep it out of Referer headers.

/** Where a sign-in may send the browser afterwards: only into the console. */
const safeNext = (next: string | undefined) =>
  next && /^\/console(\/[A-Za-z0-9_\-/]*)?$/.test(next) ? next : '/console';

const limitedPage = (resetAt: number, action: AuthAction) => {
  const minutes = Math.max(1, Math.ceil((resetAt * 1000 - Date.now()) / 60_000));
  const what = action === 'signin' ? 'sign-in attempts' : action === 'signup' ? 'sign-ups' : 'reset requests';
  return renderMessage(
    'Too many attempts',
    `There have been too many ${what} from your address or for this email address. Try again in about ${minutes} min.`,
  );
};

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

export function authRoutes(kit: PageKit): PageDef[] {
  return [...signInPages(kit), ...signUpPages(kit), ...invitePages(kit), ...resetPages(kit)];
}

/** Sign-in and sign-out. */
function signInPages({ services, deps, startSession }: PageKit): PageDef[] {
  const { db } = services;
  return [
    definePage({
      method: 'get',
      path: '/signin',
      auth: 'anyone',
      handler: async (ctx, web) => {
        if (web.session) return ctx.redirect('/console');
        const next = typeof ctx.query.next === 'string' ? safeNext(ctx.query.next) : undefined;
        html200(ctx, renderSignIn({ csrf: web.csrf, next }));
      },
    }),
    definePage({
      method: 'post',
      path: '/signin',
      auth: 'anyone',
      handler: async (ctx, web) => {
        const f = formOf(ctx);
        const email = normalizeEmail(f.email ?? '');
        const next = safeNext(f.next);
        const state = await takeAuthAttempt(deps, 'signin', ctx.ip, email);
        showBucket(ctx, state);
        if (!state.allowed) {
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
        seeOther(ctx, next);
      },
    }),
    definePage({
      method: 'post',
      path: '/signout',
      auth: 'anyone',
      handler: async (ctx) => {
        await endSession(db, ctx.cookies.get(SESSION_COOKIE));
        ctx.cookies.set(SESSION_COOKIE, null, { ...cookieBase(ctx), sameSite: 'lax' });
        seeOther(ctx, '/');
      },
    }),
  ];
}

/** Sign-up and its confirmation link. */
function signUpPages({ services, deps, startSession }: PageKit): PageDef[] {
  const { db } = services;
  return [
    definePage({
      method: 'get',
      path: '/signup',
      auth: 'anyone',
      handler: async (ctx, web) => {
        if (web.session) return ctx.redirect('/console');
        html200(ctx, renderSignUp({ csrf: web.csrf }));
      },
    }),
    definePage({
      method: 'post',
      path: '/signup',
      auth: 'anyone',
      handler: async (ctx, web) => {
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
        showBucket(ctx, state);
        if (!state.allowed) {
          html200(ctx, limitedPage(state.reset, 'signup'), 429);
          return;
        }
        await requestSignup(deps, email, password);
        html200(ctx, renderCheckInbox(email, 'signup', deps.mailer.delivers));
      },
    }),

    definePage({
      method: 'get',
      path: '/signup/confirm/:token',
      auth: 'anyone',
      handler: async (ctx, web) => {
        ctx.set('Referrer-Policy', 'no-referrer');
        if (!(await signupPending(db, ctx.params.token!))) return html200(ctx, expired('confirmation'), 410);
        html200(ctx, renderConfirmSignup(web.csrf, ctx.params.token!));
      },
    }),
    definePage({
      method: 'post',
      path: '/signup/confirm/:token',
      auth: 'anyone',
      handler: async (ctx) => {
        ctx.set('Referrer-Policy', 'no-referrer');
        const made = await confirmSignup(deps, ctx.params.token!);
        if (!made) return html200(ctx, expired('confirmation'), 410);
        const s = await startSession(ctx, made.accountId);
        welcome(ctx, made, { email: made.email, variant: 'A', csrf: s.csrf });
      },
    }),
  ];
}

/** Invitations (variant B): the form and its acceptance. */
function invitePages({ services, deps, startSession }: PageKit): PageDef[] {
  const { db } = services;
  return [
    definePage({
      method: 'get',
      path: '/invite/:token',
      auth: 'anyone',
      handler: async (ctx, web) => {
        ctx.set('Referrer-Policy', 'no-referrer');
        const invite = await getInvite(db, ctx.params.token!);
        if (!invite) return html200(ctx, expired('invitation'), 410);
        html200(
          ctx,
          renderInvite({ csrf: web.csrf, token: ctx.params.token!, email: invite.email, tier: invite.tier }),
        );
      },
    }),
    definePage({
      method: 'post',
      path: '/invite/:token',
      auth: 'anyone',
      handler: async (ctx, web) => {
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
      },
    }),
  ];
}

/** Password reset: the request and the link. */
function resetPages({ services, deps }: PageKit): PageDef[] {
  const { db } = services;
  return [
    definePage({
      method: 'get',
      path: '/reset',
      auth: 'anyone',
      handler: async (ctx, web) =>
        html200(ctx, renderResetRequest({ csrf: web.csrf, email: web.viewer?.email })),
    }),
    definePage({
      method: 'post',
      path: '/reset',
      auth: 'anyone',
      handler: async (ctx, web) => {
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
        showBucket(ctx, state);
        if (!state.allowed) {
          html200(ctx, limitedPage(state.reset, 'reset'), 429);
          return;
        }
        await requestReset(deps, email);
        html200(ctx, renderCheckInbox(email, 'reset', deps.mailer.delivers));
      },
    }),
    definePage({
      method: 'get',
      path: '/reset/:token',
      auth: 'anyone',
      handler: async (ctx, web) => {
        ctx.set('Referrer-Policy', 'no-referrer');
        if (!(await resetPending(db, ctx.params.token!))) return html200(ctx, expired('password reset'), 410);
        html200(ctx, renderResetForm({ csrf: web.csrf, token: ctx.params.token! }));
      },
    }),
    definePage({
      method: 'post',
      path: '/reset/:token',
      auth: 'anyone',
      handler: async (ctx, web) => {
        ctx.set('Referrer-Policy', 'no-referrer');
        const token = ctx.params.token!;
        const password = formOf(ctx).password ?? '';
        const pw = passwordProblem(password);
        if (pw)
          return html200(ctx, renderResetForm({ csrf: web.csrf, token, errors: { password: pw } }), 400);
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
      },
    }),
  ];
}
