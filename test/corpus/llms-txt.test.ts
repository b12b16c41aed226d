import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseLlmsTxt } from '../../shared/scan-engine/parsers/llms-txt.ts';

// Real llms.txt files (llmstxt.org's own and its sample, FastHTML, syncpack) must parse valid;
// the same files broken in the ways the spec rules out must not.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'llms-txt');
const FILES = [
  'AnswerDotAI-llms-txt/llms.txt',
  'AnswerDotAI-llms-txt/llms-sample.txt',
  'AnswerDotAI-fasthtml/llms.txt',
  'JamieMason-syncpack/llms.txt',
];
// Expanded context files built from an llms.txt: markdown documents, but not in llms.txt form.
const CONTEXT_FILES = ['AnswerDotAI-fasthtml/llms-ctx.txt', 'AnswerDotAI-fasthtml/llms-ctx-full.txt'];

const read = (f: string) => readFileSync(path.join(DIR, f), 'utf8');

// Ways to break a valid file, each violating one rule of the spec.
const BREAKAGES: [name: string, breakIt: (text: string) => string, error: RegExp][] = [
  ['H1 removed', (t) => t.replace(/^# .*\n/m, ''), /No H1/],
  ['text before the H1', (t) => `Welcome!\n\n${t}`, /not the first/],
  [
    'an H2 section moved above the H1',
    (t) => `## Extra\n\n- [x](https://x.example)\n\n${t}`,
    /H2 section comes before/,
  ],
  ['a second H1', (t) => `${t}\n# Another title\n`, /More than one H1/],
  ['first link left unclosed', (t) => t.replace(/^(- \[[^\]]*\]\([^)]*)\)/m, '$1'), /malformed link/],
  [
    'first link with a space before the URL',
    (t) => t.replace(/^(- \[[^\]]*\])\(/m, '$1 ('),
    /malformed link/,
  ],
  ['served as an HTML page', (t) => `<!DOCTYPE html>\n<html><body><pre>${t}</pre></body></html>`, /HTML/],
  ['emptied', () => '', /empty/],
];

describe('llms.txt corpus', { skip: !existsSync(DIR) && `corpus not found at ${DIR}` }, () => {
  for (const file of FILES) {
    it(`${file} parses valid`, () => {
      const text = read(file);
      const doc = parseLlmsTxt(text);
      assert.deepEqual(doc.errors, []);
      assert.equal(doc.valid, true);
      assert.equal(doc.title, /^# (.*)$/m.exec(text)?.[1]);
      assert.ok(doc.summary, 'blockquote summary');
      const links = doc.sections.flatMap((s) => s.links);
      assert.equal(links.length, text.match(/^- \[[^\]]+\]\([^)]+\)/gm)?.length);
      assert.ok(links.every((l) => /^https?:\/\//.test(l.url)));
      assert.equal(doc.hasOptional, /^## Optional\s*$/m.test(text));
    });

    for (const [name, breakIt, error] of BREAKAGES) {
      it(`${file} with ${name} is invalid`, () => {
        const broken = breakIt(read(file));
        assert.notEqual(broken, read(file), 'the breakage changed nothing');
        const doc = parseLlmsTxt(broken);
        assert.equal(doc.valid, false);
        assert.ok(
          doc.errors.some((e) => error.test(e)),
          JSON.stringify(doc.errors),
        );
      });
    }
  }

  for (const file of CONTEXT_FILES) {
    it(`${file} (an expanded context file, not llms.txt) parses without throwing and is not valid`, () => {
      const doc = parseLlmsTxt(read(file));
      assert.equal(doc.valid, false);
      assert.ok(doc.errors.length > 0 && doc.errors.length <= 26);
    });
  }
});
