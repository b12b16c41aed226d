import assert from 'node:assert/strict';
import { setSubscription } from '../../shared/accounts/accounts.ts';
import { loadConfig } from '../../shared/config.ts';
import type { ApiTier } from '../../shared/db/tables/accounts.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { createLogger } from '../../shared/logger.ts';
import { createMailer } from '../../shared/people/mail.ts';
import { acceptInvite, createInvite } from '../../shared/people/people.ts';
import type { TestApi } from './api.ts';

// A person in the console over plain HTTP: signed in with a password, acting through its forms
// with the session's CSRF token, never following redirects (tests look at them).

export const PASSWORD = 'correct horse battery staple';

export interface ConsolePerson {
  accountId: string;
  cookie: string;
  get(path: string): Promise<{ status: number; text: string; location: string | null }>;
  post(
    path: string,
    form: Record<string, string>,
  ): Promise<{ status: number; text: string; location: string | null }>;
}

/** A person signed in: variant A tier agent unless `tier` says otherwise, with `plan` set when given. */
export async function signedInPerson(
  t: TestApi,
  email: string,
  opts: { plan?: Plan; tier?: ApiTier } = {},
): Promise<ConsolePerson> {
  const { plan, tier = 'agent' } = opts;
  const config = loadConfig({ ...process.env, PUBLIC_SITE_URL: t.url });
  const mailer = createMailer({ MAIL_FROM: 'x@sightline.test' }, createLogger('test', undefined, 'silent'));
  const invite = await createInvite({ db: t.handle.db, config }, { email, tier });
  const made = await acceptInvite(
    { db: t.handle.db, config, mailer },
    invite.link.split('/invite/')[1]!,
    PASSWORD,
  );
  assert.ok(made);
  if (plan) await setSubscription(t.handle.db, made.accountId, plan);
  const signin = await fetch(`${t.url}/signin`, { headers: { accept: 'text/html' } });
  const anon = signin.headers.getSetCookie()[0]!.split(';')[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(await signin.text())![1]!;
  const res = await fetch(`${t.url}/signin`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: anon },
    body: new URLSearchParams({ _csrf: token, email, password: PASSWORD }),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('sl_session='))!
    .split(';')[0]!;
  const get = async (path: string) => {
    const r = await fetch(t.url + path, { headers: { accept: 'text/html', cookie }, redirect: 'manual' });
    return { status: r.status, text: await r.text(), location: r.headers.get('location') };
  };
  return {
    accountId: made.accountId,
    cookie,
    get,
    async post(path, form) {
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await get('/console')).text)?.[1] ?? '';
      const r = await fetch(t.url + path, {
        method: 'POST',
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ _csrf: csrf, ...form }),
        redirect: 'manual',
      });
      return { status: r.status, text: await r.text(), location: r.headers.get('location') };
    },
  };
}
