// Text bound for Postgres: `jsonb` refuses the escape \u0000 and unpaired UTF-16 surrogates, and
// `text` refuses the NUL byte. Gathered artifacts are whatever a hostile page sends, so every
// JSON value we store goes through toJsonb(): NUL is dropped, a lone surrogate becomes U+FFFD.

// A JSON escape preceded by an even number of backslashes (so it is an escape, not escaped text).
const ESCAPE = /(?<!\\)((?:\\\\)*)\\u(0000|d[89ab][0-9a-f]{2}(?:\\ud[c-f][0-9a-f]{2})?|d[c-f][0-9a-f]{2})/gi;

/** JSON.stringify for a `json`/`jsonb` column: never fails in Postgres on NUL or broken surrogates. */
export function toJsonb(value: unknown): string {
  const json = JSON.stringify(value ?? null);
  if (!json.includes('\\u')) return json;
  return json.replace(ESCAPE, (_m, slashes: string, esc: string) => {
    if (esc === '0000') return slashes; // NUL: dropped
    if (esc.length > 4) return `${slashes}\\u${esc}`; // a proper surrogate pair: kept
    return `${slashes}\\ufffd`; // an unpaired surrogate: replacement character
  });
}

/** A string for a `text` column: NUL bytes dropped. */
export const stripNul = (s: string): string => (s.includes('\0') ? s.replaceAll('\0', '') : s);

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
