import type { CountryCode } from 'libphonenumber-js/max';
import { PhoneNumberMatcher } from 'libphonenumber-js/max';
import { defaultCountry } from '../checks/content/lib/link-words.ts';

// Contact data written as plain text (a footer with "Tlf. 33 12 34 56 · info@firma.dk"), not only
// as tel:/mailto: links. Phone numbers are found by libphonenumber-js (Google's libphonenumber
// metadata, "valid" leniency: a number must be a valid number of its country, so prices, dates,
// order numbers and VAT ids do not count). Numbers written without a +country code are read in
// the page's country: the lang tag's region, else the country-code TLD, else the language's
// usual country; English pages with neither are read as US and GB numbers.

const MAX_TEXT = 60_000;

// Generic TLDs that look like country codes but are sold worldwide.
const GENERIC_CC = new Set([
  'ai',
  'io',
  'co',
  'me',
  'tv',
  'fm',
  'ly',
  'gg',
  'sh',
  'ac',
  'to',
  'cc',
  'ws',
  'la',
  'am',
]);

function tldCountry(host: string): string | undefined {
  const tld = host.toLowerCase().split('.').pop() ?? '';
  if (!/^[a-z]{2}$/.test(tld)) return undefined;
  if (tld === 'uk') return 'GB';
  if (GENERIC_CC.has(tld)) return undefined;
  return tld.toUpperCase();
}

/** Countries to read national-format numbers in, most likely first (at most three). */
export function phoneCountries(lang: string | null, pageUrl: string): string[] {
  const out: string[] = [];
  const add = (c: string | undefined) => {
    if (c && !out.includes(c)) out.push(c);
  };
  const region = /^[a-z]{2,3}[-_]([a-z]{2})\b/i.exec(lang ?? '')?.[1];
  add(region?.toUpperCase());
  try {
    add(tldCountry(new URL(pageUrl).hostname));
  } catch {}
  add(defaultCountry(lang));
  if (out.length === 0) {
    add('US');
    add('GB');
  }
  return out.slice(0, 3);
}

// Several checks look for phone numbers in the same body text; the search is the dearest step of
// scoring, so its answers for the last few texts are kept. Keyed by the text itself (the same
// string each check gets, hashed once), not by a string built from it per call.
const answers = new Map<string, Map<string, readonly string[]>>();
const MAX_FOUND = 8;

/** Phone numbers in the text, in E.164 (deduplicated). The list is shared: read-only. */
export function phonesInText(text: string, countries: readonly string[]): readonly string[] {
  let byCountries = answers.get(text);
  if (!byCountries) {
    byCountries = new Map();
    answers.set(text, byCountries);
    if (answers.size > MAX_FOUND) answers.delete(answers.keys().next().value as string);
  }
  const key = countries.join(',');
  let hit = byCountries.get(key);
  if (!hit) {
    hit = findPhones(text, countries);
    byCountries.set(key, hit);
  }
  return hit;
}

