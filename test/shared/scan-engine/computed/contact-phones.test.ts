import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CountryCode, findPhoneNumbersInText } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/metadata.max.json';
import {
  MIN_PHONE_DIGITS,
  matchesBeforeDigitRun,
  phonesInText,
} from '../../../../shared/scan-engine/computed/contact.ts';

// phonesInText skips candidates with fewer than MIN_PHONE_DIGITS digits before libphonenumber
// parses them; it must find exactly what findPhoneNumbersInText finds.

const plain = (text: string, countries: string[]) => [
  ...new Set(
    countries.flatMap((c) =>
      findPhoneNumbersInText(text, { defaultCountry: c as CountryCode }).map((m) => m.number.number),
    ),
  ),
];

const TEXTS: [string, string[]][] = [
  ['Ring 86 12 34 56 eller skriv', ['DK']],
  ['Call us on (415) 555-0132 or +44 20 7946 0958, ext. 12', ['US', 'GB']],
  ['_.chunk([1, 2, 3, 4], 2) => [[1, 2], [3, 4]]; _.range(0, 30, 5)', ['US', 'GB']],
  ['Saint Helena +290 2222, Niue +683 4002, Tokelau +690 3301, Wien 01 123', ['AT', 'US']],
  ['Order 2024-11-24, total 1,299.00, SKU 4006381333931', ['US', 'GB']],
  ['Tel. ０３-１２３４-５６７８ / ٠١٢٣٤٥٦٧٨٩', ['JP', 'EG']],
  ['Buenos Aires 011 15-2345-6789, (11) 2345-6789', ['AR']],
  ['', ['US']],
];

describe('phonesInText', () => {
  for (const [text, countries] of TEXTS) {
    it(JSON.stringify(text), () => {
      assert.deepEqual(phonesInText(text, countries), plain(text, countries));
    });
  }

  it('no country has a valid national number shorter than MIN_PHONE_DIGITS digits', () => {
    const m = metadata as unknown as {
      countries: Record<string, unknown[]>;
      nonGeographic: Record<string, unknown[]>;
    };
    for (const [id, c] of [...Object.entries(m.countries), ...Object.entries(m.nonGeographic)]) {
      const lengths = [...((c[3] as number[] | undefined) ?? [])];
      for (const type of (c[11] as unknown[] | undefined) ?? [])
        if (Array.isArray(type) && Array.isArray(type[1])) lengths.push(...(type[1] as number[]));
      assert.ok(Math.min(...lengths) >= MIN_PHONE_DIGITS, `${id}: ${lengths}`);
    }
  });
});

describe('matchesBeforeDigitRun', () => {
  // conversion-contact's pattern: a word, up to 30 characters, then a digit run.
  const PATTERN =
    /(?:\btel|\btlf|phone|telefon|téléphone|teléfono|telefone|telefono|call|hotline|☎|📞)[^0-9+\n]{0,30}[+(]?\d[\d\s().-]{6,}\d/iu;
  const LEAD = 9 + 2 * 30 + 1;

  it('answers what the pattern tried at every position answers', () => {
    const pieces = [
      'tel',
      'Tel.',
      'xtel',
      'TÉLÉPHONE',
      'phone',
      'call',
      '☎',
      '📞',
      '𝐀',
      'ſ',
      ' ',
      '\n',
      ':',
      '(',
      ')',
      '+',
      '-',
      '.',
      '1',
      '2',
      '34',
      '567',
      '8901',
      'ab',
      'é',
    ];
    let seed = 7; // mulberry32
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
    };
    let matched = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + Math.floor(random() * 40);
      let t = '';
      for (let j = 0; j < n; j++) t += pieces[Math.floor(random() * pieces.length)];
      // Half of them: a word, then up to 32 characters (some of two units), then a number.
      if (i % 2) {
        const lead = ['𝐀', 'a', ' ', '(', 'é', '😀'];
        t += pieces[Math.floor(random() * 8)];
        for (let j = Math.floor(random() * 33); j > 0; j--) t += lead[Math.floor(random() * lead.length)];
        t += `${random() < 0.3 ? '+' : ''}12 34 56 78`;
      }
      const want = PATTERN.test(t);
      assert.equal(matchesBeforeDigitRun(PATTERN, t, LEAD), want, JSON.stringify(t));
      if (want) matched++;
    }
    assert.ok(matched > 1000, `${matched} texts matched`);
  });

  it('takes only patterns that end with the digit run', () => {
    assert.throws(() => matchesBeforeDigitRun(/tel\s\d+/i, 'tel 123', 10));
  });
});
