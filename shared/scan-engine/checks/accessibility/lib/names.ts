import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { perDocument } from '../../../computed/document.ts';
import { closestElement, collapse, isElement, isHiddenByMarkup } from '../../content/lib/page.ts';

// A reduced form of the W3C accessible-name computation (accname 1.2), enough to tell whether a
// control or link has a name at all: aria-labelledby, aria-label, native labels, subtree text
// (with image alt text), then title and placeholder.

const SKIP = new Set(['script', 'style', 'noscript', 'template']);

/** Name from content: visible text plus alt text of images and aria-labels of descendants. */
function nameFromContent(node: AnyNode): string {
  const parts: string[] = [];
  const walk = (n: AnyNode) => {
    if (n.type === 'text') {
      parts.push((n as unknown as { data: string }).data);
      return;
    }
    if (!isElement(n) || SKIP.has(n.name) || isHiddenByMarkup(n) || n.attribs['aria-hidden'] === 'true')
      return;
    const label = n.attribs['aria-label']?.trim();
    if (label) {
      parts.push(` ${label} `);
      return;
    }
    if (n.name === 'img' || (n.name === 'input' && n.attribs.type?.toLowerCase() === 'image')) {
      parts.push(` ${n.attribs.alt ?? ''} `);
      return;
    }
    if (n.name === 'svg') {
      const title = n.children.find((c) => isElement(c) && c.name === 'title');
      if (title) parts.push(` ${nameFromContent(title)} `);
      return;
    }
    for (const c of n.children) walk(c);
  };
  if (isElement(node)) for (const c of node.children) walk(c);
  else walk(node);
  return collapse(parts.join(''));
}

function labelledBy($: CheerioAPI, el: Element): string {
  const ids = (el.attribs['aria-labelledby'] ?? '').split(/\s+/).filter(Boolean);
  return collapse(
    ids
      .map((id) => {
        const target = $(`[id="${id.replace(/"/g, '\\"')}"]`).get(0);
        return target ? nameFromContent(target) : '';
      })
      .join(' '),
  );
}

const LABELABLE = new Set(['input', 'select', 'textarea', 'meter', 'progress', 'output']);

/** Text of the <label>s of a form control: label[for=id] and an enclosing label. */
export function nativeLabel($: CheerioAPI, el: Element): string {
  const texts: string[] = [];
  const id = el.attribs.id;
  if (id) {
    $('label')
      .filter((_, l) => l.attribs.for === id)
      .each((_, l) => {
        texts.push(nameFromContent(l));
      });
  }
  const wrapping = closestElement(el, (a) => a.name === 'label');
  if (wrapping) texts.push(nameFromContent(wrapping));
  return collapse(texts.join(' '));
}

export interface AccessibleName {
  name: string;
  source:
    | 'aria-labelledby'
    | 'aria-label'
    | 'label'
    | 'alt'
    | 'value'
    | 'content'
    | 'title'
    | 'placeholder'
    | 'none';
}

/**
 * Accessible name of an element and where it came from; once per element and document (the link,
 * button and CTA checks ask for the same links and buttons). Shared: read-only.
 */
export function accessibleName($: CheerioAPI, el: Element): Readonly<AccessibleName> {
  const names = perDocument($, newNames);
  let name = names.get(el);
  if (!name) {
    name = computeName($, el);
    names.set(el, name);
  }
  return name;
}
const newNames = (_$: CheerioAPI) => new Map<Element, Readonly<AccessibleName>>();

function computeName($: CheerioAPI, el: Element): AccessibleName {
  const by = labelledBy($, el);
  if (by) return { name: by, source: 'aria-labelledby' };
  const aria = collapse(el.attribs['aria-label'] ?? '');
  if (aria) return { name: aria, source: 'aria-label' };
  const type = (el.attribs.type ?? '').toLowerCase();
  if (el.name === 'input' && ['submit', 'reset', 'button'].includes(type)) {
    const value = collapse(el.attribs.value ?? '');
    if (value) return { name: value, source: 'value' };
    // Browsers give submit and reset buttons a default label; a plain button gets none.
    if (type === 'submit') return { name: 'Submit', source: 'value' };
    if (type === 'reset') return { name: 'Reset', source: 'value' };
  } else if (el.name === 'img' || el.name === 'area' || (el.name === 'input' && type === 'image')) {
    const alt = collapse(el.attribs.alt ?? '');
    if (alt) return { name: alt, source: 'alt' };
  } else if (LABELABLE.has(el.name)) {
    const label = nativeLabel($, el);
    if (label) return { name: label, source: 'label' };
  } else {
    const content = nameFromContent(el);
    if (content) return { name: content, source: 'content' };
  }
  const title = collapse(el.attribs.title ?? '');
  if (title) return { name: title, source: 'title' };
  const placeholder = collapse(el.attribs.placeholder ?? '');
  if (placeholder && (el.name === 'input' || el.name === 'textarea'))
    return { name: placeholder, source: 'placeholder' };
  return { name: '', source: 'none' };
}

/** Short description of an element for evidence, e.g. `<a href="news.html">`. */
export function describe(el: Element): string {
  const attrs = ['id', 'name', 'type', 'href', 'src', 'class']
    .filter((a) => el.attribs[a] !== undefined)
    .slice(0, 2)
    .map((a) => `${a}="${(el.attribs[a] ?? '').slice(0, 60)}"`);
  return `<${el.name}${attrs.length ? ' ' : ''}${attrs.join(' ')}>`;
}

/** ", e.g. <img src=...>" for a message, or nothing when the list is empty. */
export function example(els: Element[]): string {
  return els[0] ? `, e.g. ${describe(els[0])}` : '';
}
