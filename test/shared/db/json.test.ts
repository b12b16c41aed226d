import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeText, stripNul, toJsonb } from '../../../shared/db/json.ts';

// The one sanitiser of stored JSON (Postgres' acceptance of its output is checked against a real
// server in test/api/faults-input.test.ts): text is kept, NUL dropped, a lone surrogate made U+FFFD.

describe('safeText', () => {
  const cases: [string, string, string][] = [
    ['plain text', 'héllo 😀', 'héllo 😀'],
    ['NULs anywhere', '\0a\0\0b\0', 'ab'],
    ['only NULs', '\0'.repeat(1000), ''],
    ['a lone high surrogate', 'a\ud800b', 'a\ufffdb'],
    ['a lone low surrogate', '\udc00', '\ufffd'],
    ['a pair split by a NUL', '\ud83d\0\ude00', '😀'],
    ['escape-like text', '\\u0000', '\\u0000'],
  ];
  for (const [name, input, expected] of cases)
    it(name, () => {
      assert.equal(safeText(input), expected);
    });
});

describe('toJsonb', () => {
  it('writes what JSON.stringify writes for safe values (a Date through its toJSON too)', () => {
    const value = { a: [1, 'two', null, { b: true }], c: new Date(0), d: undefined };
    assert.equal(toJsonb(value), JSON.stringify(value));
    assert.equal(toJsonb(undefined), 'null');
  });

  it('cleans strings at any depth and keys', () => {
    const value = { 'k\0ey': ['x\0', { '\ud800': 'y\udfff' }], s: 'fine' };
    assert.deepEqual(JSON.parse(toJsonb(value)), { key: ['x', { '\ufffd': 'y\ufffd' }], s: 'fine' });
  });

  it('a 5 MiB body of NULs becomes an empty string, not 30 MB of escapes', () => {
    const html = '\0'.repeat(5 * 1024 * 1024);
    assert.equal(toJsonb({ Page: { html } }), '{"Page":{"html":""}}');
  });

  it('a body of NULs interleaved with text keeps every other character', () => {
    const json = toJsonb({ html: 'ab\0'.repeat(100_000) });
    assert.equal(json, JSON.stringify({ html: 'ab'.repeat(100_000) }));
  });
});

describe('stripNul', () => {
  it('drops NUL and leaves the rest as it is', () => {
    assert.equal(stripNul('a\0b\ud800'), 'ab\ud800');
    assert.equal(stripNul('clean'), 'clean');
  });
});
