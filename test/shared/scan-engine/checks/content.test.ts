import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../../../shared/scan-engine/artifacts.ts';
import contentDuplicateHeadings from '../../../../shared/scan-engine/checks/content/content-duplicate-headings.ts';
import contentFreshness from '../../../../shared/scan-engine/checks/content/content-freshness.ts';
import contentHeadingOutline from '../../../../shared/scan-engine/checks/content/content-heading-outline.ts';
import contentImageAlt from '../../../../shared/scan-engine/checks/content/content-image-alt.ts';
import contentReadability from '../../../../shared/scan-engine/checks/content/content-readability.ts';
import contentWordCount from '../../../../shared/scan-engine/checks/content/content-word-count.ts';
import {
  fleschReadingEase,
  isEnglish,
  syllables,
} from '../../../../shared/scan-engine/checks/content/lib/readability.ts';
import { checkTable, html, htmlPage, page, sitemap } from '../../../helpers/artifact-factory.ts';

const body = (markup: string, attrs?: string): ArtifactSet => ({
  Page: htmlPage(html(markup, '<title>t</title>', attrs)),
});
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 50}`).join(' ');

// Plain prose: short sentences, short words (Flesch reading ease well above 60).
const EASY =
  '<p>' +
  'We bake bread each day. You can buy it at the shop. It is warm and fresh. Come in and say hi. '.repeat(8) +
  '</p>';
// Dense prose: long sentences of long words (Flesch reading ease far below 30).
const HARD =
  '<p>' +
  'Notwithstanding considerable organisational complexity, institutional stakeholders systematically operationalise interdisciplinary methodologies, consequently facilitating unprecedented administrative harmonisation across heterogeneous jurisdictional environments, particularly regarding environmental sustainability considerations. '.repeat(
    5,
  ) +
  '</p>';

checkTable(contentWordCount, [
  ['substantial', body(`<main><p>${words(400)}</p></main>`), { outcome: 'pass', message: /400 words/ }],
  [
    'thin',
    body(`<p>${words(60)}</p>`),
    { outcome: 'fail', message: /thin content: 60 words/, score: [0.2, 0.2] },
  ],
  ['nearly there', body(`<p>${words(200)}</p>`), { outcome: 'warn' }],
  [
    'navigation and footer do not count',
    body(`<nav>${words(300)}</nav><p>${words(30)}</p><footer>${words(300)}</footer>`),
    { outcome: 'fail', message: /30 words/ },
  ],
  [
    'scripts do not count',
    body(`<script>${words(500)}</script><p>Hi</p>`),
    { outcome: 'fail', message: /thin content: 1 word of/ },
  ],
]);

checkTable(contentReadability, [
  ['plain English', body(EASY), { outcome: 'pass', message: /Flesch reading ease \d+/ }],
  ['dense prose', body(HARD), { outcome: 'fail', message: /hard to read/ }],
  ['not English', body(EASY, 'lang="de"'), { outcome: 'not_applicable', message: /English/ }],
  [
    'too little text',
    body('<p>We bake bread each day.</p>'),
    { outcome: 'not_applicable', message: /Too little/ },
  ],
]);

const section = (n: number) => `<p>${words(n)}</p>`;
checkTable(contentHeadingOutline, [
  [
    'sections under headings',
    body(`<h1>T</h1>${section(120)}<h2>A</h2>${section(200)}<h2>B</h2>${section(250)}`),
    { outcome: 'pass' },
  ],
  [
    'a wall of text',
    body(section(500)),
    { outcome: 'fail', message: /500 words of content have no headings/ },
  ],
  [
    'one long section',
    body(`<h1>T</h1><h2>A</h2>${section(700)}<h2>B</h2>${section(100)}`),
    { outcome: 'warn', message: /700 words .*"A"/ },
  ],
  ['short page', body(`<h1>T</h1>${section(40)}`), { outcome: 'not_applicable' }],
]);

checkTable(contentImageAlt, [
  ['described', body('<img src="a.jpg" alt="Baker shaping sourdough loaves">'), { outcome: 'pass' }],
  [
    'placeholder alt',
    body('<img src="a.jpg" alt="..."><img src="b.jpg" alt="image">'),
    { outcome: 'fail', message: /placeholder such as "\.\.\."/ },
  ],
  [
    'file name as alt',
    body('<img src="a.jpg" alt="IMG_0042.jpg"><img src="b.jpg" alt="Our shop front">'),
    { outcome: 'warn' },
  ],
  [
    'decorative and spacer images are left out',
    body('<img src="r.png" alt=""><img src="s.gif" width="1" height="1">'),
    { outcome: 'not_applicable' },
  ],
  ['missing alt', body('<img src="a.jpg">'), { outcome: 'fail' }],
]);

// The factory's pages are fetched on 1 July 2025 (Date header), so ages are fixed.
const dated = (markup: string, extra: Partial<ArtifactSet> = {}): ArtifactSet => ({
  Page: htmlPage(html(markup)),
  ...extra,
});
checkTable(contentFreshness, [
  [
    'recent dateModified',
    dated(
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","dateModified":"2025-05-02"}</script>',
    ),
    { outcome: 'pass', message: /2025-05-02 \(JSON-LD dateModified\)/ },
  ],
  ['time element', dated('<p>Updated <time datetime="2025-01-10">10 Jan</time></p>'), { outcome: 'pass' }],
  [
    'Last-Modified 18 months ago',
    {
      Page: page({
        headers: { date: 'Tue, 01 Jul 2025 12:00:00 GMT', 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' },
      }),
    },
    { outcome: 'warn', message: /1\.5 years old \(Last-Modified header\)/ },
  ],
  [
    'old sitemap lastmod',
    dated('<p>x</p>', { Sitemap: sitemap({ lastmods: ['2019-03-01'] }) }),
    { outcome: 'fail', message: /6\.3 years/ },
  ],
  [
    'the newest date wins',
    dated('<time datetime="2012-01-01"></time>', { Sitemap: sitemap({ lastmods: ['2025-06-01'] }) }),
    { outcome: 'pass' },
  ],
  [
    'future dates are ignored',
    dated('<time datetime="2031-01-01"></time>'),
    { outcome: 'warn', message: /No date signals/ },
  ],
  [
    'copyright year as a last resort',
    dated('<footer>© 2012-2025 Bakery Ltd</footer>'),
    { outcome: 'pass', message: /2025 \(copyright year\)/ },
  ],
  ['old copyright', dated('<footer>Copyright 2012</footer>'), { outcome: 'fail' }],
  ['nothing', dated('<p>Hello</p>'), { outcome: 'warn', message: /No date signals/ }],
]);

checkTable(contentDuplicateHeadings, [
  ['distinct', body('<h1>Bakery</h1><h2>Bread</h2><h2>Cakes</h2>'), { outcome: 'pass' }],
  [
    'title equal to h1 is fine',
    { Page: htmlPage(html('<h1>Bakery</h1>', '<title>Bakery</title>')) },
    { outcome: 'pass' },
  ],
  ['empty h1', body('<h1></h1><h2>Bread</h2>'), { outcome: 'fail', message: /<h1> is empty/ }],
  ['duplicated h1', body('<h1>Bakery</h1><h1>Bakery</h1>'), { outcome: 'warn', message: /"bakery" x2/ }],
  [
    'repeated subheadings',
    body('<h1>News</h1><h3>Read more</h3><h3>Read more</h3><h3>Read more</h3>'),
    { outcome: 'warn', message: /"read more" x3/ },
  ],
  ['no headings', body('<p>x</p>'), { outcome: 'not_applicable' }],
]);

describe('readability helpers', () => {
  it('counts syllables of common words', () => {
    const cases: [string, number][] = [
      ['bread', 1],
      ['table', 2],
      ['bakery', 3],
      ['made', 1],
      ['organisation', 5],
      ['the', 1],
    ];
    for (const [word, n] of cases) assert.equal(syllables(word), n, word);
  });
  it('matches the Flesch formula on a known sentence', () => {
    // 6 words, 1 sentence, 6 syllables: 206.835 - 1.015 * 6 - 84.6 * 1 = 116.145
    assert.equal(fleschReadingEase('The cat sat on the mat.').score.toFixed(3), '116.145');
  });
  it('detects English by lang, else by function words', () => {
    assert.equal(isEnglish('irrelevant', 'en-GB'), true);
    assert.equal(isEnglish('the quick fox and the dog', 'fr'), false);
    assert.equal(isEnglish('it is the way of the world and we are in it', null), true);
    assert.equal(isEnglish('der schnelle braune Fuchs springt über den faulen Hund', null), false);
  });
  it('counts function words as the list of every lower-cased word does', () => {
    // The share the function words test used before it counted in one pass.
    const share = (t: string) => {
      const all = (t.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []).map((w) => w.toLowerCase());
      return all.length > 0 && all.filter((w) => FUNCTION_WORDS.has(w)).length / all.length >= 0.15;
    };
    const FUNCTION_WORDS = new Set(['the', 'of', 'and', 'to', 'a', 'in', 'is', 'it', 'which', 'there']);
    const texts = [
      'THE end OF it', // upper case
      'İt İs thE ǅ Kelvin \u212Ant which WHICH', // İ lower-cases to two units, K (Kelvin) to k
      'theology offered another whichever thereafter',
      'a a a a b c d e f g h i j k l m n o p q r s t',
    ];
    for (const t of texts) assert.equal(isEnglish(t, null), share(t), t);
  });
});
