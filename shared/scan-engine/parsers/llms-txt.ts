import type { LlmsTxtDoc, LlmsTxtLink } from '../artifacts.ts';

// llms.txt (llmstxt.org): markdown in a fixed order: an H1 title (the only required part), an
// optional blockquote summary, optional details (any markdown except headings), then H2
// sections holding "file lists" of `- [name](url): notes`. A section named "Optional" holds
// links that may be skipped when context is short.

const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^[ \t]*[-*+][ \t]+(.*)$/;
// [title](url "optional title") then optionally ": notes" (a looser " - notes" is accepted with a warning).
const LINK_ITEM = /^\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)(.*)$/;

type Section = { name: string; links: LlmsTxtLink[] };

/** Where the line-by-line reading stands; `doc` collects errors, warnings and sections. */
interface ReadState {
  doc: LlmsTxtDoc;
  fence: string | null; // the opening fence while inside a code block
  sawContentBeforeH1: boolean;
  h1Count: number;
  extraH1Lines: number[];
  summaryLines: string[] | null; // collected while the blockquote right after the H1 lasts
  summaryDone: boolean;
  detailLines: string[];
  section: Section | null; // the H2 section being read
  sectionHasOtherContent: boolean;
}

export function parseLlmsTxt(text: string): LlmsTxtDoc {
  const doc: LlmsTxtDoc = {
    valid: false,
    title: null,
    summary: null,
    details: null,
    sections: [],
    hasOptional: false,
    errors: [],
    warnings: [],
  };
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') {
    doc.errors.push('The file is empty');
    return doc;
  }
  if (looksLikeHtml(body)) {
    doc.errors.push('The file is HTML, not markdown');
    return doc;
  }
  const st: ReadState = {
    doc,
    fence: null,
    sawContentBeforeH1: false,
    h1Count: 0,
    extraH1Lines: [],
    summaryLines: null,
    summaryDone: false,
    detailLines: [],
    section: null,
    sectionHasOtherContent: false,
  };
  const lines = body.split(/\r\n|\r|\n/);
  for (const [i, line] of lines.entries()) readLine(st, line, i + 1);
  closeSection(st);
  if (st.fence) doc.warnings.push('A code block is never closed');
  return finish(st);
}

/** Each line goes to the first reader that takes it, in the format's order of precedence. */
function readLine(st: ReadState, line: string, lineNo: number): void {
  if (readFenceLine(st, line)) return;
  const heading = HEADING.exec(line);
  if (heading && readHeading(st, heading, lineNo)) return;
  if (st.h1Count === 0 && st.doc.sections.length === 0) readBeforeTitle(st, line, lineNo);
  else if (st.section) readSectionLine(st, st.section, line, lineNo);
  else readIntroLine(st, line);
}

/** Code blocks may hold anything, including lines that look like headings. */
function readFenceLine(st: ReadState, line: string): boolean {
  const fenceMatch = FENCE.exec(line);
  if (st.fence) {
    if (fenceMatch && (fenceMatch[1] ?? '').startsWith(st.fence)) st.fence = null;
    if (st.h1Count === 0) st.sawContentBeforeH1 = true;
    else if (!st.section) st.detailLines.push(line);
    return true;
  }
  if (!fenceMatch) return false;
  st.fence = (fenceMatch[1] ?? '').slice(0, 3);
  if (st.h1Count === 0) st.sawContentBeforeH1 = true;
  else if (st.section) st.sectionHasOtherContent = true;
  else {
    st.summaryDone = true;
    st.detailLines.push(line);
  }
  return true;
}

