import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import {
  closestElement,
  collapse,
  hasAncestorOrSelf,
  hasDescendant,
  hasWords,
  isElement,
  isHiddenByMarkup,
  resolveUrl,
  textOf,
  wordCount,
} from '../scan-engine/checks/content/lib/page.ts';
import { loadDocument, perDocument } from '../scan-engine/computed/document.ts';

// How an answer engine sees a page's main content: passages (paragraphs), sections (the text
// under each heading, which is how retrieval systems chunk a page), and the signals the GEO
// literature ties to being cited. Analyses the raw HTML: most AI crawlers do not run JavaScript.
// Computed once per HTML string and shared by the agent, GEO and citability checks.

export interface Passage {
  text: string;
  words: number;
}

export interface Section {
  heading: string | null; // null for text before the first heading
  level: number; // 0 before the first heading
  words: number;
  /** The first paragraph under the heading: the natural "answer" to it. */
  lead: Passage | null;
}

export interface ContentProfile {
  words: number;
  passages: Passage[];
  sections: Section[];
  headings: { level: number; text: string }[];
  lists: number;
  tables: number;
  tablesWithHeaders: number;
  /** <blockquote> and <q> anywhere in the body, asides and sidebars included (pull quotes live there). */
  blockquotes: number;
  inlineQuotes: number;
  /** Quotations that name their source: a cite attribute, or a <cite>/<footer>/<figcaption> with them. */
  attributedQuotes: number;
  /** Links in the main content to other sites: cited sources. */
  outboundLinks: number;
  /**
   * Words of prose: paragraphs of at least PROSE_MIN_WORDS words and sentence-like list items
   * (LIST_PROSE_MIN_WORDS). Card captions, prices, facts lists ("3 beds") and form labels are not
   * prose; the statistics and the "enough content" tests rest on this, not on `words`.
   */
  proseWords: number;
  /** Sentences of prose. */
  sentences: number;
  /** Sentences of prose stating a figure or a date. */
  factSentences: number;
  /** Figures in prose: amounts, percentages, counts, years. */
  figures: number;
}

/** A paragraph shorter than this is a caption or a card blurb, not prose. */
export const PROSE_MIN_WORDS = 15;
/** A list item this long reads as a sentence ("Oversizing: compressors failed 3.1 years earlier"). */
export const LIST_PROSE_MIN_WORDS = 6;

const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'svg',
  'iframe',
  'nav',
  'aside',
  'form',
  // Form controls stand outside forms too (a search bar's <select> of bedroom counts is no data).
  'select',
  'option',
  'optgroup',
  'datalist',
  'button',
  'input',
  'textarea',
  'label',
  'output',
  'dialog',
]);

// Navigation and boilerplate marked by role or by the class/id names every CMS uses.
const BOILERPLATE_ROLES = new Set([
  'navigation',
  'search',
  'banner',
  'contentinfo',
  'menu',
  'menubar',
  'toolbar',
  'dialog',
  'alertdialog',
]);
const BOILERPLATE_NAMES =
  /(?:^|[\s_-])(?:breadcrumbs?|pagination|pager|cookie(?:s|-?banner|-?consent|-?notice)?|consent|navbar|nav|filters?|sort-?by|share|social-?links|newsletter|skip-?link|site-?footer|site-?header)(?:$|[\s_-])/i;

