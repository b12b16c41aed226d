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

  const lines = body.split(/\r\n|\r|\n/);
  let fence: string | null = null; // the opening fence while inside a code block
  let sawContentBeforeH1 = false;
  let h1Count = 0;
  const extraH1Lines: number[] = [];
  let summaryLines: string[] | null = null; // collected while the blockquote right after the H1 lasts
  let summaryDone = false;
  const detailLines: string[] = [];
  let section: { name: string; links: LlmsTxtLink[] } | null = null;
  let sectionHasOtherContent = false;

  const closeSection = () => {
    if (section && section.links.length === 0 && !sectionHasOtherContent) {
      doc.warnings.push(`Section "${section.name}" is empty`);
    }
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const lineNo = i + 1;

    // Code blocks may hold anything, including lines that look like headings.
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && (fenceMatch[1] ?? '').startsWith(fence)) fence = null;
      if (h1Count === 0) sawContentBeforeH1 = true;
      else if (!section) detailLines.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = (fenceMatch[1] ?? '').slice(0, 3);
      if (h1Count === 0) sawContentBeforeH1 = true;
      else if (section) sectionHasOtherContent = true;
      else {
        summaryDone = true;
        detailLines.push(line);
      }
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? '').length;
      const name = (heading[2] ?? '').replace(/[ \t]+#+$/, '').trim();
      if (level === 1) {
        h1Count++;
        if (h1Count > 1) {
          extraH1Lines.push(lineNo);
          continue;
        }
        if (sawContentBeforeH1) doc.errors.push('The H1 title is not the first thing in the file');
        if (doc.sections.length > 0) doc.errors.push('An H2 section comes before the H1 title');
        if (name === '') doc.errors.push('The H1 title is empty');
        doc.title = name || null;
        summaryLines = [];
        continue;
      }
      if (level === 2) {
        closeSection();
        section = { name, links: [] };
        sectionHasOtherContent = false;
        doc.sections.push(section);
        summaryDone = true;
        if (name.toLowerCase() === 'optional') doc.hasOptional = true;
        continue;
      }
      // H3 and deeper: the format reserves headings for the title and the sections.
      if (h1Count > 0 && !section) doc.warnings.push(`Heading on line ${lineNo} inside the details`);
    }

    if (h1Count === 0 && doc.sections.length === 0) {
      // Generators often stamp an HTML comment above the title; it is invisible as markdown.
      if (/^\s*<!--.*-->\s*$/.test(line)) doc.warnings.push(`Comment before the H1 title (line ${lineNo})`);
      else if (line.trim() !== '') sawContentBeforeH1 = true;
      continue;
    }

    if (section) {
      const item = LIST_ITEM.exec(line);
      if (item) {
        readListItem(item[1] ?? '', lineNo, section, doc);
      } else if (line.trim() !== '') {
        sectionHasOtherContent = true;
      }
      continue;
    }

    // Between the H1 and the first H2: the blockquote summary, then free-form details.
    if (!summaryDone && summaryLines !== null && /^\s*>/.test(line)) {
      summaryLines.push(line.replace(/^\s*>\s?/, ''));
      continue;
    }
    if (line.trim() === '') {
      if (summaryLines && summaryLines.length > 0) summaryDone = true;
      if (detailLines.length > 0) detailLines.push(line);
      continue;
    }
    summaryDone = true;
    detailLines.push(line);
  }
  closeSection();
  if (fence) doc.warnings.push('A code block is never closed');

  if (h1Count === 0) doc.errors.push('No H1 title: the file must start with "# Name"');
  if (extraH1Lines.length > 0) {
    doc.errors.push(
      `More than one H1: ${extraH1Lines.length} more after the title (first on line ${extraH1Lines[0]})`,
    );
  }
  const summary = summaryLines?.join('\n').trim() ?? '';
  doc.summary = summary || null;
  const details = detailLines.join('\n').trim();
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

function readListItem(
  content: string,
  lineNo: number,
  section: { name: string; links: LlmsTxtLink[] },
  doc: LlmsTxtDoc,
) {
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
