import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CollectBody, validCollectBody } from '../../../../api/routes/collect/schema.ts';

// POST /api/v1/collect checks its body quickly (validCollectBody) before zod: whatever the quick
// check accepts, zod accepts and returns equal; whatever zod refuses, the quick check leaves to it.

const now = Date.now();
const good = {
  time: now - 60_000,
  method: 'GET',
  path: '/docs/1?q=2',
  status: 200,
  ip: '198.51.100.7',
  user_agent: 'GPTBot/1.2',
};
// One field changed at a time: valid and invalid values of each.
const variants: Record<string, unknown[]> = {
  time: [
    now,
    now + 23 * 3600_000,
    now + 25 * 3600_000,
    Date.UTC(2000, 0, 1),
    Date.UTC(1999, 11, 31),
    now + 0.5,
    2 ** 53 + 2,
    -0,
    '2026-01-02T03:04:05Z',
    '2026-01-02T03:04:05.123+02:00',
    'yesterday',
    '',
    `2026-01-02T03:04:05Z${' '.repeat(60)}`,
    null,
    true,
    [],
    {},
  ],
  method: ['get', 'PROPFIND', 'A'.repeat(16), 'A'.repeat(17), '', 'GE T', 'GÉT', 5, null],
  path: [
    '/',
    'https://example.com/a?b',
    'http://x',
    'ftp://x/y',
    'https://ex ample.com/',
    'docs',
    '',
    `/${'a'.repeat(8191)}`,
    `/${'a'.repeat(8192)}`,
    7,
    null,
  ],
  status: [undefined, null, 100, 599, 99, 600, 200.5, '200', -0, 2 ** 60],
  ip: [
    '2001:db8::1',
    '::ffff:1.2.3.4',
    '1.2.3',
    'localhost',
    '',
    `1.2.3.4${' '.repeat(60)}`,
    4,
    null,
    undefined,
  ],
  user_agent: ['', 'x'.repeat(4096), 'x'.repeat(4097), null, undefined, 3],
  referer: [undefined, null, 'https://chatgpt.com/', '', 'x'.repeat(4097), 5],
  headers: [undefined, { signature: 'x' }, {}],
  extra: [undefined, 'surplus key'],
};

const bodies: unknown[] = [];
const item = (field: string, value: unknown) => {
  const o: Record<string, unknown> = { ...good };
  if (value === undefined) delete o[field];
  else o[field] = value;
  return o;
};
for (const [field, values] of Object.entries(variants))
  for (const v of values) bodies.push({ site: 'site_0123456789abcdef', requests: [good, item(field, v)] });
bodies.push(
  { site: 'site_0123456789abcdef', requests: [] },
  { site: 'site_0123456789abcdef', requests: Array.from({ length: 1000 }, () => good) },
  { site: 'site_0123456789abcdef', requests: Array.from({ length: 1001 }, () => good) },
  { site: 'site_0123456789abcde', requests: [good] },
  { site: 'site_0123456789abcdef', requests: [good], more: 1 },
  { site: 'site_0123456789abcdef', requests: good },
  { requests: [good] },
  [good],
  'text',
  null,
);

it('accepts only bodies the schema accepts, and returns what the schema returns', () => {
  let quick = 0;
  for (const body of bodies) {
    const q = validCollectBody(body);
    const z = CollectBody.safeParse(body);
    const plain = !JSON.stringify(body ?? null).match(/"(headers|extra|more)"/);
    // The quick check is not vacuous: it takes every valid body without headers or surplus keys.
    if (plain && z.success)
      assert.notEqual(q, undefined, `left to zod: ${JSON.stringify(body).slice(0, 300)}`);
    if (q === undefined) continue;
    quick++;
    assert.ok(z.success, `zod refuses what the quick check accepts: ${JSON.stringify(body).slice(0, 300)}`);
    assert.deepStrictEqual(q, z.data);
  }
  assert.ok(quick >= 20, `${quick} bodies taken by the quick check`);
});
