import { type Kysely, sql, type Transaction } from 'kysely';
import { AccountInputError, issueKey } from '../accounts/accounts.ts';
import { TIERS_BY_VARIANT } from '../accounts/auth.ts';
import { type RateState, takeToken } from '../accounts/rate-limit.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import type { EmailToken, EmailTokenPurpose } from '../db/tables/people.ts';
import type { Mailer } from './mail.ts';
import { checkPassword, hashPassword } from './passwords.ts';
import { endAllSessions, newSecret, sha256 } from './sessions.ts';

// People behind accounts: sign-up (variant A, confirmed by email), invitations (variant B, or any
// tier an operator chooses), sign-in and password reset. Nothing here tells a caller whether an
// address has an account: the same answer comes back either way and the difference goes by email.

export interface PeopleDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'publicSiteUrl' | 'AUTH_IP_LIMIT' | 'AUTH_EMAIL_LIMIT'>;
  mailer: Mailer;
}

const TTL_HOURS: Record<EmailTokenPurpose, number> = { signup: 24, invite: 14 * 24, reset: 1 };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const emailLooksValid = (email: string) =>
  email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);

async function accountByEmail(db: Kysely<Database> | Transaction<Database>, email: string) {
  return db
    .selectFrom('accounts')
    .leftJoin('people', 'people.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.email', 'people.password_hash'])
    .where(sql<string>`lower(accounts.email)`, '=', normalizeEmail(email))
    .executeTakeFirst();
}

async function newEmailToken(
  db: Kysely<Database> | Transaction<Database>,
  values: {
    purpose: EmailTokenPurpose;
    email: string;
    variant?: Variant;
    tier?: ApiTier;
    passwordHash?: string;
    accountId?: string;
    createdBy?: string;
  },
): Promise<string> {
  const token = newSecret();
  await db
    .insertInto('email_tokens')
    .values({
      token_hash: sha256(token),
      purpose: values.purpose,
      email: values.email,
      variant: values.variant ?? null,
      tier: values.tier ?? null,
      password_hash: values.passwordHash ?? null,
      account_id: values.accountId ?? null,
      created_by: values.createdBy ?? null,
      expires_at: sql<Date>`now() + make_interval(hours => ${TTL_HOURS[values.purpose]})`,
    })
    .execute();
  return token;
}