function isBoilerplate(el: Element): boolean {
  const role = el.attribs.role?.toLowerCase();
  if (role && BOILERPLATE_ROLES.has(role)) return true;
  return BOILERPLATE_NAMES.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`);
}
const SKIP_OUTSIDE_MAIN = new Set([...SKIP, 'header', 'footer']);

// Kept with the parsed document: one profile per page URL it is read from.
export function contentProfile(html: string, pageUrl: string): ContentProfile {
  const $ = loadDocument(html);
  const profiles = perDocument($, newProfiles);
  let profile = profiles.get(pageUrl);
  if (!profile) {
    profile = analyse($, pageUrl);
    profiles.set(pageUrl, profile);
  }
  return profile;
}
const newProfiles = (_$: CheerioAPI) => new Map<string, ContentProfile>();

/** <main> / role=main / a single <article>, else the body without header and footer. */
function mainRoot($: CheerioAPI): { root: AnyNode | undefined; skip: ReadonlySet<string> } {
  const marked =
    $('main, [role="main"]').get(0) ?? ($('article').length === 1 ? $('article').get(0) : undefined);
  return marked ? { root: marked, skip: SKIP } : { root: $('body').get(0), skip: SKIP_OUTSIDE_MAIN };
}

/** What the walk of the main content collects, in document order. */
interface ContentWalk {
  pageUrl: string;
  host: string; // the page's host: links elsewhere are outbound
  skip: ReadonlySet<string>;
  passages: Passage[];
  headings: { level: number; text: string }[];
  /** One entry per section (the first holds text before any heading): its text pieces. */
  sectionTexts: string[][];
  sections: Section[];
  counts: {
    lists: number;
    tables: number;
    tablesWithHeaders: number;
    outboundLinks: number;
  };
  prose: string[];
  proseWords: number; // the words of `prose`, counted as each item is (joined by spaces, they add up)
}

function analyse($: CheerioAPI, pageUrl: string): ContentProfile {
  const { root, skip } = mainRoot($);
  const w: ContentWalk = {
    pageUrl,
    host: resolveUrl(pageUrl, pageUrl)?.host ?? '',
    skip,
    passages: [],
    headings: [],
    sectionTexts: [[]],
    sections: [{ heading: null, level: 0, words: 0, lead: null }],
    counts: { lists: 0, tables: 0, tablesWithHeaders: 0, outboundLinks: 0 },
    prose: [],
    proseWords: 0,
  };
  if (root) for (const c of (root as Element).children ?? []) walk(w, c);

  w.sections.forEach((s, i) => {
    s.words = wordCount((w.sectionTexts[i] ?? []).join(''));
  });
  // Collapsing the whitespace first would not change the count: words never hold whitespace.
  const all = w.sectionTexts.flat().join('');
  const proseText = w.prose.join(' ');
  const sentenceList = sentences(proseText);
  return {
    words: wordCount(all),
    passages: w.passages,
    sections: w.sections.filter((s) => s.heading !== null || s.words > 0),
    headings: w.headings,
    ...w.counts,
    ...quoteCounts($),
    proseWords: w.proseWords,
    sentences: sentenceList.length,
    factSentences: sentenceList.filter(hasFact).length,
    figures: proseText.match(FIGURE)?.length ?? 0,
  };
}

const addText = (w: ContentWalk, t: string) => w.sectionTexts[w.sectionTexts.length - 1]?.push(t);

/** Visits a node of the main content; skipped, hidden and boilerplate elements are left out whole. */
function walk(w: ContentWalk, node: AnyNode): void {
  if (node.type === 'text') {
    addText(w, (node as unknown as { data: string }).data);
    return;
  }
  if (!isElement(node)) return;
  const el = node as Element;
  if (w.skip.has(el.name) || isHiddenByMarkup(el) || isBoilerplate(el)) return;
  const name = el.name;
  if (/^h[1-6]$/.test(name)) {
    readHeading(w, el);
    return;
  }
  if (name === 'p') {
    readParagraph(w, el);
    return;
  }
  if (name === 'ul' || name === 'ol' || name === 'dl') w.counts.lists++;
  if (name === 'li' && !hasDescendant(el, (d) => LIST_OR_PARAGRAPH.has(d.name))) readListItem(w, el);
  if (name === 'table') {
    w.counts.tables++;
    if (hasDescendant(el, (d) => d.name === 'th')) w.counts.tablesWithHeaders++;
  }
  if (name === 'a') countLink(w, el);
  addText(w, ' ');
  for (const c of el.children) walk(w, c);
  addText(w, ' ');
}

/** A non-empty heading opens a section; its text belongs to no section. */
function readHeading(w: ContentWalk, el: Element): void {
  const text = collapse(textOf(el));
  if (!text) return;
  w.headings.push({ level: Number(el.name[1]), text });
  w.sections.push({ heading: text, level: Number(el.name[1]), words: 0, lead: null });
  w.sectionTexts.push([]);
}

/** A paragraph is a passage (the section's lead if first), prose if long enough. */
function readParagraph(w: ContentWalk, el: Element): void {
  const text = collapse(textOf(el));
  const n = wordCount(text);
  if (n > 0) {
    const passage = { text, words: n };
    w.passages.push(passage);
    if (n >= PROSE_MIN_WORDS) {
      w.prose.push(text);
      w.proseWords += n;
    }
    const s = w.sections[w.sections.length - 1] as Section;
    if (!s.lead) s.lead = passage;
  }
  addText(w, ` ${text} `);
  forDescendants(el, (d) => {
    if (d.name === 'a' && d.attribs.href !== undefined) countLink(w, d);
  });
}

/** A leaf list item long enough to read as a sentence is prose (ended with a full stop). */
function readListItem(w: ContentWalk, el: Element): void {
  const text = collapse(textOf(el));
  const n = wordCount(text);
  if (n < LIST_PROSE_MIN_WORDS) return;
  w.prose.push(/[.!?]$/.test(text) ? text : `${text}.`);
  w.proseWords += n;
}

function countLink(w: ContentWalk, a: Element): void {
  const url = a.attribs.href ? resolveUrl(a.attribs.href, w.pageUrl) : null;
  if (url && /^https?:$/.test(url.protocol) && url.host !== w.host) w.counts.outboundLinks++;
}

/** Quotations anywhere in the body (outside script, template and noscript). */
function quoteCounts(
  $: CheerioAPI,
): Pick<ContentProfile, 'blockquotes' | 'inlineQuotes' | 'attributedQuotes'> {
  const quotes = $('body blockquote, body q')
    .toArray()
    .filter((q) => !hasAncestorOrSelf(q, (a) => NOT_QUOTED.has(a.name)));
  const attributedQuotes = quotes.filter(
    (q) =>
      Boolean(q.attribs.cite) ||
      hasDescendant(q, (d) => d.name === 'cite' || d.name === 'footer') ||
      hasCaptionedFigure(q),
  ).length;
  return {
    blockquotes: quotes.filter((q) => q.name === 'blockquote').length,
    inlineQuotes: quotes.filter((q) => q.name === 'q').length,
    attributedQuotes,
  };
}

// Quotes inside these are not content.
const NOT_QUOTED = new Set(['script', 'template', 'noscript']);
function hasCaptionedFigure(q: Element): boolean {
  const figure = closestElement(q, (a) => a.name === 'figure');
  return figure !== undefined && hasDescendant(figure, (d) => d.name === 'figcaption');
}

// A list item holding these is a container, not a sentence.
const LIST_OR_PARAGRAPH = new Set(['p', 'ul', 'ol', 'li']);
const isTag = (n: AnyNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';

/** Calls `visit` for each element under `el`, in document order (what `$(el).find` visits). */
function forDescendants(el: Element, visit: (d: Element) => void): void {
  for (const c of el.children) {
    if (isTag(c)) visit(c);
    const children = (c as { children?: AnyNode[] }).children;
    if (children?.length) forDescendants(c as Element, visit);
  }
}

/** Sentences of prose: split after . ! ? followed by a capital, digit or quote. */
export function sentences(text: string): readonly string[] {
  if (text.length < 2_000) return splitSentences(text);
  // The prose of a long page is split by the content profile and by two citability checks.
  let list = split.get(text);
  if (!list) {
    list = splitSentences(text);
    split.set(text, list);
    if (split.size > 8) split.delete(split.keys().next().value as string);
  }
  return list;
}
const split = new Map<string, readonly string[]>();

function splitSentences(text: string): readonly string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"“'‘(])/u)
    .map((s) => s.trim())
    .filter((s) => hasWords(s, 3));
}

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
// An amount, percentage, count or year: "42%", "£1,200", "3.5 million", "2024", "12".
const FIGURE = /[$£€¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:%|percent\b|per cent\b)|\b\d+(?:[.,]\d+)*\b/gi;
const DATE = new RegExp(`\\b${MONTH}\\s+\\d{1,2}\\b|\\b\\d{1,2}\\s+${MONTH}\\b|\\b(?:19|20)\\d{2}\\b`, 'i');

function hasFact(sentence: string): boolean {
  return /\d/.test(sentence) || DATE.test(sentence);
}

// Openings that lean on text elsewhere, so the passage cannot stand alone when quoted.
const DANGLING =
  /^(?:this|that|these|those|it|its|they|them|their|he|she|his|her|such|here|there|also|however|but|and|or|so|then|thus|therefore|moreover|furthermore|additionally|as (?:mentioned|noted|discussed|shown|described|seen)|see (?:above|below)|above|below|the (?:above|following|latter|former))\b/i;
// Openings that warm up instead of answering.
const PREAMBLE =
  /^(?:in this (?:article|post|guide|section|page)|welcome|have you ever|let'?s|let us|today|we'?ll|we will|i think|i believe|imagine|ever wondered|are you|do you|did you know|click|read on)\b/i;
const REFERS_AWAY =
  /\b(?:as (?:mentioned|noted|discussed) (?:above|earlier|before|below)|see (?:above|below)|click here|read more)\b/i;

/** Can be quoted on its own: opens with neither a back-reference nor a warm-up, points nowhere else. */
export function isSelfContained(p: Passage): boolean {
  return !DANGLING.test(p.text) && !REFERS_AWAY.test(p.text);
}

/** Opens with a direct declarative statement (not a question, not a warm-up, not a back-reference). */
export function startsDirect(p: Passage): boolean {
  const first = sentences(p.text)[0] ?? p.text;
  return (
    !first.trim().endsWith('?') && !PREAMBLE.test(p.text) && !DANGLING.test(p.text) && wordCount(first) <= 40
  );
}

/** Answer-ready: a self-contained 40-160 word passage that opens with a direct statement. */
export const ANSWER_PASSAGE_WORDS = { min: 40, max: 160 } as const;
export function isAnswerPassage(p: Passage): boolean {
  return (
    p.words >= ANSWER_PASSAGE_WORDS.min &&
    p.words <= ANSWER_PASSAGE_WORDS.max &&
    startsDirect(p) &&
    isSelfContained(p)
  );
}

const QUESTION_WORDS =
  /^(?:what|why|how|when|where|who|whom|which|whose|can|could|should|would|will|do|does|did|is|are|was|were|has|have)\b/i;
export function isQuestionHeading(text: string): boolean {
  return text.trim().endsWith('?') || QUESTION_WORDS.test(text.trim());
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
