import { loadDocument } from '../computed/document.ts';

/**
 * Policies a page sets in its own markup: `<meta http-equiv="Content-Security-Policy">` (any
 * number, each enforced) and `<meta name="referrer">` (the last one wins). Attribute names and
 * values are matched case-insensitively, as browsers do.
 */
export function metaPolicies(html: string): { csp: string[]; referrer: string | null } {
  if (!html) return { csp: [], referrer: null };
  const $ = loadDocument(html);
  const csp: string[] = [];
  let referrer: string | null = null;
  $('meta').each((_, el) => {
    const m = $(el);
    const content = m.attr('content');
    if (!content) return;
    if (m.attr('http-equiv')?.trim().toLowerCase() === 'content-security-policy') csp.push(content);
    else if (m.attr('name')?.trim().toLowerCase() === 'referrer') referrer = content;
  });
  return { csp, referrer };
}
