import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  evaluate,
  GOOGLE_MAX_LINE_BYTES,
  isAllowed,
  type MatchOptions,
  parseRobotsTxt,
} from '../../shared/scan-engine/parsers/robots-txt.ts';

// Google's robots.txt conformance suite (protobuf text format) and ai.robots.txt's block-list.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SPEC_DIR = path.join(CORPUS, 'robotstxt-tests/google-robotstxt-spec-test/resources/CTC');
const AI_DIR = path.join(CORPUS, 'ai-user-agents/ai.robots.txt');

// --- a small reader for the protobuf text format the suite is written in ---------------------

type TextValue = Uint8Array | string | TextMessage | TextValue[];
interface TextMessage {
  [field: string]: TextValue[];
}

type Token =
  | { kind: 'punct'; value: string }
  | { kind: 'ident'; value: string }
  | { kind: 'bytes'; value: Uint8Array };

const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10,
  r: 13,
  t: 9,
  '"': 34,
  "'": 39,
  '\\': 92,
  a: 7,
  b: 8,
  f: 12,
  v: 11,
};

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const utf8 = new TextEncoder();
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if ('{}[]:,'.includes(c)) {
      tokens.push({ kind: 'punct', value: c });
      i++;
    } else if (c === '"' || c === "'") {
      // A string literal is bytes: escapes may encode any byte, plain text is UTF-8.
      const bytes: number[] = [];
      i++;
      while (src[i] !== c) {
        if (i >= src.length) throw new Error('unterminated string');
        if (src[i] === '\\') {
          const e = src[i + 1] as string;
          if (e === 'x') {
            const hex = /^[0-9A-Fa-f]{1,2}/.exec(src.slice(i + 2))?.[0] ?? '';
            bytes.push(Number.parseInt(hex, 16));
            i += 2 + hex.length;
          } else if (/[0-7]/.test(e)) {
            const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1))?.[0] ?? '';
            bytes.push(Number.parseInt(oct, 8));
            i += 1 + oct.length;
          } else {
            const b = SIMPLE_ESCAPES[e];
            if (b === undefined) throw new Error(`unknown escape \\${e}`);
            bytes.push(b);
            i += 2;
          }
        } else {
          const cp = src.codePointAt(i) as number;
          const ch = String.fromCodePoint(cp);
          bytes.push(...utf8.encode(ch));
          i += ch.length;
        }
      }
      i++;
      // Adjacent literals concatenate.
      const prev = tokens[tokens.length - 1];
      if (prev?.kind === 'bytes') {
        prev.value = new Uint8Array([...prev.value, ...bytes]);
      } else {
        tokens.push({ kind: 'bytes', value: new Uint8Array(bytes) });
      }
    } else {
      const m = /^[A-Za-z0-9_.+-]+/.exec(src.slice(i));
      if (!m) throw new Error(`unexpected ${c} at ${i}`);
      tokens.push({ kind: 'ident', value: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

function parseTextProto(src: string): TextMessage {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos++];
    if (!t) throw new Error('unexpected end of input');
    return t;
  };
  const isPunct = (t: Token | undefined, v: string) => t?.kind === 'punct' && t.value === v;

  function value(): TextValue {
    const t = next();
    if (t.kind === 'bytes' || t.kind === 'ident') return t.value;
    if (t.value === '{') return message('}');
    if (t.value === '[') {
      const list: TextValue[] = [];
      while (!isPunct(peek(), ']')) {
        list.push(value());
        if (isPunct(peek(), ',')) pos++;
      }
      pos++;
      return list;
    }
    throw new Error(`unexpected ${t.value}`);
  }

  function message(end: string | null): TextMessage {
    const msg: TextMessage = {};
    while (pos < tokens.length && !(end && isPunct(peek(), end))) {
      const name = next();
      if (name.kind !== 'ident') throw new Error('expected a field name');
      if (isPunct(peek(), ':')) pos++;
      const v = value();
      const values = Array.isArray(v) ? v : [v];
      msg[name.value] = [...(msg[name.value] ?? []), ...values];
      if (isPunct(peek(), ',') || isPunct(peek(), ';')) pos++;
    }
    if (end) pos++;
    return msg;
  }

  return message(null);
}

// --- the suite ------------------------------------------------------------------------------

interface SpecCase {
  file: string;
  robotstxt: string;
  url: string;
  agent: string;
  allowed: boolean;
  type: 'STANDARD' | 'GOOGLE_SPECIFIC';
}

const decoder = new TextDecoder('utf-8');
const text = (v: TextValue[] | undefined): string => {
  const first = v?.[0];
  if (first === undefined) return '';
  if (first instanceof Uint8Array) return decoder.decode(first);
  if (typeof first === 'string') return first;
  throw new Error('expected a scalar');
};

function loadSpecCases(): SpecCase[] {
  const cases: SpecCase[] = [];
  for (const sub of ['correctness', 'stress']) {
    const dir = path.join(SPEC_DIR, sub);
    for (const name of readdirSync(dir)
      .filter((f) => f.endsWith('.textproto'))
      .sort()) {
      const spec = parseTextProto(readFileSync(path.join(dir, name), 'utf8'));
      for (const test of (spec.tests ?? []) as TextMessage[]) {
        // The robots.txt body is bytes; a crawler decodes it as UTF-8 like this.
        const robotstxt = text(test.robotstxt);
        for (const exp of (test.test_expectations ?? []) as TextMessage[]) {
          const outcome = text(exp.expected_outcome);
          cases.push({
            file: `${sub}/${name}`,
            robotstxt,
            url: text(exp.testurl),
            agent: text(exp.useragent),
            allowed: outcome === 'ALLOWED',
            type: text(exp.test_type) === 'GOOGLE_SPECIFIC' ? 'GOOGLE_SPECIFIC' : 'STANDARD',
          });
          assert.ok(outcome === 'ALLOWED' || outcome === 'DISALLOWED', `${name}: outcome ${outcome}`);
        }
      }
    }
  }
  return cases;
}

describe('robots.txt: google/robotstxt-spec-test', {
  skip: !existsSync(SPEC_DIR) && `corpus not found at ${SPEC_DIR}`,
}, () => {
  const cases = existsSync(SPEC_DIR) ? loadSpecCases() : [];

  it('reads every expectation of every file', () => {
    let written = 0;
    for (const sub of ['correctness', 'stress']) {
      for (const name of readdirSync(path.join(SPEC_DIR, sub)).filter((f) => f.endsWith('.textproto'))) {
        written += readFileSync(path.join(SPEC_DIR, sub, name), 'utf8').match(/^\s*testurl:/gm)?.length ?? 0;
      }
    }
    assert.equal(new Set(cases.map((c) => c.file)).size, 41);
    assert.equal(cases.length, written);
  });

  // The suite is written against Google's reference parser: RFC-only product tokens, and its
  // matcher treats /robots.txt like any path. Those are our `rfc` options; the defaults differ in
  // exactly those two places, which the last test below counts.
  const REFERENCE: MatchOptions = { tokens: 'rfc', implicitRobotsTxt: false };
  const describeCase = (c: SpecCase) =>
    `${c.file}: "${c.agent}" ${c.url} expected ${c.allowed ? 'ALLOWED' : 'DISALLOWED'}`;

  it('passes every STANDARD (RFC 9309) case', () => {
    const standard = cases.filter((c) => c.type === 'STANDARD');
    const misses = standard.filter((c) => isAllowed(c.robotstxt, c.agent, c.url, REFERENCE) !== c.allowed);
    const report = misses.map((c) => `${describeCase(c)}\n${c.robotstxt}`);
    assert.deepEqual(report, [], `${misses.length} of ${standard.length} STANDARD cases fail`);
  });

  it('reports the GOOGLE_SPECIFIC cases (not required)', (t) => {
    const google = cases.filter((c) => c.type === 'GOOGLE_SPECIFIC');
    const misses = google.filter((c) => isAllowed(c.robotstxt, c.agent, c.url, REFERENCE) !== c.allowed);
    t.diagnostic(`GOOGLE_SPECIFIC: ${google.length - misses.length} of ${google.length} pass`);
    for (const c of misses) t.diagnostic(`  differs: ${describeCase(c)}`);
    assert.ok(google.length > 0);
  });

  it('Google mode passes every case, STANDARD and GOOGLE_SPECIFIC alike', () => {
    const misses = cases.filter(
      (c) => isAllowed(c.robotstxt, c.agent, c.url, { google: true }) !== c.allowed,
    );
    assert.deepEqual(
      misses.map(describeCase),
      [],
      `${misses.length} of ${cases.length} cases fail in Google mode`,
    );
  });

  it('with default options differs only where tokens hold digits or the URL is /robots.txt', (t) => {
    const standard = cases.filter((c) => c.type === 'STANDARD');
    const misses = standard.filter((c) => isAllowed(c.robotstxt, c.agent, c.url) !== c.allowed);
    t.diagnostic(`default options: ${standard.length - misses.length} of ${standard.length} STANDARD pass`);
    for (const c of misses) {
      t.diagnostic(`  differs: ${describeCase(c)}`);
      const digits = /\d/.test(c.agent) || /user-agent:[ \t]*[A-Za-z_-]*\d/i.test(c.robotstxt);
      assert.ok(digits || new URL(c.url).pathname === '/robots.txt', describeCase(c));
    }
  });
});

describe('robots.txt: ai.robots.txt block-list', {
  skip: !existsSync(AI_DIR) && `corpus not found at ${AI_DIR}`,
}, () => {
  it('disallows every listed agent, explicitly, and nobody else', () => {
    const robots = parseRobotsTxt(readFileSync(path.join(AI_DIR, 'robots.txt'), 'utf8'));
    const agents = Object.keys(JSON.parse(readFileSync(path.join(AI_DIR, 'robots.json'), 'utf8')));
    assert.ok(agents.length > 100);
    const notBlocked = agents.filter((a) => isAllowed(robots, a, 'https://example.com/any/page'));
    assert.deepEqual(notBlocked, []);
    const notExplicit = agents.filter((a) => evaluate(robots, a, 'https://example.com/').via !== 'explicit');
    assert.deepEqual(notExplicit, []);
    // The same file says nothing about ordinary crawlers.
    assert.equal(isAllowed(robots, 'Googlebot', 'https://example.com/any/page'), true);
    assert.notEqual(evaluate(robots, 'Googlebot', 'https://example.com/').via, 'explicit');
    // Real user-agent strings of listed agents resolve to their product token.
    const gptbot =
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
    assert.equal(isAllowed(robots, gptbot, 'https://example.com/'), false);
  });
});

describe('robots.txt: Google mode beyond the suite (issue 14)', () => {
  it('a user-agent line with a space names its first word; the crawler name is compared as given', () => {
    const txt = 'User-agent: *\nDisallow: /\n\nUser-agent: Foo Bar\nAllow: /x/\nDisallow: /\n';
    assert.equal(isAllowed(txt, 'Foo', 'http://a.test/x/y', { google: true }), true);
    assert.equal(isAllowed(txt, 'Foo Bar', 'http://a.test/x/y', { google: true }), false);
  });
  it('Allow: /dir/index.html also allows /dir/ exactly, not /dir/other; RFC mode does not', () => {
    const txt = 'User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n';
    assert.equal(isAllowed(txt, 'x', 'http://a.test/dir/', { google: true }), true);
    assert.equal(isAllowed(txt, 'x', 'http://a.test/dir/other', { google: true }), false);
    assert.equal(isAllowed(txt, 'x', 'http://a.test/dir/', { tokens: 'rfc' }), false);
  });
  it("rules are cut at Google's line-length limit; RFC mode reads the whole line", () => {
    const long = `/${'a'.repeat(GOOGLE_MAX_LINE_BYTES + 100)}x`;
    const txt = `User-agent: *\nDisallow: ${long}\n`;
    const url = `http://a.test/${'a'.repeat(GOOGLE_MAX_LINE_BYTES + 100)}y`;
    assert.equal(isAllowed(txt, 'x', url, { google: true }), false);
    assert.equal(isAllowed(txt, 'x', url, { tokens: 'rfc' }), true);
  });
});
