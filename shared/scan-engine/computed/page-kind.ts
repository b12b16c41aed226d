import type { ArtifactSet } from '../artifacts.ts';
import { isGatherError } from '../artifacts.ts';

// What kind of document a scan landed on, decided once per scan before any dimension is scored.
// Lighthouse refuses to score a page whose main document answered an error status
// (ERRORED_DOCUMENT_REQUEST); we do the same: an error page or a server-generated directory
// listing is not content, so the dimensions computed from the page's content are not computed
// from it (see ModelDimension.pageIndependent and docs/scoring.md "Error pages").

export type PageKind = 'content' | 'error_status' | 'directory_listing';

export interface PageVerdict {
  kind: PageKind;
  /** Status of the final response (after redirects); null when the page was not fetched. */
  httpStatus: number | null;
  /** Which server's listing it looks like, when kind is directory_listing. */
  listing?: string;
}

/** Titles and headings that the common servers' auto-index pages use, and who writes them. */
const LISTING_HEADINGS: { re: RegExp; server: string }[] = [
  // Apache mod_autoindex, nginx autoindex, lighttpd mod_dirlisting, node http-server, Caddy v1
  { re: /^index of\s+\//i, server: 'Apache, nginx or lighttpd autoindex' },
  // Python's http.server / SimpleHTTPServer
  { re: /^directory listing for\s+\//i, server: "Python's http.server" },
  // Apache Tomcat's DefaultServlet ("Directory Listing For [/docs]")
  { re: /^directory listing for\s+\[/i, server: 'Tomcat' },
  // Eclipse Jetty ("Directory: /files/")
  { re: /^directory:\s+\//i, server: 'Jetty' },
  // Vercel's serve ("Files within /")
  { re: /^files within\s+\//i, server: 'serve' },
];

function textOf(html: string, tag: 'title' | 'h1'): string | null {
  const m = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(html);
  return m
    ? m[1]!
        .replace(/<[^>]*>/g, '')
        .replace(/\s+/g, ' ')
        .trim()
    : null;
}

/** The server that generated this directory listing, or null when it is not one. */
export function directoryListingServer(html: string): string | null {
  const head = html.slice(0, 20_000);
  for (const text of [textOf(head, 'title'), textOf(head, 'h1')]) {
    if (!text) continue;
    for (const { re, server } of LISTING_HEADINGS) if (re.test(text)) return server;
  }
  // IIS directory browsing: "[To Parent Directory]" is the text of a link atop a <pre> listing
  // (the words alone, say in a page that explains listings, are not one).
  if (/<a\b[^>]*>\s*\[To Parent Directory\]\s*<\/a>/i.test(head)) return 'IIS directory browsing';
  return null;
}

export function pageVerdict(artifacts: ArtifactSet): PageVerdict {
  const page = artifacts.Page;
  if (!page || isGatherError(page)) return { kind: 'content', httpStatus: null };
  if (page.status >= 400) return { kind: 'error_status', httpStatus: page.status };
  const server = page.status < 300 ? directoryListingServer(page.html) : null;
  if (server) return { kind: 'directory_listing', httpStatus: page.status, listing: server };
  return { kind: 'content', httpStatus: page.status };
}

/** Why content dimensions were not computed, in one sentence (null for a content page). */
export function notComputedReason(v: PageVerdict): string | null {
  if (v.kind === 'error_status')
    return `not computed: the page answered HTTP ${v.httpStatus}, so its body is an error page, not content`;
  if (v.kind === 'directory_listing')
    return `not computed: the URL serves an auto-generated directory listing (${v.listing}), not a page`;
  return null;
}
