// Text bound for Postgres: `jsonb` refuses the escape \u0000 and unpaired UTF-16 surrogates, and
// `text` refuses the NUL byte. Gathered artifacts are whatever a hostile page sends, so every
// JSON value we store goes through toJsonb(): NUL is dropped, a lone surrogate becomes U+FFFD.

// Each string is made safe before it is written, in one linear pass, so a body of NULs costs what
// any body of its size costs. Large values (a scan's artifacts) are
// serialized in the scoring thread, off the worker's event loop (shared/scans/gather-and-score.ts).

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/** A string `jsonb` and `text` accept: NUL dropped, an unpaired surrogate made U+FFFD. */
export function safeText(s: string): string {
  const t = (s.includes('\0') ? dropNul(s) : s) as WellFormedString;
  return t.isWellFormed() ? t : t.toWellFormed();
}

/**
 * s without its NULs: one pass over its code units into a buffer. Linear whatever the pattern
 * (String#replaceAll pays per match: seconds for a page of "ab\0" repeated).
 */
function dropNul(s: string): string {
  const units = new Uint16Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0) units[n++] = c;
  }
  return Buffer.from(units.buffer, 0, n * 2).toString('utf16le');
}

const safeStrings = (_key: string, value: unknown) => (typeof value === 'string' ? safeText(value) : value);

/** Objects whose keys need cleaning are copied with safe keys (the rare path). */
function safeStringsAndKeys(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return safeText(value);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((k) => safeText(k) === k)) return value;
  return Object.fromEntries(keys.map((k) => [safeText(k), (value as Record<string, unknown>)[k]]));
}

// Left in the output after safeStrings only by a key (or by text that spells an escape out).
const UNSAFE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/** JSON.stringify for a `json`/`jsonb` column: never fails in Postgres on NUL or broken surrogates. */
export function toJsonb(value: unknown): string {
  const json = JSON.stringify(value ?? null, safeStrings);
  return UNSAFE_ESCAPE.test(json) ? JSON.stringify(value ?? null, safeStringsAndKeys) : json;
}

/** A string for a `text` column: NUL bytes dropped. */
export const stripNul = (s: string): string => (s.includes('\0') ? dropNul(s) : s);

/** Path (`a.b.0`) of the first string holding a NUL byte in a parsed request value, if any. */
export function findNul(value: unknown, path: string): string | undefined {
  // The path is built only on the way back from a hit: a clean value (nearly every request, and a
  // collect batch has thousands of strings) allocates nothing.
  const trail = nulTrail(value);
  return trail === undefined ? undefined : [path, ...trail.reverse()].join('.');
}

/** The keys from the hit up to `value` (innermost first), or undefined when there is no NUL. */
function nulTrail(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.includes('\0') ? [] : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = nulTrail(value[i]);
      if (hit) {
        hit.push(String(i));
        return hit;
      }
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (k.includes('\0')) return [k.replaceAll('\0', '\\0')];
      const hit = nulTrail((value as Record<string, unknown>)[k]);
      if (hit) {
        hit.push(k);
        return hit;
      }
    }
  }
  return undefined;
}
