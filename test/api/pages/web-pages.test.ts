import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { createInvite } from '../../../shared/people/people.ts';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';

// The web face over plain HTTP: cookie flags (Secure behind an https proxy), CSRF tokens bound
// to their cookie, and mail written to the log when SMTP_URL is unset, without the API key.

let t: TestApi;
before(async () => {
  t = await startTestApi({ LOG_LEVEL: 'info', TRUST_PROXY: 'true', SMTP_URL: '' });
});
after(async () => {
  await t?.close();
});

const html = { accept: 'text/html' };

/** GET a form page: its anonymous CSRF cookie and the token in the form. */
async function formPage(path: string, headers: Record<string, string> = {}, base = t.url) {
  const res = await fetch(base + path, { headers: { ...html, ...headers } });
  const text = await res.text();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sl_csrf='));
  const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
  return { res, text, cookie, token };
}

async function post(path: string, cookie: string, form: Record<string, string>, base = t.url) {
  return fetch(base + path, {
    method: 'POST',
    headers: { ...html, 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0]! },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
}

describe('web pages over HTTP', () => {
  it('sets httpOnly SameSite cookies, Secure only when the request came over https', async () => {
    const plain = await formPage('/signin');
    assert.ok(plain.cookie, 'an anonymous CSRF cookie');
    assert.match(plain.cookie, /httponly/i);
    assert.match(plain.cookie, /samesite=strict/i);
    assert.doesNotMatch(plain.cookie, /secure/i);
    assert.equal(plain.cookie.split(';')[0], `sl_csrf=${plain.token}`);
    const behindTls = await formPage('/signin', { 'x-forwarded-proto': 'https' });
    assert.match(behindTls.cookie ?? '', /;\s*secure/i);
    assert.equal(plain.res.headers.get('cache-control'), 'no-store');
  });

  it('binds the anonymous CSRF token to its cookie: another browser’s token is refused', async () => {
    const a = await formPage('/signup');
    const b = await formPage('/signup');
    const crossed = await post('/signup', a.cookie!, {
      _csrf: b.token!,
      email: 'x@example.test',
      password: 'long enough password',
    });
    assert.equal(crossed.status, 403);
    const ok = await post('/signup', a.cookie!, {
      _csrf: a.token!,
      email: 'x@example.test',
      password: 'long enough password',
    });
    assert.equal(ok.status, 200);
  });

  it('without SMTP_URL, writes mail to the log: the confirmation link, but never the API key', async () => {
    const email = 'logged@example.test';
    const page = await formPage('/signup');
    const res = await post('/signup', page.cookie!, {
      _csrf: page.token!,
      email,
      password: 'long enough password',
    });
    assert.equal(res.status, 200);
    // The page says where the link went, instead of "check your inbox" for a mail never sent.
    const said = await res.text();
    assert.match(said, /written to the server's log/);
    assert.doesNotMatch(said, /Check your inbox|We sent an email/);
    const line = t.logs.find((l) => l.includes('Confirm your Sightline account') && l.includes(email));
    assert.ok(line, 'the confirmation mail is in the log');
    const link = /\/signup\/confirm\/[A-Za-z0-9_-]{43}/.exec(JSON.parse(line).mail.text)?.[0];
    assert.ok(link);
    const confirm = await formPage(link);
    const made = await post(link, confirm.cookie!, { _csrf: confirm.token! });
    assert.equal(made.status, 200);
    const body = await made.text();
    const key = /value="(sl_live_[0-9A-Za-z]{40})"/.exec(body)?.[1];
    assert.ok(key, 'the key is shown once on screen');
    const session = made.headers.getSetCookie().find((c) => c.startsWith('sl_session='));
    assert.match(session ?? '', /httponly/i);
    assert.match(session ?? '', /samesite=lax/i);
    const keyMail = t.logs.find((l) => l.includes('Your Sightline API key') && l.includes(email));
    assert.ok(keyMail, 'the key mail is logged');
    assert.ok(!t.logs.some((l) => l.includes(key)), 'the key itself never reaches the log');
    assert.equal((await call(t.url, '/api/v1/account', { key })).status, 200);
  });

  it('lets the owner of an operator-made account set a first password through the reset link', async () => {
    const email = 'made-by-cli@example.test';
    await createAccount(t.handle.db, { email, variant: 'A', tier: 'pro' });
    const signIn = async (password: string) => {
      const p = await formPage('/signin');
      return post('/signin', p.cookie!, { _csrf: p.token!, email, password });
    };
    assert.equal((await signIn('first password 1234')).status, 401, 'no password yet');
    const reset = await formPage('/reset');
    assert.equal((await post('/reset', reset.cookie!, { _csrf: reset.token!, email })).status, 200);
    const line = t.logs.find((l) => l.includes('Reset your Sightline password') && l.includes(email));
    assert.ok(line);
    const link = /\/reset\/[A-Za-z0-9_-]{43}/.exec(JSON.parse(line).mail.text)![0];
    const form = await formPage(link);
    const set = await post(link, form.cookie!, { _csrf: form.token!, password: 'first password 1234' });
    assert.equal(set.status, 200);
    const ok = await signIn('first password 1234');
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/console');
  });

  it('leaves JSON clients on the API: unknown paths stay problem+json, /console without a session redirects', async () => {
    const missing = await call(t.url, '/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /problem\+json/);
    const console = await fetch(`${t.url}/console/keys`, { headers: html, redirect: 'manual' });
    assert.equal(console.status, 302);
    assert.equal(console.headers.get('location'), '/signin?next=%2Fconsole%2Fkeys');
  });
});

describe('web pages when mail cannot be sent, forms that cannot be taken, and limits', () => {
  let u: TestApi;
  before(async () => {
    // Nothing listens on port 1: every mail fails to send.
    u = await startTestApi({
      LOG_LEVEL: 'info',
      SMTP_URL: 'smtp://127.0.0.1:1',
      AUTH_IP_LIMIT: '3',
      CONSOLE_MAX_KEYS: '3',
    });
  });
  after(async () => {
    await u?.close();
  });

  const form = (path: string) => formPage(path, {}, u.url);
  const send = (path: string, cookie: string, fields: Record<string, string>) =>
    post(path, cookie, fields, u.url);
  const cookieOf = (res: Response, name: string) =>
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${name}=`))
      ?.split(';')[0];

  /** An invitation accepted: the account, its session cookie and the key shown on screen. */
  async function acceptInvitation(email: string) {
    const invite = await createInvite(
      { db: u.handle.db, config: { publicSiteUrl: u.url } as never },
      { email, tier: 'pro' },
    );
    const path = new URL(invite.link).pathname;
    const page = await form(path);
    const made = await send(path, page.cookie!, { _csrf: page.token!, password: 'long enough password' });
    return { made, body: await made.text(), session: cookieOf(made, 'sl_session') };
  }

  it('a reset answers the same for an account and a stranger, and an SMTP failure is only logged', async () => {
    const email = 'has-account@example.test';
    await createAccount(u.handle.db, { email, variant: 'A', tier: 'pro' });
    for (const address of [email, 'stranger@example.test']) {
      const page = await form('/reset');
      const res = await send('/reset', page.cookie!, { _csrf: page.token!, email: address });
      assert.equal(res.status, 200, address);
      assert.match(await res.text(), /Check your inbox/);
    }
    const deadline = Date.now() + 10_000;
    while (!u.logs.some((l) => l.includes('email could not be sent') && l.includes(email))) {
      assert.ok(Date.now() < deadline, 'the failed mail is logged');
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('an invitation accepted while mail is down still signs in and shows the key', async () => {
    const { made, body, session } = await acceptInvitation('invited-offline@example.test');
    assert.equal(made.status, 200);
    const key = /value="(sl_live_[0-9A-Za-z]{40})"/.exec(body)?.[1];
    assert.ok(key, 'the key is shown on screen');
    assert.ok(session, 'signed in');
    assert.equal((await call(u.url, '/api/v1/account', { key })).status, 200);
  });

  it('signed in, a form needs the session’s own token: a signed-out cookie’s token is refused', async () => {
    const { session } = await acceptInvitation('csrf-owner@example.test');
    const anon = await form('/signin'); // a cookie and token pair anyone could plant
    const keys = await fetch(`${u.url}/console/keys`, { headers: { ...html, cookie: session! } });
    const own = /name="_csrf" value="([^"]+)"/.exec(await keys.text())?.[1];
    assert.ok(own);
    const both = `${session}; ${anon.cookie!.split(';')[0]}`;
    assert.equal((await send('/console/keys', both, { _csrf: anon.token! })).status, 403);
    assert.equal((await send('/console/keys', both, { _csrf: own })).status, 201);
  });

  it('an account holds at most CONSOLE_MAX_KEYS live keys it made itself; revoking one makes room', async () => {
    const { session } = await acceptInvitation('many-keys@example.test'); // its first key
    const keysPage = async () => {
      const res = await fetch(`${u.url}/console/keys`, { headers: { ...html, cookie: session! } });
      return res.text();
    };
    const token = /name="_csrf" value="([^"]+)"/.exec(await keysPage())![1]!;
    const create = () => send('/console/keys', session!, { _csrf: token });
    assert.equal((await create()).status, 201);
    assert.equal((await create()).status, 201);
    const refused = await create();
    assert.equal(refused.status, 409);
    assert.match(await refused.text(), /You have 3 live keys/);
    const live = await u.handle.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select('api_keys.id')
      .where('accounts.email', '=', 'many-keys@example.test')
      .where('api_keys.revoked_at', 'is', null)
      .execute();
    assert.equal(live.length, 3);
    assert.equal((await send(`/console/keys/${live[0]!.id}/revoke`, session!, { _csrf: token })).status, 200);
    assert.equal((await create()).status, 201);
  });

  it('a NUL byte in a form or an address is a 400 page, not a server error', async () => {
    const page = await form('/signup');
    const res = await send('/signup', page.cookie!, {
      _csrf: page.token!,
      email: 'nul\u0000@example.test',
      password: 'long enough password',
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /NUL byte/);
    const { session } = await acceptInvitation('nul-path@example.test');
    const order = await fetch(`${u.url}/console/audits/%00`, { headers: { ...html, cookie: session! } });
    assert.equal(order.status, 400);
  });

  it('a refused sign-up shows its own allowance in X-RateLimit-* and says when to retry', async () => {
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const page = await form('/signup');
      last = await send('/signup', page.cookie!, {
        _csrf: page.token!,
        email: `limited-${i}@example.test`,
        password: 'long enough password',
      });
      if (i < 3) {
        assert.equal(last.status, 200);
        assert.equal(last.headers.get('x-ratelimit-remaining'), String(2 - i));
      }
    }
    assert.equal(last!.status, 429);
    assert.equal(last!.headers.get('x-ratelimit-limit'), '3');
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  });
});