/** A live (unused, unexpired) token of this purpose; with `lock`, held for update in `db`'s transaction. */
async function liveToken(
  db: Kysely<Database> | Transaction<Database>,
  purpose: EmailTokenPurpose,
  token: string,
  lock = false,
): Promise<EmailToken | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  let q = db
    .selectFrom('email_tokens')
    .selectAll()
    .where('token_hash', '=', sha256(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

const useToken = (trx: Transaction<Database>, t: EmailToken) =>
  trx
    .updateTable('email_tokens')
    .set({ used_at: sql`now()` })
    .where('token_hash', '=', t.token_hash)
    .execute();

// ---- rate limits ---------------------------------------------------------------------------------

export type AuthAction = 'signin' | 'signup' | 'reset';

/**
 * Counts one attempt against the client address and against the email address (hashed, so the
 * rate-limit table holds no addresses). Refused when either bucket is full; the state returned
 * is the refusing bucket's, or else the one with fewer calls left.
 */
export async function takeAuthAttempt(
  deps: Pick<PeopleDeps, 'db' | 'config'>,
  action: AuthAction,
  ip: string,
  email: string,
): Promise<RateState> {
  const byIp = await takeToken(deps.db, `ip:auth-${action}:${ip}`, deps.config.AUTH_IP_LIMIT);
  if (!byIp.allowed) return byIp;
  const emailKey = sha256(normalizeEmail(email)).toString('hex').slice(0, 32);
  const byEmail = await takeToken(deps.db, `email:auth-${action}:${emailKey}`, deps.config.AUTH_EMAIL_LIMIT);
  // Shown in X-RateLimit-*: the bucket nearer its end, the one that will refuse first.
  return byEmail.allowed && byIp.remaining < byEmail.remaining ? byIp : byEmail;
}

// ---- creating accounts ---------------------------------------------------------------------------

interface NewPerson {
  email: string;
  variant: Variant;
  tier: ApiTier;
  passwordHash: string;
}

async function insertPerson(trx: Transaction<Database>, p: NewPerson) {
  const account = await trx
    .insertInto('accounts')
    .values({ email: p.email, variant: p.variant, tier: p.tier })
    .returning(['id', 'email', 'variant', 'tier'])
    .executeTakeFirstOrThrow();
  await trx.insertInto('people').values({ account_id: account.id, password_hash: p.passwordHash }).execute();
  const key = await issueKey(trx, account.id);
  return { account, key };
}

function mailFirstKey(deps: PeopleDeps, email: string, key: string) {
  const intro = `Your Sightline account is ready. Your first API key is:\n\n`;
  const outro = `\n\nStore it somewhere safe: it is not shown again. Use it as\n  Authorization: Bearer <API key>\nManage keys in the console: ${deps.config.publicSiteUrl}/console/keys\n`;
  deps.mailer.dispatch({
    to: email,
    subject: 'Your Sightline API key',
    text: `${intro}${key}${outro}`,
    logText: `${intro}[not written to the log: it was shown once on screen]${outro}`,
  });
}

/**
 * Variant A sign-up, step 1: the address gets a confirmation link (or, when it already has an
 * account, a note saying so). The caller shows the same "check your inbox" either way.
 */
export async function requestSignup(deps: PeopleDeps, email: string, password: string): Promise<void> {
  const addr = normalizeEmail(email);
  const passwordHash = await hashPassword(password); // also when unused: equal time either way
  const existing = await accountByEmail(deps.db, addr);
  if (existing) {
    deps.mailer.dispatch({
      to: addr,
      subject: 'You already have a Sightline account',
      text: `Someone (probably you) tried to sign up to Sightline with this address, which already has an account.\n\nSign in: ${deps.config.publicSiteUrl}/signin\nForgot your password? ${deps.config.publicSiteUrl}/reset\n\nIf this was not you, you can ignore this email.\n`,
    });
    return;
  }
  const token = await newEmailToken(deps.db, {
    purpose: 'signup',
    email: addr,
    variant: 'A',
    tier: 'free',
    passwordHash,
  });
  deps.mailer.dispatch({
    to: addr,
    subject: 'Confirm your Sightline account',
    text: `Confirm your address to create your Sightline account (free tier) and get your first API key:\n\n${deps.config.publicSiteUrl}/signup/confirm/${token}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this email.\n`,
  });
}

export async function signupPending(db: Kysely<Database>, token: string): Promise<boolean> {
  return (await liveToken(db, 'signup', token)) !== undefined;
}

export type Created = { accountId: string; email: string; key: string; keyPrefix: string };

/** Sign-up step 2: the confirmation link creates the account and its first key (mailed too). */
export async function confirmSignup(deps: PeopleDeps, token: string): Promise<Created | null> {
  const made = await deps.db.transaction().execute(async (trx) => {
    const t = await liveToken(trx, 'signup', token, true);
    if (!t) return null;
    await useToken(trx, t);
    if (await accountByEmail(trx, t.email)) return null; // confirmed twice in two tabs, or raced
    return insertPerson(trx, {
      email: t.email,
      variant: t.variant!,
      tier: t.tier!,
      passwordHash: t.password_hash!,
    });
  });
  if (!made) return null;
  mailFirstKey(deps, made.account.email, made.key.key); // shown on screen too: a failed mail loses nothing
  return {
    accountId: made.account.id,
    email: made.account.email,
    key: made.key.key,
    keyPrefix: made.key.displayPrefix,
  };
}

/** An operator invites an address (variant from the tier); returns the one-time link. */
export async function createInvite(
  deps: Pick<PeopleDeps, 'db' | 'config'>,
  input: { email: string; tier: ApiTier; createdBy?: string },
): Promise<{ link: string; expiresAt: Date; variant: Variant }> {
  const email = normalizeEmail(input.email);
  if (!emailLooksValid(email)) throw new AccountInputError(`not an email address: ${input.email}`);
  const variant = (Object.keys(TIERS_BY_VARIANT) as Variant[]).find((v) =>
    TIERS_BY_VARIANT[v].includes(input.tier),
  );
  if (!variant) {
    const all = Object.values(TIERS_BY_VARIANT).flat().join(', ');
    throw new AccountInputError(`unknown tier ${input.tier} (one of ${all})`);
  }
  if (await accountByEmail(deps.db, email)) throw new AccountInputError(`${email} already has an account`);
  const token = await newEmailToken(deps.db, {
    purpose: 'invite',
    email,
    variant,
    tier: input.tier,
    createdBy: input.createdBy ?? 'cli',
  });
  const row = await deps.db
    .selectFrom('email_tokens')
    .select('expires_at')
    .where('token_hash', '=', sha256(token))
    .executeTakeFirstOrThrow();
  return { link: `${deps.config.publicSiteUrl}/invite/${token}`, expiresAt: row.expires_at, variant };
}

/**
 * An invitation's link by email to the invited address (`sightline invites create --mail`). Awaited:
 * the operator is told whether it went out. Without SMTP the mailer writes it to the log.
 */
export async function mailInvite(
  mailer: Mailer,
  invite: { email: string; tier: ApiTier; link: string; expiresAt: Date },
): Promise<void> {
  await mailer.send({
    to: normalizeEmail(invite.email),
    subject: 'Your invitation to Sightline',
    text: `You are invited to Sightline (${invite.tier} tier). Choose a password to create your account and get your API key:\n\n${invite.link}\n\nThe link works once, until ${invite.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.\n`,
  });
}

export async function getInvite(db: Kysely<Database>, token: string) {
  const t = await liveToken(db, 'invite', token);
  return t ? { email: t.email, variant: t.variant!, tier: t.tier! } : null;
}

/** Accepting an invitation: the person picks a password; the account and first key are made. */
export async function acceptInvite(
  deps: PeopleDeps,
  token: string,
  password: string,
): Promise<Created | null> {
  const passwordHash = await hashPassword(password);
  const made = await deps.db.transaction().execute(async (trx) => {
    const t = await liveToken(trx, 'invite', token, true);
    if (!t) return null;
    await useToken(trx, t);
    if (await accountByEmail(trx, t.email)) return null;
    return insertPerson(trx, { email: t.email, variant: t.variant!, tier: t.tier!, passwordHash });
  });
  if (!made) return null;
  mailFirstKey(deps, made.account.email, made.key.key); // shown on screen too: a failed mail loses nothing
  return {
    accountId: made.account.id,
    email: made.account.email,
    key: made.key.key,
    keyPrefix: made.key.displayPrefix,
  };
}

// ---- signing in and resetting ------------------------------------------------------------------

/** The account id when email and password match, else null (same time and answer for every miss). */
export async function verifySignIn(
  db: Kysely<Database>,
  email: string,
  password: string,
): Promise<string | null> {
  const row = await accountByEmail(db, email);
  const ok = await checkPassword(row?.password_hash, password);
  return ok && row ? row.id : null;
}

/**
 * Mails a reset link when the address has an account; silent otherwise. An account made by the
 * operator CLI has no password yet: this is also how its owner sets the first one.
 */
export async function requestReset(deps: PeopleDeps, email: string): Promise<void> {
  const row = await accountByEmail(deps.db, email);
  if (!row) return;
  const token = await newEmailToken(deps.db, { purpose: 'reset', email: row.email, accountId: row.id });
  deps.mailer.dispatch({
    to: row.email,
    subject: 'Reset your Sightline password',
    text: `To choose a new password for your Sightline account, open:\n\n${deps.config.publicSiteUrl}/reset/${token}\n\nThe link works once, for one hour. If you did not ask for this, ignore this email: your password stays as it is.\n`,
  });
}

export async function resetPending(db: Kysely<Database>, token: string): Promise<boolean> {
  return (await liveToken(db, 'reset', token)) !== undefined;
}

/** Sets the new password and ends every session of the account. Returns the account id, or null. */
export async function resetPassword(
  deps: PeopleDeps,
  token: string,
  password: string,
): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  const accountId = await deps.db.transaction().execute(async (trx) => {
    const t = await liveToken(trx, 'reset', token, true);
    if (!t) return null;
    await useToken(trx, t);
    await trx
      .insertInto('people')
      .values({ account_id: t.account_id!, password_hash: passwordHash })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ password_hash: passwordHash, password_changed_at: sql`now()` }),
      )
      .execute();
    // Every other reset link of this account dies with this one.
    await trx
      .updateTable('email_tokens')
      .set({ used_at: sql`now()` })
      .where('account_id', '=', t.account_id!)
      .where('purpose', '=', 'reset')
      .where('used_at', 'is', null)
      .execute();
    return t.account_id!;
  });
  if (accountId) await endAllSessions(deps.db, accountId);
  return accountId;
}
