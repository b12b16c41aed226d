import type { LlmsTxtArtifact, LlmsTxtDoc } from '../scan-engine/artifacts.ts';

/** The parsed llms.txt when the site really serves one (2xx, non-empty, markdown not HTML). */
export function servedLlmsTxt(a: LlmsTxtArtifact): LlmsTxtDoc | null {
  if (a.status === null || a.status < 200 || a.status >= 300 || a.body.trim() === '' || !a.parsed)
    return null;
  return a.parsed.errors.some((e) => /html/i.test(e)) && !a.parsed.title ? null : a.parsed;
}

/** Why there is no usable llms.txt, for messages. */
export function absenceReason(a: LlmsTxtArtifact): string {
  if (a.status === null) return `/llms.txt could not be fetched${a.error ? ` (${a.error})` : ''}`;
  if (a.status < 200 || a.status >= 300) return `No /llms.txt (answers ${a.status})`;
  if (a.body.trim() === '') return '/llms.txt is empty';
  return '/llms.txt answers with an HTML page, not markdown';
}

export const allLinks = (doc: LlmsTxtDoc) => doc.sections.flatMap((s) => s.links);
