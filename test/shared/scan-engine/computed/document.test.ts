import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as cheerio from 'cheerio';
import {
  bodyText,
  collapse,
  forEachWord,
  hasWords,
  mainText,
  textOf,
  wordCount,
  words,
} from '../../../../shared/scan-engine/checks/content/lib/page.ts';
import { loadDocument, perDocument, subjectKeys } from '../../../../shared/scan-engine/computed/document.ts';

// The parsed page the checks share: its root queries answered from an element index must find
// exactly what cheerio's own search finds, in the same order; values derived once per document.

const FIXTURES = fileURLToPath(new URL('../../../fixtures', import.meta.url));
const htmlFiles = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.html?$/.test(f))
    .map((f) => path.join(dir, f));

const SELECTORS = [
  'a[href]',
  'meta[name="viewport" i]',
  'link[rel~="canonical" i]',
  'body blockquote, body q',
  'form textarea',
  'h1, h2, h3, h4, h5, h6, [role="heading"]',
  'img, input[type="image" i], area[href], [role="img"]',
  '[tabindex], a[href], button, input, select, textarea',
  'main, [role="main"]',
  '.author, .byline, [class*="author-name"]',
  '[class], [id]',
  '#main',
  'ul > li',
  'template p',
  'svg a',
  'a[title="x > img"]',
  'a[href^="tel:" i]',
  'a[href^="MAILTO:" i], a[href^="mailto:"]',
  'input[type="image" i]',
  'link[rel~="alternate" i][hreflang]',
  '[itemprop="author"], [rel~="author"]',
  '[class*="author-name"], .x-author-name, #MAIN',
  'svg foreignObject p',
  '*',
  'a:first',
  'a',
  'p',
  'li',
  'text',
  'foreignobject',
];

const TRICKY = `<!doctype html><html lang="en"><head><title>t</title></head><body>
<header role="banner"><nav><a href="/">Home</a><a title="x > img" href="/x">x</a></nav></header>
<main id="main"><h1 class="author">Title</h1><div role="heading" aria-level="2">Sub</div>
<ul><li>one</li><li>two <a href="/two">link</a></li></ul><template><p>inside a template</p></template>
<svg><a href="#s"><text>svg link</text></a></svg><blockquote>quote</blockquote><p>text <q>short</q></p>
<form><textarea></textarea><input type="IMAGE" src="x.png" tabindex="2"></form><img src="y.png" role="img">
</main><footer class="byline x-author-name">by</footer></body></html>`;

describe('the shared parsed document', () => {
  it('answers root queries from its element index exactly as cheerio searches', () => {
    const svg = '<p>x</p><svg><foreignObject><p>in svg</p></foreignObject><linearGradient/></svg>';
    const pages = [TRICKY, svg, ...htmlFiles(FIXTURES).map((f) => fs.readFileSync(f, 'utf8'))];
    let compared = 0;
    for (const html of pages) {
      const plain = cheerio.load(html);
      const shared = loadDocument(html);
      for (const selector of SELECTORS) {
        const want = plain(selector).toArray();
        const got = shared(selector).toArray();
        assert.equal(got.length, want.length, selector);
        assert.equal(shared.html(got), plain.html(want), selector);
        compared += want.length;
      }
    }
    assert.ok(compared > 500, `compared ${compared} elements`);
  });

  it('hands out one selection per selector and passes everything else to cheerio', () => {
    const $ = loadDocument(`${TRICKY}<!-- once -->`);
    assert.equal($('a[href]'), $('a[href]'));
    assert.equal($('li', 'ul').length, 2); // with a context: cheerio's own search
    assert.equal($('<p>new</p>').text(), 'new'); // HTML: a new fragment, never cached
    assert.equal($.root().find('title').text(), 't'); // static methods still work
  });

  it('indexes by tag, else by a required attribute, and walks the tree for the rest', () => {
    assert.deepEqual(subjectKeys('a[href], body q'), ['tag:a', 'tag:q']);
    assert.deepEqual(subjectKeys('a[title="x > img"]'), ['tag:a']);
    assert.deepEqual(subjectKeys('[role="main"], .author, #top'), ['attr:role', 'attr:class', 'attr:id']);
    assert.equal(subjectKeys('*'), null);
    assert.equal(subjectKeys('main, *'), null);
    assert.equal(subjectKeys('a:first'), null);
  });

  it('reads the body text and the unmarked main text in one walk, as two text walks would', () => {
    const notMain = new Set([
      ...['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link'],
      ...['header', 'nav', 'footer', 'aside'],
    ]);
    const hidden =
      '<body><header>Site</header><div hidden><p>gone</p></div><nav><p>menu</p></nav><p>Body</p></body>';
    const pages = [TRICKY, hidden, ...htmlFiles(FIXTURES).map((f) => fs.readFileSync(f, 'utf8'))];
    for (const html of pages) {
      const plain = cheerio.load(html);
      const body = plain('body').get(0);
      const marked =
        plain('main, [role="main"]').get(0) ??
        (plain('article').length === 1 ? plain('article').get(0) : undefined);
      const $ = loadDocument(html);
      assert.equal(bodyText($), textOf(body));
      assert.equal(mainText($), marked ? textOf(marked) : textOf(body, notMain));
    }
  });

  it('computes a derived value once per document', () => {
    let calls = 0;
    const count = ($: cheerio.CheerioAPI) => {
      calls++;
      return $('li').length;
    };
    const $ = loadDocument(`${TRICKY}<!-- derived -->`);
    assert.equal(perDocument($, count), 2);
    assert.equal(perDocument($, count), 2);
    assert.equal(calls, 1);
    assert.equal(perDocument(loadDocument(`${TRICKY}<!-- another -->`), count), 2);
    assert.equal(calls, 2);
  });
});

describe('words', () => {
  const REGEX = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
  it('finds the regex words in generated texts of ASCII and other letters, joiners and surrogates', () => {
    const pieces = [
      'a',
      'Z',
      '9',
      ' ',
      "'",
      '’',
      '-',
      'é',
      'ß',
      '日',
      '٣',
      '𝐀',
      '\ud800',
      '\udc00',
      '.',
      '²',
      '\u0301',
    ];
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 20_000; i++) {
      let t = '';
      for (let n = Math.floor(random() * 20); n > 0; n--) t += pieces[Math.floor(random() * pieces.length)];
      assert.deepEqual(words(t), t.match(REGEX) ?? [], JSON.stringify(t));
    }
  });
  it('finds exactly the words the Unicode regex finds', () => {
    const texts = [
      "It's a well-known fact—isn’t it? -dash- x- 'quoted'",
      'Ünïcödé 日本語のテキスト ٣٤ 𝐀𝐁𝐂-𝐃 combining e\u0301 lone \ud800 surrogate',
      ...htmlFiles(FIXTURES).map((f) => cheerio.load(fs.readFileSync(f, 'utf8'))('body').text()),
    ];
    for (const t of texts) {
      const want = t.match(REGEX) ?? [];
      assert.deepEqual(words(t), want);
      assert.equal(wordCount(t), want.length);
      // The content profile counts words without collapsing whitespace first.
      assert.equal(wordCount(collapse(t)), wordCount(t));
      for (const n of [1, 3, want.length, want.length + 1]) assert.equal(hasWords(t, n), want.length >= n);
      const visited: string[] = [];
      assert.equal(
        forEachWord(t, (start, end) => visited.push(t.slice(start, end))),
        want.length,
      );
      assert.deepEqual(visited, want);
    }
  });
});
