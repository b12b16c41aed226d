import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startTestApi, type TestApi } from '../helpers/api.ts';
import { SpecChecker } from '../helpers/openapi.ts';

// OpenAPI-driven fuzzing (issue 15): for every documented operation, every parameter and body
// field gets one bad value at a time (the others kept plausible), without a key and with a key of
// each variant. No answer may be a 5xx, and every answer must match what /openapi.json documents
// for its status.

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are walked as plain JSON
type Json = Record<string, any>;

const BAD_VALUES: unknown[] = [
  '',
  '\u0000',
  'a\u0000b',
  '%00',
  '\ud800',
  'x'.repeat(5000),
  '../../../etc/passwd',
  "' or 1=1 --",
  '-1',
  '99999999999999999999999',
  '1e308',
  'NaN',
  'true',
  'http://169.254.169.254/latest/meta-data/',
  'javascript:alert(1)',
  '💥',
  -1,
  2 ** 53 + 1,
  1.5,
  true,
  null,
  {},
  [],
  ['a', 'b'],
];

let t: TestApi;
let spec: SpecChecker;
const keys: Record<string, string | undefined> = {};

before(async () => {
  // No worker: scan requests stay queued and are answered 202 at once (SCAN_WAIT_MS=0).
  t = await startTestApi({
    SCAN_WAIT_MS: '0',
    RATE_LIMIT_IP_DEFAULT: '1000000',
    PUBLIC_SCAN_IP_LIMIT: '1000000',
    RATE_LIMIT_POLL: '1000000',
  });
  spec = await SpecChecker.load(t.url);
  keys.none = undefined;
  keys.A = await t.newKey('A', 'agent', { plan: 'agency', rateLimit: 1_000_000 });
  keys.B = await t.newKey('B', 'optimisation', { rateLimit: 1_000_000 });
});
after(async () => {
  await t.close();
});

function resolve(schema: Json | undefined): Json {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 10; i++) {
    const name = String(s.$ref).split('/').pop()!;
    s = spec.spec.components.schemas[name];
  }
  if (s.anyOf || s.oneOf) return resolve((s.anyOf ?? s.oneOf).find((x: Json) => x.type !== 'null') ?? {});
  return s;
}

/** Strings tried, in order, for a pattern: the first one the pattern accepts is used. */
const PATTERN_CANDIDATES = [
  '1',
  'x',
  '/',
  '1.00',
  'GET',
  'site_0123456789abcdef',
  'sc_0123456789abcdef',
  'gr_0123456789abcdef',
  'key-0123456789',
  'http://127.0.0.1:9/',
];

/** Formats the service checks, with a value each accepts. */
const FORMAT_VALUES: Record<string, () => string> = {
  'date-time': () => new Date().toISOString(),
  ipv4: () => '203.0.113.7',
  ipv6: () => '2001:db8::7',
  uuid: () => '00000000-0000-4000-8000-000000000000',
  uri: () => 'http://127.0.0.1:9/',
  email: () => 'fuzz@example.test',
};

/**
 * A value the schema accepts (at its lower bounds: minimum, minLength, minItems, minProperties),
 * so only the fuzzed field is wrong; and a request made only of such values must not be refused
 * as invalid input.
 */
function plausible(name: string, schema: Json): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  if (s.type === 'integer' || s.type === 'number')
    return s.minimum ?? (s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : 1);
  if (s.type === 'boolean') return true;
  if (s.type === 'array')
    return Array.from({ length: s.minItems ?? 0 }, () => plausible(name, s.items ?? {}));
  if (s.type === 'object') return plausibleObject(s);
  const format = s.format ?? s.anyOf?.find((x: Json) => x.format)?.format;
  if (format && FORMAT_VALUES[format]) return FORMAT_VALUES[format]();
  if (s.pattern) {
    const re = new RegExp(s.pattern, 'u');
    const hit = PATTERN_CANDIDATES.find((c) => re.test(c));
    assert.ok(hit !== undefined, `no candidate matches ${name}'s pattern ${s.pattern}`);
    return hit;
  }
  if (/url|uri/i.test(name)) return 'http://127.0.0.1:9/';
  if (/email/i.test(name)) return 'fuzz@example.test';
  return 'x'.repeat(Math.max(1, s.minLength ?? 1));
}

