import { type Algorithm, hash, verify } from '@node-rs/argon2';

// Passwords: argon2id with OWASP's minimum (19 MiB memory, 2 passes, 1 lane), as PHC strings, so
// the parameters travel with each hash and can be raised later without breaking old ones.

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

// Algorithm.Argon2id is 2 (a const enum, which this project's module settings cannot read).
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified against when no account matches, so "no such account" costs as long as "wrong password".
let dummy: Promise<string> | undefined;

/** True when `password` matches `stored`; with no stored hash, spends the same time and says false. */
export async function checkPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('not-a-real-password-0123456789');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A reason the password is not acceptable, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return null;
}