/** H1 (the title) and H2 (a section) are taken; deeper headings are warned about and read on. */
function readHeading(st: ReadState, heading: RegExpExecArray, lineNo: number): boolean {
  const { doc } = st;
  const level = (heading[1] ?? '').length;
  const name = (heading[2] ?? '').replace(/[ \t]+#+$/, '').trim();
  if (level === 1) {
    st.h1Count++;
    if (st.h1Count > 1) {
      st.extraH1Lines.push(lineNo);
      return true;
    }
    if (st.sawContentBeforeH1) doc.errors.push('The H1 title is not the first thing in the file');
    if (doc.sections.length > 0) doc.errors.push('An H2 section comes before the H1 title');
    if (name === '') doc.errors.push('The H1 title is empty');
    doc.title = name || null;
    st.summaryLines = [];
    return true;
  }
  if (level === 2) {
    closeSection(st);
    st.section = { name, links: [] };
    st.sectionHasOtherContent = false;
    doc.sections.push(st.section);
    st.summaryDone = true;
    if (name.toLowerCase() === 'optional') doc.hasOptional = true;
    return true;
  }
  // H3 and deeper: the format reserves headings for the title and the sections.
  if (st.h1Count > 0 && !st.section) doc.warnings.push(`Heading on line ${lineNo} inside the details`);
  return false;
}

function readBeforeTitle(st: ReadState, line: string, lineNo: number): void {
  // Generators often stamp an HTML comment above the title; it is invisible as markdown.
  if (/^\s*<!--.*-->\s*$/.test(line)) st.doc.warnings.push(`Comment before the H1 title (line ${lineNo})`);
  else if (line.trim() !== '') st.sawContentBeforeH1 = true;
}

function readSectionLine(st: ReadState, section: Section, line: string, lineNo: number): void {
  const item = LIST_ITEM.exec(line);
  if (item) readListItem(item[1] ?? '', lineNo, section, st.doc);
  else if (line.trim() !== '') st.sectionHasOtherContent = true;
}

/** Between the H1 and the first H2: the blockquote summary, then free-form details. */
function readIntroLine(st: ReadState, line: string): void {
  if (!st.summaryDone && st.summaryLines !== null && /^\s*>/.test(line)) {
    st.summaryLines.push(line.replace(/^\s*>\s?/, ''));
    return;
  }
  if (line.trim() === '') {
    if (st.summaryLines && st.summaryLines.length > 0) st.summaryDone = true;
    if (st.detailLines.length > 0) st.detailLines.push(line);
    return;
  }
  st.summaryDone = true;
  st.detailLines.push(line);
}

function closeSection(st: ReadState): void {
  const { section } = st;
  if (section && section.links.length === 0 && !st.sectionHasOtherContent) {
    st.doc.warnings.push(`Section "${section.name}" is empty`);
  }
}

/** Whole-file checks, the summary and details as text, and the verdict. */
function finish(st: ReadState): LlmsTxtDoc {
  const { doc } = st;
  if (st.h1Count === 0) doc.errors.push('No H1 title: the file must start with "# Name"');
  if (st.extraH1Lines.length > 0) {
    doc.errors.push(
      `More than one H1: ${st.extraH1Lines.length} more after the title (first on line ${st.extraH1Lines[0]})`,
    );
  }
  const summary = st.summaryLines?.join('\n').trim() ?? '';
  doc.summary = summary || null;
  const details = st.detailLines.join('\n').trim();
  doc.details = details || null;
  if (doc.title && !doc.summary) doc.warnings.push('No blockquote summary after the title');
  if (doc.sections.every((s) => s.links.length === 0) && doc.title) doc.warnings.push('No links to any file');
  doc.valid = doc.errors.length === 0;
  doc.errors = capped(doc.errors);
  doc.warnings = capped(doc.warnings);
  return doc;
}

// A huge file of broken lines must not produce a huge artifact.
const MAX_MESSAGES = 25;
const capped = (list: string[]) =>
  list.length <= MAX_MESSAGES
    ? list
    : [...list.slice(0, MAX_MESSAGES), `... and ${list.length - MAX_MESSAGES} more`];

function readListItem(content: string, lineNo: number, section: Section, doc: LlmsTxtDoc) {
  const text = content.trim();
  const m = LINK_ITEM.exec(text);
  if (m) {
    const title = (m[1] ?? '').trim();
    const url = m[2] ?? '';
    const rest = (m[3] ?? '').trim();
    if (title === '' || url === '') {
      doc.errors.push(
        `Line ${lineNo}: link in "${section.name}" has an empty ${title === '' ? 'title' : 'URL'}`,
      );
      return;
    }
    let note: string | null = null;
    if (rest.startsWith(':')) {
      note = rest.slice(1).trim() || null;
    } else if (rest !== '') {
      // "- [name](url) - notes" is common in the wild; the format asks for a colon.
      note = rest.replace(/^[-–—]\s*/, '').trim() || null;
      doc.warnings.push(`Line ${lineNo}: notes after a link should follow a colon`);
    }
    section.links.push({ title, url, note });
    return;
  }
  // An item that opens like a link but is not one is a broken file-list entry.
  if (text.startsWith('[')) {
    doc.errors.push(`Line ${lineNo}: malformed link in "${section.name}": ${text.slice(0, 80)}`);
    return;
  }
  doc.warnings.push(`Line ${lineNo}: list item in "${section.name}" does not start with a link`);
}

function looksLikeHtml(body: string): boolean {
  const head = body.trimStart().slice(0, 512).toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body)[\s>]/.test(head);
}
