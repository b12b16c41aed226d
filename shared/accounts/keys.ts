import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Variant } from '../db/tables/accounts.ts';

// API keys (decisions.md): A `sl_live_` + 40 base62, B `ar_` + 40 base62. The last 6 characters
// are a checksum of the rest, so a malformed or mistyped key is refused without a database look-up.
// Only the SHA-256 and a short display prefix are stored; the key is shown once.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX: Record<Variant, string> = { A: 'sl_live_', B: 'ar_' };
const BODY = 34;
const CHECK = 6;

function base62(bytes: Buffer, length: number): string {
  // Rejection sampling keeps every character uniform (no modulo bias).
  let out = '';
  let pool = bytes;
  let i = 0;
  while (out.length < length) {
    if (i >= pool.length) {
      pool = randomBytes(64);
      i = 0;
    }
    const b = pool[i++]! & 63;
    if (b < 62) out += ALPHABET[b];
  }
  return out;
}

function checksum(prefix: string, body: string): string {
  const digest = hash('sha256', `${prefix}${body}`, 'buffer');
  let out = '';
  for (let i = 0; i < CHECK; i++) out += ALPHABET[digest[i]! % 62];
  return out;
}

export interface IssuedKey {
  key: string; // shown once
  hash: Buffer;
  displayPrefix: string;
}

export function generateKey(variant: Variant): IssuedKey {
  const prefix = KEY_PREFIX[variant];
  const body = base62(randomBytes(64), BODY);
  const key = `${prefix}${body}${checksum(prefix, body)}`;
  return { key, hash: hashKey(key), displayPrefix: displayPrefix(key) };
}

// crypto.hash: the same SHA-256 without a Hash object per call (every keyed request hashes twice:
// the checksum and the stored hash).
export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export function displayPrefix(key: string): string {
  const variant = keyVariant(key);
  const prefix = variant ? KEY_PREFIX[variant] : '';
  return key.slice(0, prefix.length + 6);
}

/** The variant a well-formed key belongs to, or null when it is malformed or fails its checksum. */
export function keyVariant(key: string): Variant | null {
  for (const variant of ['A', 'B'] as const) {
    const prefix = KEY_PREFIX[variant];
    if (!key.startsWith(prefix) || key.length !== prefix.length + BODY + CHECK) continue;
    const body = key.slice(prefix.length, prefix.length + BODY);
    if (!/^[0-9A-Za-z]+$/.test(body)) return null;
    const given = Buffer.from(key.slice(prefix.length + BODY));
    const want = Buffer.from(checksum(prefix, body));
    return timingSafeEqual(given, want) ? variant : null;
  }
  return null;
}