/** Required properties, then optional ones in order until minProperties is met. */
function plausibleObject(s: Json): Json {
  const props = Object.entries((s.properties ?? {}) as Json);
  const required = new Set<string>(s.required ?? []);
  const out: Json = {};
  for (const [k, v] of props) if (required.has(k)) out[k] = plausible(k, v);
  for (const [k, v] of props) {
    if (Object.keys(out).length >= (s.minProperties ?? 0)) break;
    if (!(k in out)) out[k] = plausible(k, v);
  }
  return out;
}

interface Field {
  where: 'query' | 'path' | 'body';
  name: string;
  schema: Json;
  required: boolean;
}

interface Operation {
  method: string;
  template: string;
  fields: Field[];
  /** The body schema's minProperties: optional fields are added until it is met. */
  bodyMinProperties: number;
}

function operations() {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(spec.spec.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const fields: Field[] = [];
      for (const p of (op as Json).parameters ?? []) {
        if (p.in === 'query' || p.in === 'path')
          fields.push({ where: p.in, name: p.name, schema: p.schema ?? {}, required: !!p.required });
      }
      const body = resolve((op as Json).requestBody?.content?.['application/json']?.schema);
      for (const [name, schema] of Object.entries((body.properties ?? {}) as Json)) {
        fields.push({ where: 'body', name, schema, required: (body.required ?? []).includes(name) });
      }
      out.push({
        method: method.toUpperCase(),
        template,
        fields,
        bodyMinProperties: body.minProperties ?? 0,
      });
    }
  }
  return out;
}

/** Percent-encodes a path segment; a lone surrogate becomes malformed escapes (itself a good fuzz). */
function encodePath(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80%E0%A4%A';
  }
}

function request(op: Operation, fuzz: Field | null, bad: unknown) {
  let path = op.template;
  const query = new URLSearchParams();
  const body: Json = {};
  const bodyFields = op.fields.filter((f) => f.where === 'body');
  const optionalNeeded = Math.max(
    0,
    op.bodyMinProperties -
      bodyFields.filter((f) => f.required).length -
      (fuzz?.where === 'body' && !fuzz.required ? 1 : 0),
  );
  const extra = new Set(bodyFields.filter((f) => !f.required && f !== fuzz).slice(0, optionalNeeded));
  for (const f of op.fields) {
    const isFuzzed = fuzz === f;
    if (!isFuzzed && !f.required && !extra.has(f)) continue;
    const value = isFuzzed ? bad : plausible(f.name, f.schema);
    if (f.where === 'body') body[f.name] = value;
    else {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (f.where === 'path') path = path.replace(`{${f.name}}`, encodePath(text || 'x'));
      else query.set(f.name, text);
    }
  }
  const qs = query.toString();
  return { path: qs ? `${path}?${qs}` : path, body };
}

