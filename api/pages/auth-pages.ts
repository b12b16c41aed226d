import { type Html, html } from '../../shared/html.ts';
import { csrfField, fieldError, notice, renderPage, type Viewer } from './layout.ts';

// Sign-up, sign-in, invitations and password reset. Messages never say whether an address has an
// account: the difference, when there is one, goes to that address by email.

export interface FormState {
  csrf: string;
  email?: string;
  errors?: { email?: string; password?: string; form?: string };
  info?: string;
  next?: string;
}

const emailField = (s: FormState, opts: { autocomplete?: string } = {}) =>
  html`<div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="${opts.autocomplete ?? 'email'}" required value="${s.email ?? ''}"${s.errors?.email ? html` aria-invalid="true" aria-describedby="email-error"` : ''}>${fieldError('email', s.errors?.email)}</div>`;

const passwordField = (s: FormState, autocomplete: 'current-password' | 'new-password', label = 'Password') =>
  html`<div class="field"><label for="password">${label}</label><input id="password" name="password" type="password" autocomplete="${autocomplete}" required minlength="${autocomplete === 'new-password' ? 10 : 1}"${s.errors?.password ? html` aria-invalid="true" aria-describedby="password-error"` : autocomplete === 'new-password' ? html` aria-describedby="password-hint"` : ''}>${autocomplete === 'new-password' ? html`<p class="hint" id="password-hint">At least 10 characters.</p>` : ''}${fieldError('password', s.errors?.password)}</div>`;

const formError = (s: FormState) => (s.errors?.form ? notice('error', s.errors.form) : '');
const info = (s: FormState) => (s.info ? notice('info', s.info) : '');

function authCard(title: string, body: Html): Html {
  return html`<section class="auth card"><h1>${title}</h1>${body}</section>`;
}

export function renderSignIn(s: FormState): string {
  return renderPage(
    { title: 'Sign in' },
    authCard(
      'Sign in',
      html`${info(s)}${formError(s)}<form method="post" action="/signin">${csrfField(s.csrf)}${s.next ? html`<input type="hidden" name="next" value="${s.next}">` : ''}
  ${emailField(s, { autocomplete: 'username' })}${passwordField(s, 'current-password')}
  <button type="submit">Sign in</button>
</form>
<p class="alt"><a href="/reset">Forgot your password?</a> · <a href="/signup">Create an account</a></p>`,
    ),
  );
}

export function renderSignUp(s: FormState): string {
  return renderPage(
    { title: 'Sign up' },
    authCard(
      'Create your account',
      html`<p class="muted">Free tier: 20 API calls an hour for scans. You get your first API key once you confirm your email address.</p>${formError(s)}<form method="post" action="/signup">${csrfField(s.csrf)}
  ${emailField(s)}${passwordField(s, 'new-password')}
  <button type="submit">Sign up</button>
</form>
<p class="alt">Have an account? <a href="/signin">Sign in</a></p>`,
    ),
  );
}

export function renderMessage(
  title: string,
  message: Html | string,
  viewer: Viewer | null = null,
  status?: string,
): string {
  return renderPage(
    { title, viewer },
    authCard(title, html`${typeof message === 'string' ? html`<p>${message}</p>` : message}${status ?? ''}`),
  );
}

/** Where the link went: "Check your inbox", or, without SMTP, that it went to the operator's log. */
export function renderCheckInbox(email: string, what: 'signup' | 'reset', mailDelivered: boolean): string {
  if (!mailDelivered) {
    const link =
      what === 'signup' ? 'the link that finishes creating your account' : 'the password reset link';
    const text = html`<p>This server does not send email (its operator has not set up <code>SMTP_URL</code>), so ${link}${what === 'reset' ? html`, if <strong>${email}</strong> belongs to an account,` : html` for <strong>${email}</strong>`} was written to the server's log instead.</p><p>Ask the person who runs this server for the link. ${what === 'signup' ? 'It works for 24 hours.' : 'It works for one hour.'}</p>`;
    return renderPage(
      { title: 'Ask the operator for your link' },
      authCard('Ask the operator for your link', html`<div role="status">${text}</div>`),
    );
  }
  const text =
    what === 'signup'
      ? html`<p>We sent an email to <strong>${email}</strong>. Open the link in it to finish creating your account; it works for 24 hours.</p><p class="muted">Nothing arrived? Check your spam folder, or <a href="/signup">try again</a>.</p>`
      : html`<p>If <strong>${email}</strong> belongs to an account, we sent it a link to choose a new password. The link works for one hour.</p><p class="muted">Nothing arrived? Check your spam folder, or <a href="/reset">try again</a>.</p>`;
  return renderPage(
    { title: 'Check your inbox' },
    authCard('Check your inbox', html`<div role="status">${text}</div>`),
  );
}

export function renderConfirmSignup(csrf: string, token: string): string {
  return renderPage(
    { title: 'Confirm your account' },
    authCard(
      'Confirm your account',
      html`<p>One more step: confirm to create your free account and see your first API key.</p><form method="post" action="/signup/confirm/${token}">${csrfField(csrf)}<button type="submit">Create my account</button></form>`,
    ),
  );
}

export function renderInvite(s: FormState & { token: string; tier: string }): string {
  return renderPage(
    { title: 'Accept your invitation' },
    authCard(
      'Accept your invitation',
      html`<p>You are invited to Sightline (${s.tier} tier) as <strong>${s.email}</strong>. Choose a password to create your account and get your first API key.</p>${formError(s)}<form method="post" action="/invite/${s.token}">${csrfField(s.csrf)}
  <input type="hidden" name="email" value="${s.email}" autocomplete="username">
  ${passwordField(s, 'new-password')}
  <button type="submit">Create my account</button>
</form>`,
    ),
  );
}

export function renderResetRequest(s: FormState): string {
  return renderPage(
    { title: 'Reset your password' },
    authCard(
      'Reset your password',
      html`<p class="muted">Enter the address you sign in with. If it has an account, we email it a link to choose a new password.</p>${formError(s)}<form method="post" action="/reset">${csrfField(s.csrf)}${emailField(s)}<button type="submit">Send the link</button></form>
<p class="alt"><a href="/signin">Back to sign in</a></p>`,
    ),
  );
}

export function renderResetForm(s: FormState & { token: string }): string {
  return renderPage(
    { title: 'Choose a new password' },
    authCard(
      'Choose a new password',
      html`${formError(s)}<form method="post" action="/reset/${s.token}">${csrfField(s.csrf)}${passwordField(s, 'new-password', 'New password')}<button type="submit">Set the password</button></form>`,
    ),
  );
}

/** A new key, shown once: after sign-up, an invitation, or "create key" in the console. */
export function keyShownOnce(key: string, prefix: string): Html {
  return html`<div class="key-once" role="status">
  <p><strong>Your new API key.</strong> Copy it now: it is shown only this once. (Its prefix, <code>${prefix}</code>, is how the console lists it.)</p>
  <div class="row"><label class="visually-hidden" for="new-key">API key</label><input id="new-key" class="mono" type="text" readonly value="${key}"><button type="button" class="secondary" data-copy="new-key">Copy</button></div>
  <p class="muted">Use it as <code>Authorization: Bearer &lt;API key&gt;</code>.</p>
</div>`;
}
