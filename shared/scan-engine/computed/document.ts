import * as cheerio from 'cheerio';
import { compile as compileSelector } from 'css-select';
import type { AnyNode, Element } from 'domhandler';

// Parsing HTML is the costliest step of a check run; parse each distinct HTML string once per
// process (a small LRU), not once per check. About a hundred checks read one page, so the document
// also remembers what they ask of it: the elements a selector finds from the root (`$('a[href]')`
// in a dozen checks walks the whole tree once, not a dozen times) and values derived from it
// (`perDocument`: body text, structured data, phone numbers ...). Checks only read the document
// and what it hands out, never change them.
const cache = new Map<string, cheerio.CheerioAPI>();
const MAX = 8;

export function loadDocument(html: string): cheerio.CheerioAPI {
  const hit = cache.get(html);
  if (hit) {
    cache.delete(html);
    cache.set(html, hit);
    return hit;
  }
  const $ = withRootQueryCache(cheerio.load(html));
  cache.set(html, $);
  if (cache.size > MAX) cache.delete(cache.keys().next().value as string);
  return $;
}

/**
 * `$` whose root-level selector queries (`$('meta')`, no context) are answered once per document;
 * everything else (`$(element)`, a context, HTML) goes straight to cheerio. The cached selections
 * are shared, which is safe because cheerio's traversals return new selections. A selector whose
 * every comma part names a tag or an attribute its elements must have (`a[href]`, `body q`,
 * `[role="main"]`, `.author`) is matched only against those elements (an index built in one walk
 * of the tree), not against the whole tree.
 */
function withRootQueryCache($: cheerio.CheerioAPI): cheerio.CheerioAPI {
  const found = new Map<string, unknown>();
  const call = $ as unknown as (...args: unknown[]) => unknown;
  let index: ElementIndex | undefined;
  const query = (...args: unknown[]) => {
    const selector = args[0];
    if (args.length !== 1 || typeof selector !== 'string' || selector.includes('<')) return call(...args);
    let hit = found.get(selector);
    if (hit === undefined) {
      let keys = keysOfSelector.get(selector);
      if (keys === undefined) {
        keys = subjectKeys(selector);
        if (keysOfSelector.size >= MAX_SELECTORS) keysOfSelector.clear(); // selectors built from page data
        keysOfSelector.set(selector, keys);
      }
      if (selector === '*') {
        index ??= elementIndex($.root().toArray());
        hit = $(index.all);
      } else if (keys && PLAIN_TAG.test(selector)) {
        // What css-select's type selector tests, without compiling it for each document.
        index ??= elementIndex($.root().toArray());
        hit = $(index.candidates(keys).filter((el) => el.name === selector));
      } else if (keys) {
        index ??= elementIndex($.root().toArray());
        hit = $(index.candidates(keys).filter(matcher(selector)));
      } else hit = call(selector);
      found.set(selector, hit);
    }
    return hit;
  };
  // Static methods ($.root(), $.html(), $.text() ...) and `fn` come from the loaded `$` itself.
  Object.setPrototypeOf(query, $);
  return query as unknown as cheerio.CheerioAPI;
}

// subjectKeys per selector, across documents: the checks ask each page the same hundred-odd selectors.
const keysOfSelector = new Map<string, string[] | null>();
const MAX_SELECTORS = 2000;

// The compiled test of a selector with keys, across documents: cheerio's filter(selector) parses
// and compiles it again for every document (~45 selectors a page). What cheerio-select does for a
// selector without pseudo-classes (keys never have one): css-select's test of each element, with
// cheerio's HTML options; the test reads nothing of the document it was first used on.
const matchers = new Map<string, (el: Element) => boolean>();
function matcher(selector: string): (el: Element) => boolean {
  let test = matchers.get(selector);
  if (!test) {
    if (matchers.size >= MAX_SELECTORS) matchers.clear();
    test = compileSelector<AnyNode, Element>(selector, { xmlMode: false });
    matchers.set(selector, test);
  }
  return test;
}

/** A selector that is one lower-case tag name (`a`, `meta`, `h1`). */
const PLAIN_TAG = /^[a-z][a-z0-9-]*$/;

interface ElementIndex {
  /** Every element, in document order: `$('*')`. */
  all: Element[];
  /** Elements with any of these keys (`tag:a`, `attr:role`), in document order. */
  candidates(keys: readonly string[]): Element[];
}