describe('OpenAPI fuzzing', () => {
  it('one bad value at a time, for every parameter and body field of every operation: no 5xx, documented answers', async () => {
    let sent = 0;
    const failures: string[] = [];
    for (const op of operations()) {
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
      const cases: [Field | null, unknown][] = [[null, undefined]];
      for (const f of op.fields) for (const bad of BAD_VALUES) cases.push([f, bad]);
      for (const [who, key] of Object.entries(keys)) {
        for (const [field, bad] of cases) {
          const { path, body } = request(op, field, bad);
          const res = await call(t.url, path, {
            method: op.method,
            key,
            ...(hasBody ? { body } : {}),
          });
          sent++;
          const label = `${op.method} ${path.slice(0, 120)} [${who}] ${field ? `${field.where}.${field.name}=${JSON.stringify(bad)?.slice(0, 40)}` : 'baseline'}`;
          if (res.status >= 500) {
            failures.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
            continue;
          }
          try {
            spec.check(op.method, op.template, { ...res, body: res.body ?? res.text });
          } catch (err) {
            failures.push(`${label}: ${String((err as Error).stack).slice(0, 600)}`);
          }
        }
      }
    }
    assert.ok(sent > 1000, `sent ${sent} requests`);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${sent} requests failed`);
  });

  it('values at each schema bound are accepted and values beyond it refused, as the document says', async () => {
    let sent = 0;
    const failures: string[] = [];
    for (const op of operations()) {
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
      const cases: [Field | null, unknown, 'at' | 'beyond'][] = [[null, undefined, 'at']];
      for (const f of op.fields) {
        for (const v of atBounds(f)) cases.push([f, v, 'at']);
        for (const v of beyondBounds(f)) cases.push([f, v, 'beyond']);
      }
      for (const [who, key] of Object.entries(keys)) {
        for (const [field, value, kind] of cases) {
          const { path, body } = request(op, field, value);
          const res = await call(t.url, path, { method: op.method, key, ...(hasBody ? { body } : {}) });
          sent++;
          const label = `${op.method} ${path.slice(0, 120)} [${who}] ${field ? `${kind} ${field.where}.${field.name}=${JSON.stringify(value)?.slice(0, 60)}` : 'baseline'}`;
          try {
            spec.check(op.method, op.template, { ...res, body: res.body ?? res.text });
          } catch (err) {
            failures.push(`${label}: ${String((err as Error).message).slice(0, 300)}`);
            continue;
          }
          const refused = res.status === 400 ? schemaErrors(res.body) : [];
          if (kind === 'at' && refused.length)
            failures.push(`${label}: the document allows it, the service refused ${JSON.stringify(refused)}`);
          if (kind === 'beyond' && field && res.status < 300)
            failures.push(`${label}: the document refuses it, the service answered ${res.status}`);
          if (kind === 'beyond' && field && res.status === 400 && typeof value === 'string') {
            const pattern = resolve(field.schema).pattern as string | undefined;
            // Other engines (Python, .NET, Go's \p classes) read \d as any Unicode digit.
            if (pattern && new RegExp(pattern.replaceAll('\\d', '\\p{Nd}'), 'u').test(value))
              failures.push(`${label}: refused, but the pattern ${pattern} allows it outside JavaScript`);
          }
        }
      }
    }
    assert.ok(sent > 500, `sent ${sent} requests`);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${sent} requests failed`);
  });
});

/** Validation errors (fields under query, params or body) of a 400 problem body. */
function schemaErrors(body: Json | undefined): { field: string; message: string }[] {
  // url_not_allowed and the like are the service's own checks (an address policy), not the schema's.
  if (body?.code !== 'invalid_request') return [];
  const errors = (body?.errors ?? []) as { field: string; message: string }[];
  return errors.filter((e) => /^(query|params|body)(\.|$)/.test(e.field));
}

/** Values the field's schema accepts: its lower bounds, its upper bounds, an empty object. */
function atBounds(f: Field): unknown[] {
  const s = resolve(f.schema);
  if (s.not) return []; // a property that must be absent
  const low = plausible(f.name, f.schema);
  const out: unknown[] = [low];
  if ((s.type === 'integer' || s.type === 'number') && s.maximum !== undefined && s.maximum < 2 ** 53)
    out.push(s.maximum);
  if (s.type === 'string' && typeof low === 'string' && s.maxLength !== undefined && !s.pattern && !s.format)
    out.push(low.padEnd(s.maxLength, 'x'));
  return out;
}

/** Values just past the field's schema: below minimum, over maxLength, an empty object, a Unicode digit. */
function beyondBounds(f: Field): unknown[] {
  const s = resolve(f.schema);
  const out: unknown[] = [];
  if (s.type === 'integer' || s.type === 'number') {
    if (s.minimum !== undefined) out.push(s.minimum - 1);
    if (s.maximum !== undefined && s.maximum < 2 ** 53) out.push(s.maximum + 1);
  }
  if (s.type === 'string') {
    if (s.maxLength !== undefined && s.maxLength < 100_000) out.push('1'.repeat(s.maxLength + 1));
    if (s.minLength) out.push('');
    const low = plausible(f.name, f.schema);
    // ARABIC-INDIC DIGIT ONE: a digit to \p{Nd}, not to JavaScript's \d.
    if (s.pattern && typeof low === 'string' && /[0-9]/.test(low)) out.push(low.replace(/[0-9]/g, '\u0661'));
  }
  if (s.type === 'object' && s.minProperties) out.push({});
  return out;
}
