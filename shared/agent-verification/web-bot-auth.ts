import { constants, createHash, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';

// Web Bot Auth: HTTP Message Signatures (RFC 9421) as AI agents use them to prove who they are.
// The agent signs (at least) `@authority` with a key from its published directory
// (`Signature-Agent` names it; keys live at /.well-known/http-message-signatures-directory), and
// the `Signature-Input` carries created/expires/nonce and `tag="web-bot-auth"`. The `keyid` is the
// key's JWK thumbprint (RFC 7638). We accept a signature only when every covered component is
// present, the time window holds at the request's time, the nonce was not seen before and the key
// verifies.

export type SignatureOutcome =
  | { ok: true; keyid: string; agentUrl: string | null }
  | { ok: false; reason: string };

/** Finds the public key for `keyid`, from the directory at `agentUrl` when the request names one. */
export type KeyResolver = (keyid: string, agentUrl: string | null) => Promise<KeyObject | null>;

export interface SignedRequest {
  method: string;
  /** Absolute URL of the request (scheme, authority, path and query). */
  url: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** When the request was made (the clock the time window is checked against). */
  at: Date;
}

// --- Structured fields (RFC 8941), the parts Signature-Input, Signature and Signature-Agent use.

type Bare = string | number | boolean | Uint8Array | { token: string };
interface Item {
  value: Bare | Item[];
  params: Map<string, Bare>;
}

class Parser {
  i = 0;
  constructor(readonly s: string) {}
  ws() {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  fail(): never {
    throw new Error(`structured field syntax error at ${this.i}`);
  }
  key(): string {
    const m = /^[a-z*][a-z0-9_.*-]*/.exec(this.s.slice(this.i));
    if (!m) this.fail();
    this.i += m[0].length;
    return m[0];
  }
  bare(): Bare {
    const c = this.s[this.i];
    if (c === '"') {
      let out = '';
      this.i++;
      while (this.i < this.s.length) {
        const ch = this.s[this.i++]!;
        if (ch === '\\') out += this.s[this.i++] ?? '';
        else if (ch === '"') return out;
        else out += ch;
      }
      this.fail();
    }
    if (c === ':') {
      const end = this.s.indexOf(':', this.i + 1);
      if (end < 0) this.fail();
      const b64 = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return new Uint8Array(Buffer.from(b64, 'base64'));
    }
    if (c === '?') {
      this.i += 2;
      return this.s[this.i - 1] === '1';
    }
    const num = /^-?\d+(?:\.\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    const tok = /^[A-Za-z*][A-Za-z0-9:/!#$%&'*+.^_`|~-]*/.exec(this.s.slice(this.i));
    if (!tok) this.fail();
    this.i += tok[0].length;
    return { token: tok[0] };
  }
  params(): Map<string, Bare> {
    const out = new Map<string, Bare>();
    while (this.s[this.i] === ';') {
      this.i++;
      this.ws();
      const k = this.key();
      let v: Bare = true;
      if (this.s[this.i] === '=') {
        this.i++;
        v = this.bare();
      }
      out.set(k, v);
    }
    return out;
  }
  item(): Item {
    if (this.s[this.i] === '(') {
      this.i++;
      const list: Item[] = [];
      for (;;) {
        this.ws();
        if (this.s[this.i] === ')') {
          this.i++;
          break;
        }
        if (this.i >= this.s.length) this.fail();
        list.push({ value: this.bare(), params: this.params() });
      }
      return { value: list, params: this.params() };
    }
    return { value: this.bare(), params: this.params() };
  }
  /** Dictionary members with the raw text of each member's value (for @signature-params). */
  dictionary(): Map<string, { item: Item; raw: string }> {
    const out = new Map<string, { item: Item; raw: string }>();
    this.ws();
    while (this.i < this.s.length) {
      const k = this.key();
      let item: Item = { value: true, params: new Map() };
      let start = this.i;
      if (this.s[this.i] === '=') {
        this.i++;
        start = this.i;
        item = this.item();
      } else item.params = this.params();
      out.set(k, { item, raw: this.s.slice(start, this.i) });
      this.ws();
      if (this.i >= this.s.length) break;
      if (this.s[this.i] !== ',') this.fail();
      this.i++;
      this.ws();
    }
    return out;
  }
}

const str = (v: Bare | undefined) => (typeof v === 'string' ? v : undefined);
const num = (v: Bare | undefined) => (typeof v === 'number' ? v : undefined);

/** RFC 7638 thumbprint of a public JWK (OKP and RSA keys). */
export function jwkThumbprint(jwk: JsonWebKey): string {
  const members =
    jwk.kty === 'OKP'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
      : jwk.kty === 'RSA'
        ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
        : jwk.kty === 'EC'
          ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
          : null;
  if (!members) throw new Error(`unsupported key type ${jwk.kty}`);
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** The public part of a JWK as a KeyObject with its thumbprint. */
export function publicKeyFromJwk(jwk: JsonWebKey): { keyid: string; key: KeyObject } {
  const pub: JsonWebKey =
    jwk.kty === 'OKP'
      ? { kty: 'OKP', crv: jwk.crv, x: jwk.x }
      : { kty: jwk.kty, n: jwk.n, e: jwk.e, crv: jwk.crv, x: jwk.x, y: jwk.y };
  return { keyid: jwkThumbprint(pub), key: createPublicKey({ key: pub, format: 'jwk' }) };
}

/** A key directory body ({"keys": [JWK, ...]}) indexed by thumbprint. */
export function parseKeyDirectory(body: unknown): Map<string, KeyObject> {
  const out = new Map<string, KeyObject>();
  const keys = (body as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) return out;
  for (const jwk of keys) {
    try {
      const { keyid, key } = publicKeyFromJwk(jwk as JsonWebKey);
      out.set(keyid, key);
    } catch {
      // Unusable entries are skipped.
    }
  }
  return out;
}

/** Nonces seen within the signatures' validity, per process: a replayed signature is refused. */
export class NonceCache {
  private readonly seen = new Map<string, number>();
  constructor(private readonly max = 100_000) {}
  /** True when the nonce is new (and records it until `expiresMs`). */
  claim(keyid: string, nonce: string, expiresMs: number, nowMs: number): boolean {
    const k = `${keyid} ${nonce}`;
    const until = this.seen.get(k);
    if (until !== undefined && until >= nowMs) return false;
    if (this.seen.size >= this.max) {
      for (const [key, exp] of this.seen)
        if (exp < nowMs || this.seen.size >= this.max) this.seen.delete(key);
    }
    this.seen.set(k, expiresMs);
    return true;
  }
}

const MAX_SKEW_MS = 60_000;

function componentValue(
  name: string,
  params: Map<string, Bare>,
  req: SignedRequest,
  url: URL,
): string | undefined {
  switch (name) {
    case '@authority':
      return url.host.toLowerCase();
    case '@method':
      return req.method.toUpperCase();
    case '@scheme':
      return url.protocol.slice(0, -1);
    case '@target-uri':
      return url.toString();
    case '@path':
      return url.pathname;
    case '@query':
      return url.search || '?';
    case '@request-target':
      return url.pathname + url.search;
  }
  if (name.startsWith('@')) return undefined;
  const raw = req.headers[name];
  if (raw === undefined) return undefined;
  const key = str(params.get('key'));
  if (key === undefined) return raw.trim().replace(/\s*\n\s*/g, ' ');
  // A dictionary member of the header (RFC 9421 2.1.2).
  const member = new Parser(raw).dictionary().get(key);
  return member?.raw;
}

function serializeComponentId(name: string, params: Map<string, Bare>): string {
  let out = JSON.stringify(name);
  for (const [k, v] of params)
    out += `;${k}${v === true ? '' : `=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`}`;
  return out;
}

/**
 * Verifies the request's Web Bot Auth signature. The agent URL (from Signature-Agent) tells the
 * resolver where the key directory is; the nonce cache refuses replays.
 */
export async function verifyWebBotAuth(
  req: SignedRequest,
  resolveKey: KeyResolver,
  nonces: NonceCache,
): Promise<SignatureOutcome> {
  const inputHeader = req.headers['signature-input'];
  const sigHeader = req.headers.signature;
  if (!inputHeader || !sigHeader) return { ok: false, reason: 'unsigned' };
  let inputs: Map<string, { item: Item; raw: string }>;
  let sigs: Map<string, { item: Item; raw: string }>;
  try {
    inputs = new Parser(inputHeader).dictionary();
    sigs = new Parser(sigHeader).dictionary();
  } catch {
    return { ok: false, reason: 'malformed signature headers' };
  }
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { ok: false, reason: 'no request URL' };
  }
  for (const [label, { item, raw }] of inputs) {
    if (str(item.params.get('tag')) !== 'web-bot-auth') continue;
    const sig = sigs.get(label)?.item.value;
    if (!(sig instanceof Uint8Array) || !Array.isArray(item.value))
      return { ok: false, reason: 'malformed signature' };
    const created = num(item.params.get('created'));
    const expires = num(item.params.get('expires'));
    const keyid = str(item.params.get('keyid'));
    const nonce = str(item.params.get('nonce'));
    const alg = str(item.params.get('alg'));
    if (created === undefined || expires === undefined || !keyid)
      return { ok: false, reason: 'created, expires and keyid are required' };
    const at = req.at.getTime();
    if (created * 1000 > at + MAX_SKEW_MS) return { ok: false, reason: 'created in the future' };
    if (expires * 1000 <= at) return { ok: false, reason: 'expired' };

    // The base: each covered component, then @signature-params (RFC 9421 2.5).
    const lines: string[] = [];
    let agentUrl: string | null = null;
    for (const c of item.value) {
      const name = str(c.value as Bare);
      if (name === undefined) return { ok: false, reason: 'malformed component' };
      const value = componentValue(name, c.params, req, url);
      if (value === undefined) return { ok: false, reason: `covered component ${name} missing` };
      if (name === 'signature-agent') {
        try {
          const parsed = new Parser(value).item().value;
          if (typeof parsed === 'string') agentUrl = parsed;
        } catch {
          return { ok: false, reason: 'malformed Signature-Agent' };
        }
      }
      lines.push(`${serializeComponentId(name, c.params)}: ${value}`);
    }
    if (!lines.some((l) => l.startsWith('"@authority"')))
      return { ok: false, reason: '@authority not covered' };
    lines.push(`"@signature-params": ${raw}`);
    const base = Buffer.from(lines.join('\n'));

    const key = await resolveKey(keyid, agentUrl);
    if (!key) return { ok: false, reason: 'unknown key' };
    let valid = false;
    try {
      if (key.asymmetricKeyType === 'ed25519' && (!alg || alg === 'ed25519'))
        valid = verify(null, base, key, sig);
      else if (key.asymmetricKeyType === 'rsa' && (!alg || alg === 'rsa-pss-sha512'))
        valid = verify(
          'sha512',
          base,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
          sig,
        );
      else if (key.asymmetricKeyType === 'rsa-pss' && (!alg || alg === 'rsa-pss-sha512'))
        valid = verify('sha512', base, { key, saltLength: 64 }, sig);
    } catch {
      valid = false;
    }
    if (!valid) return { ok: false, reason: 'signature does not verify' };
    if (nonce !== undefined && !nonces.claim(keyid, nonce, expires * 1000, at))
      return { ok: false, reason: 'replayed nonce' };
    return { ok: true, keyid, agentUrl };
  }
  return { ok: false, reason: 'no web-bot-auth signature' };
}