function findPhones(text: string, countries: readonly string[]): string[] {
  const t = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT / 2)}\n${text.slice(-MAX_TEXT / 2)}` : text;
  const found = new Set<string>();
  const runs: (CountryCode | undefined)[] = countries.length ? (countries as CountryCode[]) : [undefined];
  // The matcher throws and catches a ParseError for every digit run that is no phone number (in a
  // page of code or tables, thousands); without stack traces each costs a fraction.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (const c of runs) {
      try {
        // What findPhoneNumbersInText(t, { defaultCountry: c }) does, with the matcher below.
        const matcher = new ShortCandidatesSkipped(t, { defaultCountry: c, v2: true });
        while (matcher.hasNext()) {
          const m = matcher.next();
          if (m) found.add(m.number.number);
        }
      } catch {
        // an unknown country code: libphonenumber has no metadata for it; try the next
      }
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return [...found];
}

// No valid number of any country has a national number shorter than 4 digits (libphonenumber's
// metadata: the shortest possible length is 4, for AT, DE, NU, SH, TK ...; a national prefix
// transform only applies to longer digit runs), so a candidate with at most 3 digits is never a
// match. In a page of code most candidates are such ("1", "[2, 3]"), and libphonenumber parses
// each one and throws a ParseError for it; the matcher below answers "no match" for them before
// parsing. Same matches, same order: the skipped candidates are ones the parse would reject.
export const MIN_PHONE_DIGITS = 4;
const DIGIT = /\p{Nd}/gu; // every digit libphonenumber reads is a decimal digit in Unicode's sense

type ParseAndVerify = (this: PhoneNumberMatcher, candidate: string, offset: number, text: string) => unknown;

class ShortCandidatesSkipped extends PhoneNumberMatcher {
  parseAndVerify(candidate: string, offset: number, text: string): unknown {
    DIGIT.lastIndex = 0;
    let digits = 0;
    while (digits < MIN_PHONE_DIGITS && DIGIT.test(candidate)) digits++;
    if (digits < MIN_PHONE_DIGITS) return undefined;
    return parseAndVerify.call(this, candidate, offset, text);
  }
}
// The matcher's own step, which find() calls for every candidate (not in libphonenumber-js's types).
const parseAndVerify = (PhoneNumberMatcher.prototype as unknown as { parseAndVerify: ParseAndVerify })
  .parseAndVerify;
if (typeof parseAndVerify !== 'function')
  throw new Error('libphonenumber-js: PhoneNumberMatcher.parseAndVerify is gone; revisit findPhones');

// A number introduced by a word ("Tel. 33 12 34 56"): a pattern that ends with a digit run
// \d[\d\s().-]{6,}\d and starts at most `lead` characters before that run. A case-insensitive
// Unicode alternation of words is dear when tried at every position of a page's text, and most
// pages have no digit run at all, so it is tried, sticky, only at the `lead` positions before
// each digit run. A match's run starts at the first
// digit of a stretch of [\d\s().-] (a word has letters, so none fits between two of its digits),
// which is where the global search for DIGIT_RUN finds each run. Same answer as pattern.test(text).
const DIGIT_RUN = '\\d[\\d\\s().-]{6,}\\d';
const stickyCopies = new Map<RegExp, RegExp>();

export function matchesBeforeDigitRun(pattern: RegExp, text: string, lead: number): boolean {
  let sticky = stickyCopies.get(pattern);
  if (!sticky) {
    if (!pattern.source.endsWith(DIGIT_RUN) || pattern.global || pattern.sticky)
      throw new Error(`matchesBeforeDigitRun: ${pattern} does not end with ${DIGIT_RUN}`);
    sticky = new RegExp(pattern.source, `${pattern.flags}y`);
    stickyCopies.set(pattern, sticky);
  }
  const runs = new RegExp(DIGIT_RUN, 'gu');
  let tried = 0; // every start before this position has been tried
  for (let run = runs.exec(text); run; run = runs.exec(text)) {
    for (let start = Math.max(tried, run.index - lead); start < run.index; start++) {
      sticky.lastIndex = start;
      if (sticky.test(text)) return true;
    }
    tried = Math.max(tried, run.index);
  }
  return false;
}

// user@example.com, also written "user [at] example.com"; file names such as logo@2x.png are not
// addresses.
const EMAIL =
  /[\p{L}\p{N}._%+-]+(?:@|\s?\[at\]\s?|\s?\(at\)\s?)[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(\p{L}{2,24})\b/giu;
const NOT_A_TLD = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'avif', 'css', 'js']);

// Every address has a separator (@, [at] or (at)) right after its local part, so the pattern is
// tried only where one ends, at the start of the local part before it (what a scan of every
// position finds first), and not at each position of a long text (tens of milliseconds on a long
// page). Sticky, from that position only; the same matches, in the same order, without overlaps.
const EMAIL_AT = new RegExp(EMAIL.source, 'iuy');
const SEPARATORS = /@|[[(]at[\])]/giu;
const LOCAL_CHAR = /^[\p{L}\p{N}._%+-]$/u;
const SPACE = /^\s$/u;

/** The code point ending right before `i` (a surrogate pair counts as one). */
function charBefore(t: string, i: number): string {
  const low = t.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = t.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return t.slice(i - 2, i);
  }
  return t[i - 1] ?? '';
}

function* addresses(text: string): Generator<string> {
  const t = text.slice(0, MAX_TEXT * 2);
  const separators = new RegExp(SEPARATORS);
  const email = new RegExp(EMAIL_AT);
  let from = 0; // where the last address ended: addresses do not overlap
  for (let sep = separators.exec(t); sep; sep = separators.exec(t)) {
    // The local part ends at the separator; [at] and (at) may follow one space.
    let end = sep.index;
    if (sep[0] !== '@' && end > from && SPACE.test(t[end - 1] ?? '')) end--;
    let start = end;
    for (let c = charBefore(t, start); start > from && LOCAL_CHAR.test(c); c = charBefore(t, start))
      start -= c.length;
    if (start === end) continue;
    email.lastIndex = start;
    const m = email.exec(t);
    if (!m) continue;
    from = start + m[0].length;
    separators.lastIndex = from;
    if (!NOT_A_TLD.has((m[1] ?? '').toLowerCase())) yield m[0];
  }
}

export function emailsInText(text: string): string[] {
  const out = new Set<string>();
  for (const a of addresses(text)) out.add(a.toLowerCase());
  return [...out];
}

/** emailsInText(text).length > 0, stopping at the first address. */
export function hasEmailInText(text: string): boolean {
  return !addresses(text).next().done;
}
