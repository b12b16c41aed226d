import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emailsInText, hasEmailInText } from '../../../../shared/scan-engine/computed/contact.ts';

// Addresses are looked for only where a separator (@, [at], (at)) ends a local part; they must be
// exactly what the address pattern finds trying every position of the text.

const PATTERN =
  /[\p{L}\p{N}._%+-]+(?:@|\s?\[at\]\s?|\s?\(at\)\s?)[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(\p{L}{2,24})\b/giu;
const NOT_A_TLD = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'avif', 'css', 'js']);
const everyPosition = (text: string) => [
  ...new Set(
    [...text.matchAll(PATTERN)]
      .filter((m) => !NOT_A_TLD.has((m[1] ?? '').toLowerCase()))
      .map((m) => m[0].toLowerCase()),
  ),
];

const TEXTS = [
  'Skriv til hej@bagerietpaahjoernet.dk',
  'info [at] example.org and sales (AT) example.de',
  'two spaces:  x  [at] example.org, none: x[at]example.org',
  '<img src="logo@2x.png"> then real@example.com',
  'x@y@z.com and a@b c@d.com',
  'x [at]y@z.com',
  '(at@x.com [at]@x.com',
  'mail: a.b-c@sub.example.co.uk; é@é.fr; 𝒜𝒷@𝒞.org; 中文@例子.中国',
  '@param {Function} iteratee, @returns the list; user@host without a dot',
  'nobody here has an address',
  '',
];

describe('emailsInText', () => {
  for (const text of TEXTS) {
    it(JSON.stringify(text), () => {
      assert.deepEqual(emailsInText(text), everyPosition(text));
      assert.equal(hasEmailInText(text), everyPosition(text).length > 0);
    });
  }
});
