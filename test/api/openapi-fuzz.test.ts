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

/** A plausible value for a field, so only the fuzzed one is wrong. */
function plausible(name: string, schema: Json): unknown {
  const s = resolve(schema);
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  if (s.type === 'integer' || s.type === 'number') return s.minimum ?? 1;
  if (s.type === 'boolean') return true;
  if (s.type === 'array') return [];
  if (s.type === 'object') return {};
  if (/url|uri/i.test(name) || s.format === 'uri') return 'http://127.0.0.1:9/';
  if (/email/i.test(name)) return 'fuzz@example.test';
  return 'x';
}

interface Field {
  where: 'query' | 'path' | 'body';
  name: string;
  schema: Json;
  required: boolean;
}

function operations() {
  const out: { method: string; template: string; fields: Field[] }[] = [];
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
      out.push({ method: method.toUpperCase(), template, fields });
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

function request(op: { template: string; fields: Field[] }, fuzz: Field | null, bad: unknown) {
  let path = op.template;
  const query = new URLSearchParams();
  const body: Json = {};
  for (const f of op.fields) {
    const isFuzzed = fuzz === f;
    if (!isFuzzed && !f.required) continue;
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
});
