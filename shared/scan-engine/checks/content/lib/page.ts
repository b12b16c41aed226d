import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { perDocument } from '../../../computed/document.ts';

// Read-only helpers over a parsed page, shared by the checks of several dimensions. The parsed
// document is cached and shared between checks, so nothing here mutates it.

const NOT_RENDERED = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link']);
const BLOCK = new Set(
  (
    'p div section article main header footer nav aside li ul ol dl dt dd table tr td th h1 h2 h3 h4 h5 h6 br hr ' +
    'blockquote pre form figure figcaption address option select button label'
  ).split(' '),
);

export const isElement = (n: AnyNode): n is Element =>
  n.type === 'tag' || n.type === 'script' || n.type === 'style';

/** Hidden from everyone by markup: the hidden attribute or an inline display:none / visibility:hidden. */
export function isHiddenByMarkup(el: Element): boolean {
  if (el.attribs.hidden !== undefined) return true;
  if (el.name === 'input' && el.attribs.type?.toLowerCase() === 'hidden') return true;
  // Most elements have no style attribute: answered without a regex (every text walk asks).
  if (el.attribs.style === undefined) return false;
  const style = el.attribs.style.replace(/\s+/g, '').toLowerCase();
  return style.includes('display:none') || style.includes('visibility:hidden');
}

// Element tests written out for the per-element questions checks ask in a loop: a selector string
// (`$(el).find('th')`, `$(el).closest('nav')`) is parsed and compiled again on every call.

/** Whether any element under `el` (not `el` itself) passes `test`: `$(el).find(sel).length > 0`. */
export function hasDescendant(el: Element, test: (d: Element) => boolean): boolean {
  for (const c of el.children) {
    if (isElement(c) && test(c)) return true;
    const children = (c as { children?: AnyNode[] }).children;
    if (children?.length && hasDescendant(c as Element, test)) return true;
  }
  return false;
}

/** The elements under `el` that pass `test`, in document order: `$(el).find(sel).toArray()`. */
export function descendants(el: Element, test: (d: Element) => boolean, out: Element[] = []): Element[] {
  for (const c of el.children) {
    if (isElement(c) && test(c)) out.push(c);
    const children = (c as { children?: AnyNode[] }).children;
    if (children?.length) descendants(c as Element, test, out);
  }
  return out;
}

/** `el` or the nearest element above it that passes `test`: `$(el).closest(sel).get(0)`. */
export function closestElement(el: Element, test: (a: Element) => boolean): Element | undefined {
  for (let a: AnyNode | null = el; a && isElement(a); a = a.parent) if (test(a)) return a;
  return undefined;
}

/** Whether `el` or an element above it passes `test`: `$(el).closest(sel).length > 0`. */
export const hasAncestorOrSelf = (el: Element, test: (a: Element) => boolean): boolean =>
  closestElement(el, test) !== undefined;

/** Rendered text of a subtree: skips scripts, styles and hidden elements; blocks become line breaks. */
export function textOf(node: AnyNode | undefined, skip: ReadonlySet<string> = NOT_RENDERED): string {
  if (!node) return '';
  const parts: string[] = [];
  const walk = (n: AnyNode) => {
    if (n.type === 'text') {
      parts.push((n as unknown as { data: string }).data);
      return;
    }
    if (!isElement(n)) return;
    if (skip.has(n.name) || isHiddenByMarkup(n)) return;
    const block = BLOCK.has(n.name);
    if (block) parts.push('\n');
    for (const c of n.children) walk(c);
    if (block) parts.push('\n');
  };
  walk(node);
  return parts.join('');
}

export const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * collapse($(el).text()), once per element: several checks read the text of every link of the
 * page (contact, privacy, pricing, commerce and API links).
 */
export function collapsedText($: CheerioAPI, el: Element): string {
  const memo = perDocument($, textMemo);
  let text = memo.get(el);
  if (text === undefined) {
    text = collapse($(el).text());
    memo.set(el, text);
  }
  return text;
}
const textMemo = (_$: CheerioAPI) => new Map<Element, string>();

/** The body's rendered text (computed once per document). */
export const bodyText = ($: CheerioAPI): string => perDocument($, readBodyTexts).body;

const NOT_MAIN = new Set([...NOT_RENDERED, 'header', 'nav', 'footer', 'aside']);

/**
 * The page's main content: <main> / role=main / a single <article> when marked up, else the body
 * without its header, nav, footer and aside (so boilerplate does not count as content).
 */
export const mainText = ($: CheerioAPI): string => perDocument($, readMainText);
function readMainText($: CheerioAPI): string {
  const marked = markedMain($);
  return marked ? textOf(marked) : (perDocument($, readBodyTexts).unmarkedMain ?? '');
}
const markedMain = ($: CheerioAPI): Element | undefined =>
  $('main, [role="main"]').get(0) ?? ($('article').length === 1 ? $('article').get(0) : undefined);

