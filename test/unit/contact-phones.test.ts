import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CountryCode, findPhoneNumbersInText } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/metadata.max.json';
import { MIN_PHONE_DIGITS, phonesInText } from '../../shared/scan/computed/contact.ts';

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
