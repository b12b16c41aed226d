import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { perDocument } from '../../../computed/document.ts';
import { accessibleName } from '../../accessibility/lib/names.ts';
import { isElement, isHiddenByMarkup, isRealHref } from '../../content/lib/page.ts';

// Calls to action: links and buttons that ask the visitor to do something, found by the verb on
// them or by button styling on a link.

const ACTION =
  /\b(sign[\s-]?up|get started|start (now|free|your|a|today)|try( it)?( for)? free|free trial|try now|buy|order|book|shop|subscribe|register|join|contact us|get (a |your )?(quote|demo|in touch|access|offer|started)|request|download|donate|apply|reserve|schedule|call (us|now)|add to (cart|basket|bag)|checkout|check out|enrol|enroll|claim|upgrade|get it)\b/i;
const BUTTON_STYLE = /(^|[\s_-])(btn|button|cta)([\s_-]|$)/i;
const CANDIDATES = 'a[href], button, input[type="submit" i], input[type="button" i], [role="button"]';

export interface Cta {
  text: string;
  /** Characters of visible text before it in the page: a proxy for how far down it sits. */
  offset: number;
  el: Element;
}

/**
 * Visible-text offset of every element, in document order (one walk of the body, once per
 * document: conversion-cta asks for the CTAs' and the headline's). Shared: read-only.
 */
const textOffsets = ($: CheerioAPI): ReadonlyMap<Element, number> => perDocument($, readTextOffsets);
function readTextOffsets($: CheerioAPI): Map<Element, number> {
  const offsets = new Map<Element, number>();
  let chars = 0;
  const walk = (n: AnyNode) => {
    if (n.type === 'text') {
      chars += collapsedLength((n as unknown as { data: string }).data);
      return;
    }
    if (!isElement(n) || ['script', 'style', 'noscript', 'template'].includes(n.name) || isHiddenByMarkup(n))
      return;
    offsets.set(n, chars);
    for (const c of n.children) walk(c);
  };
  const body = $('body').get(0);
  if (body) walk(body);
  return offsets;
}

/** s.replace(/\s+/g, ' ').trim().length, without building the string (one per text node). */
export function collapsedLength(s: string): number {
  let n = 0;
  let gap = false; // whitespace since the last counted character
  for (let i = 0; i < s.length; i++) {
    if (isSpace(s.charCodeAt(i))) gap = n > 0;
    else {
      if (gap) n++;
      gap = false;
      n++;
    }
  }
  return n;
}

/** What \s matches (and trim() removes): ECMAScript's WhiteSpace and LineTerminator. */
const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c > 127 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

export function findCtas($: CheerioAPI): Cta[] {
  const offsets = textOffsets($);
  const out: Cta[] = [];
  for (const el of $(CANDIDATES).toArray()) {
    const offset = offsets.get(el);
    if (offset === undefined) continue; // hidden
    if (el.name === 'a' && !isRealHref(el.attribs.href)) continue;
    const text = accessibleName($, el).name;
    if (!text || text.length > 60) continue;
    const styled = el.name === 'a' && BUTTON_STYLE.test(el.attribs.class ?? '');
    if (ACTION.test(text) || styled) out.push({ text, offset, el });
  }
  return out;
}

/** Offset of the first <h1> (the hero's headline), if any. */
export function headlineOffset($: CheerioAPI): number | null {
  const h1 = $('h1').get(0);
  return h1 ? (textOffsets($).get(h1) ?? null) : null;
}