/**
 * textOf(body) and, when no main content is marked up (most pages), textOf(body, NOT_MAIN) from
 * the same walk: the second skips what the first skips and header, nav, footer and aside too.
 */
function readBodyTexts($: CheerioAPI): { body: string; unmarkedMain: string | null } {
  const body = $('body').get(0);
  const all: string[] = [];
  const main: string[] | null = markedMain($) ? null : [];
  const walk = (n: AnyNode, inMain: boolean) => {
    if (n.type === 'text') {
      const data = (n as unknown as { data: string }).data;
      all.push(data);
      if (inMain) main?.push(data);
      return;
    }
    if (!isElement(n)) return;
    if (NOT_RENDERED.has(n.name) || isHiddenByMarkup(n)) return;
    const alsoMain = inMain && !NOT_MAIN.has(n.name);
    const block = BLOCK.has(n.name);
    if (block) {
      all.push('\n');
      if (alsoMain) main?.push('\n');
    }
    for (const c of n.children) walk(c, alsoMain);
    if (block) {
      all.push('\n');
      if (alsoMain) main?.push('\n');
    }
  };
  if (body) walk(body, true);
  return { body: all.join(''), unmarkedMain: main ? main.join('') : null };
}

/**
 * Words of a text: runs of letters or digits (apostrophes and inner hyphens kept), exactly what
 * /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*\/gu matches. Counted by a scan with a per-character
 * table instead: checks count the words of the same long texts many times, and the Unicode-class
 * regex would be the dearest single step of scoring a long page.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  scanWords(text, out);
  return out;
}

/**
 * wordCount(text), without building the list. The counts of the last few long texts are kept:
 * several checks count the same body or main text (word count, content without JS, headings).
 */
export function wordCount(text: string): number {
  if (text.length < MEMO_MIN_LENGTH) return scanWords(text, null);
  let n = counted.get(text);
  if (n === undefined) {
    n = scanWords(text, null);
    counted.set(text, n);
    if (counted.size > MAX_COUNTED) counted.delete(counted.keys().next().value as string);
  }
  return n;
}
const MEMO_MIN_LENGTH = 2_000; // shorter texts are counted faster than a long key is hashed and compared
const MAX_COUNTED = 8;
const counted = new Map<string, number>();

/** wordCount(text) >= n, reading only as far as the n-th word. */
export function hasWords(text: string, n: number): boolean {
  let found = 0;
  for (let i = 0; i < text.length && found < n; ) {
    const end = wordEnd(text, i);
    if (end === i) i++;
    else {
      found++;
      i = end;
    }
  }
  return found >= n;
}

/**
 * Calls `visit` with the start and end of each word of the text, as words(text) would slice it,
 * without slicing; returns the number of words.
 */
export function forEachWord(text: string, visit: (start: number, end: number) => void): number {
  let n = 0;
  for (let i = 0; i < text.length; ) {
    const end = wordEnd(text, i);
    if (end === i) i++;
    else {
      n++;
      visit(i, end);
      i = end;
    }
  }
  return n;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const bmpClass = new Uint8Array(0x10000); // 0 not yet looked up, 1 letter or digit, 2 neither

/** Length in UTF-16 units of the letter or digit at `i`, 0 when there is none. */
function wordCharAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) {
    let k = bmpClass[c]!;
    if (k === 0) {
      k = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2;
      bmpClass[c] = k;
    }
    return k === 1 ? 1 : 0;
  }
  const cp = s.codePointAt(i)!;
  return cp > 0xffff && LETTER_OR_DIGIT.test(String.fromCodePoint(cp)) ? 2 : 0;
}

/** 1 for the ASCII characters in [\p{L}\p{N}]: A-Z, a-z, 0-9. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) =>
  /[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0,
);

const isJoiner = (c: number) => c === 39 || c === 0x2019 || c === 45; // ' ’ -

function scanWords(s: string, out: string[] | null): number {
  let n = 0;
  for (let i = 0; i < s.length; ) {
    const end = wordEnd(s, i);
    if (end === i) {
      i++;
      continue;
    }
    n++;
    out?.push(s.slice(i, end));
    i = end;
  }
  return n;
}

/** Where the word starting at `i` ends; `i` itself when no word starts there. */
function wordEnd(s: string, i: number): number {
  let k = wordCharAt(s, i);
  if (k === 0) return i;
  i += k;
  for (;;) {
    while (i < s.length) {
      // ASCII letters and digits (most of most pages' text) straight from a fixed table.
      const c = s.charCodeAt(i);
      if (c < 128) {
        if (ASCII_WORD[c] === 0) break;
        i++;
      } else {
        k = wordCharAt(s, i);
        if (k === 0) break;
        i += k;
      }
    }
    if (i + 1 < s.length && isJoiner(s.charCodeAt(i))) {
      k = wordCharAt(s, i + 1);
      if (k > 0) {
        i += 1 + k;
        continue;
      }
    }
    return i;
  }
}

