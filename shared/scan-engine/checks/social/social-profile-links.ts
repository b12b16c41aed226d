import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';
import { structuredData } from '../seo/lib/structured-data.ts';

// Links from the site to its own social profiles (and schema.org sameAs) tie the accounts to the
// business for visitors and for search engines' knowledge panels. Share buttons are not profiles.
const NETWORKS: [string, RegExp][] = [
  ['Facebook', /^(?:[\w-]+\.)?facebook\.com$/],
  ['X', /^(?:www\.)?(?:x|twitter)\.com$/],
  ['LinkedIn', /^(?:[\w-]+\.)?linkedin\.com$/],
  ['Instagram', /^(?:www\.)?instagram\.com$/],
  ['YouTube', /^(?:www\.|m\.)?youtube\.com$/],
  ['TikTok', /^(?:www\.)?tiktok\.com$/],
  ['Pinterest', /^(?:[\w-]+\.)?pinterest\.[a-z.]+$/],
  ['Threads', /^(?:www\.)?threads\.(?:net|com)$/],
  ['Bluesky', /^bsky\.app$/],
  ['Mastodon', /^(?:mastodon\.social|mstdn\.social|fosstodon\.org)$/],
];
const SHARE_PATH = /\/(?:sharer|share|intent|shareArticle|pin\/create)\b/i;

// An http(s) URL starts with "h" once the URL parser has dropped leading controls and spaces; the
// page's relative links (hundreds on a docs page) are answered without a URL parse that throws.
function maybeHttp(href: string): boolean {
  let i = 0;
  while (i < href.length && href.charCodeAt(i) <= 0x20) i++;
  return href[i] === 'h' || href[i] === 'H';
}

function network(href: string): string | null {
  const trimmed = href.trim();
  if (!maybeHttp(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (
    !/^https?:$/.test(url.protocol) ||
    SHARE_PATH.test(url.pathname) ||
    url.pathname.replace(/\/+$/, '') === ''
  )
    return null;
  const host = url.hostname.toLowerCase();
  return NETWORKS.find(([, re]) => re.test(host))?.[0] ?? null;
}

export default defineCheck({
  meta: {
    id: 'social-profile-links',
    title: 'Site links to its social profiles',
    failureTitle: 'No links to social profiles',
    description:
      'Link to your business profiles (e.g. LinkedIn, Instagram, Facebook) from the page, and list them in your Organization structured data as sameAs.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const linked = $('a[href]')
      .map((_, a) => network(a.attribs.href ?? ''))
      .get()
      .filter((n: string | null): n is string => n !== null);
    const sameAs = structuredData($)
      .nodes.flatMap((n) => (Array.isArray(n.sameAs) ? n.sameAs : [n.sameAs]))
      .filter((v): v is string => typeof v === 'string')
      .map(network)
      .filter((n): n is string => n !== null);
    const found = [...new Set([...linked, ...sameAs])];
    const evidence = { linked: [...new Set(linked)], sameAs: [...new Set(sameAs)] };
    if (found.length === 0) return fail('No links to the business’s social profiles', evidence);
    return pass(`Links to social profiles: ${listText(found)}`, evidence);
  },
});