/** Every element of the document by tag name and by attribute name, in the order a query visits them. */
function elementIndex(roots: AnyNode[]): ElementIndex {
  // Two maps keyed by the lower-cased name itself (no `tag:${name}` string built and hashed per
  // element and attribute); each list keeps its elements' document positions beside them, so a
  // selector with several keys merges its lists in order without a position map of every element.
  const byTag = new Map<string, Positioned>();
  const byAttr = new Map<string, Positioned>();
  const add = (map: Map<string, Positioned>, key: string, el: Element, at: number) => {
    const list = map.get(key);
    if (list) {
      list.els.push(el);
      list.at.push(at);
    } else map.set(key, { els: [el], at: [at] });
  };
  const all: Element[] = [];
  // The same descent as domutils' findAll (what cheerio's find uses): into every node with children.
  const walk = (nodes: AnyNode[]) => {
    for (const n of nodes) {
      if (isTag(n)) {
        const at = all.length;
        all.push(n);
        add(byTag, n.name.toLowerCase(), n, at);
        for (const attr in n.attribs) add(byAttr, attr.toLowerCase(), n, at);
      }
      const children = childrenOf(n);
      if (children?.length) walk(children);
    }
  };
  for (const r of roots) walk(childrenOf(r) ?? []);
  const EMPTY: Positioned = { els: [], at: [] };
  const listOf = (key: string) =>
    (key.startsWith('tag:') ? byTag.get(key.slice(4)) : byAttr.get(key.slice(5))) ?? EMPTY;
  return {
    all,
    candidates(keys) {
      const lists = [...new Set(keys)].map(listOf);
      if (lists.length === 1) return lists[0]!.els;
      // Merge by document position, each element once.
      const out: Element[] = [];
      const next = lists.map(() => 0);
      for (;;) {
        let first = Number.POSITIVE_INFINITY;
        for (let i = 0; i < lists.length; i++) {
          const at = lists[i]!.at[next[i]!];
          if (at !== undefined && at < first) first = at;
        }
        if (first === Number.POSITIVE_INFINITY) return out;
        out.push(all[first]!);
        for (let i = 0; i < lists.length; i++) if (lists[i]!.at[next[i]!] === first) next[i]!++;
      }
    },
  };
}
interface Positioned {
  els: Element[];
  at: number[];
}

/**
 * What each comma part of a selector requires of the element it matches, as an index key: its tag
 * (`img`, `form textarea` -> tag:img, tag:textarea) or else an attribute (`[role="main"]` ->
 * attr:role, `.author` -> attr:class, `#top` -> attr:id). Null when some part can match any element
 * (`*`, `:not(a)`) or carries a pseudo-class (jQuery's positional ones mean something else in a
 * filter than in a search): such selectors walk the whole tree.
 */
export function subjectKeys(selector: string): string[] | null {
  const keys: string[] = [];
  let subject = ''; // the current part's text since its last combinator, brackets included
  let depth = 0; // inside [...] or (...)
  let quote = '';
  const endPart = () => {
    const key = keyOf(subject.trim());
    subject = '';
    if (key) keys.push(key);
    return key !== null;
  };
  for (const ch of selector) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (depth === 0) {
      if (ch === ':' || ch === '\\') return null;
      if (ch === ',') {
        if (!endPart()) return null;
        continue;
      }
      if (/[\s>+~]/.test(ch)) {
        if (subject.trim()) subject = ' '; // a combinator: what follows is the new subject
        continue;
      }
    }
    subject += ch;
  }
  if (quote || depth !== 0) return null;
  return endPart() ? keys : null;
}

function keyOf(compound: string): string | null {
  const tag = /^[a-z][a-z0-9-]*(?![\w|-])/i.exec(compound)?.[0];
  if (tag) return `tag:${tag.toLowerCase()}`;
  if (compound.startsWith('.')) return 'attr:class';
  if (compound.startsWith('#')) return 'attr:id';
  const attr = /^\[\s*([a-z_][\w.-]*)\s*(?:[~|^$*]?=|\])/i.exec(compound)?.[1];
  return attr ? `attr:${attr.toLowerCase()}` : null;
}

const isTag = (n: AnyNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';
const childrenOf = (n: AnyNode): AnyNode[] | undefined => (n as { children?: AnyNode[] }).children;

const derived = new WeakMap<cheerio.CheerioAPI, Map<unknown, unknown>>();

/**
 * `compute($)` once per parsed document, however many checks ask: the function itself is the key,
 * so pass a module-level function, not a fresh closure. The value is shared: treat it as read-only.
 */
export function perDocument<T>($: cheerio.CheerioAPI, compute: ($: cheerio.CheerioAPI) => T): T {
  let values = derived.get($);
  if (!values) {
    values = new Map();
    derived.set($, values);
  }
  if (values.has(compute)) return values.get(compute) as T;
  const value = compute($);
  values.set(compute, value);
  return value;
}