export interface Heading {
  level: number;
  text: string;
  el: Element;
}

/** h1-h6 and role=heading elements in document order (aria-level honoured, default 2). */
export const headings = ($: CheerioAPI): readonly Heading[] => perDocument($, readHeadings);
function readHeadings($: CheerioAPI): Heading[] {
  const out: Heading[] = [];
  $('h1, h2, h3, h4, h5, h6, [role="heading"]').each((_, el) => {
    if (isHiddenByMarkup(el)) return;
    const aria = Number.parseInt(el.attribs['aria-level'] ?? '', 10);
    const level = /^h[1-6]$/.test(el.name) ? Number(el.name[1]) : Number.isFinite(aria) ? aria : 2;
    out.push({ level, text: collapse(textOf(el)) || imageAltText($, el), el });
  });
  return out;
}

/** Alt text of images inside an element (a heading or link made of an image). */
function imageAltText($: CheerioAPI, el: Element): string {
  return collapse(
    $(el)
      .find('img[alt]')
      .map((_, img) => img.attribs.alt ?? '')
      .get()
      .join(' '),
  );
}

/** <html lang>, trimmed; null when the attribute is absent. */
export function htmlLang($: CheerioAPI): string | null {
  const v = $('html').attr('lang');
  return v === undefined ? null : v.trim();
}

/** Rough BCP 47 shape: a 2-3 letter language (the only ones registered) and optional subtags. */
export function isValidLangTag(tag: string): boolean {
  return /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(tag);
}

/** Absolute URL of an href against the page URL; null when it does not parse. */
export function resolveUrl(href: string, base: string): URL | null {
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

/** Links that lead somewhere: not empty, not a bare fragment placeholder, not javascript:. */
export function isRealHref(href: string | undefined): boolean {
  if (href === undefined) return false;
  const h = href.trim().toLowerCase();
  return h !== '' && h !== '#' && h !== '#!' && !h.startsWith('javascript:');
}

/** Inline CSS of the page: every <style> block plus every style attribute. */
export const inlineCss = ($: CheerioAPI): InlineCss => perDocument($, readInlineCss);
interface InlineCss {
  readonly blocks: readonly string[];
  readonly attributes: readonly { el: Element; css: string }[];
}
function readInlineCss($: CheerioAPI): InlineCss {
  const blocks = $('style')
    .map((_, el) => $(el).text())
    .get();
  const attributes: { el: Element; css: string }[] = [];
  $('[style]').each((_, el) => {
    attributes.push({ el, css: el.attribs.style ?? '' });
  });
  return { blocks, attributes };
}

/** Value of a <meta name|property=...> (first match, case-insensitive name), trimmed; null if absent. */
export function metaContent($: CheerioAPI, key: string): string | null {
  const k = key.toLowerCase();
  const el = $('meta')
    .filter((_, m) => (m.attribs.name ?? m.attribs.property ?? '').trim().toLowerCase() === k)
    .get(0);
  return el ? (el.attribs.content ?? '').trim() : null;
}

/** Plain-English list: a, b and c. */
export function listText(items: string[], max = 5): string {
  const shown = items.slice(0, max);
  const more = items.length > max ? ` and ${items.length - max} more` : '';
  if (shown.length <= 1) return (shown[0] ?? '') + more;
  if (more) return shown.join(', ') + more;
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The viewport meta tag: its content and directives (keys and values lower-cased); null if absent. */
export function viewportMeta($: CheerioAPI): { content: string; directives: Map<string, string> } | null {
  const content = $('meta[name="viewport" i]').attr('content');
  if (content === undefined) return null;
  const directives = new Map<string, string>();
  for (const part of content.split(/[,;]/)) {
    const [k, v] = part.split('=').map((s) => s.trim().toLowerCase());
    if (k) directives.set(k, v ?? '');
  }
  return { content, directives };
}

export interface Section {
  heading: string | null; // null for the text before the first heading
  level: number;
  words: number;
}

/** Main-content text split at each heading, with its word count (header, nav, footer left out). */
export const sections = ($: CheerioAPI): readonly Section[] => perDocument($, readSections);
function readSections($: CheerioAPI): Section[] {
  const out: Section[] = [{ heading: null, level: 0, words: 0 }];
  const root = $('main, [role="main"]').get(0) ?? $('body').get(0);
  const walk = (n: AnyNode) => {
    if (n.type === 'text') {
      const current = out[out.length - 1] as Section;
      current.words += wordCount((n as unknown as { data: string }).data);
      return;
    }
    if (!isElement(n) || NOT_MAIN.has(n.name) || isHiddenByMarkup(n)) return;
    if (/^h[1-6]$/.test(n.name)) {
      out.push({ heading: collapse(textOf(n)), level: Number(n.name[1]), words: 0 });
      return;
    }
    for (const c of n.children) walk(c);
  };
  if (root && isElement(root)) for (const c of root.children) walk(c);
  return out.filter((s, i) => i > 0 || s.words > 0);
}
