import { defineCheck, graded, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { structuredData } from '../seo/lib/structured-data.ts';
import { bodyText, metaContent } from './lib/page.ts';

// Visitors and search engines both discount stale pages. The newest date the site states about
// this page, from the strongest evidence available: structured data and article meta tags, <time>
// elements, the Last-Modified header, the sitemap's lastmod, then the copyright year. Age counts
// from the response's Date header (so a stored scan rescores the same), else from now.
const DAY = 86_400_000;
const META_KEYS = [
  'article:modified_time',
  'og:updated_time',
  'article:published_time',
  'last-modified',
  'date',
  'dc.date',
  'dcterms.modified',
];
const LD_KEYS = ['dateModified', 'datePublished', 'uploadDate', 'dateCreated'];

interface Dated {
  source: string;
  time: number;
}

function parse(value: unknown): number | null {
  if (typeof value !== 'string' || !/\d{4}/.test(value)) return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

export default defineCheck({
  meta: {
    id: 'content-freshness',
    title: 'Content is recently updated',
    failureTitle: 'Content looks out of date',
    description:
      'Show when the page was last updated (dateModified in JSON-LD, a <time> element, Last-Modified) and revisit content at least yearly.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Sitemap'],
  },
  run({ Page, Sitemap }) {
    const $ = loadDocument(Page.html);
    const now = parse(Page.headers.date) ?? Date.now();
    const found: Dated[] = [];
    const add = (source: string, value: unknown) => {
      const time = parse(value);
      // A date in the future is a typo or an event date, not an update.
      if (time !== null && time <= now + 2 * DAY) found.push({ source, time });
    };
    for (const node of structuredData($).nodes) for (const k of LD_KEYS) add(`JSON-LD ${k}`, node[k]);
    for (const k of META_KEYS) add(`meta ${k}`, metaContent($, k));
    $('time').each((_, el) => add('<time> element', el.attribs.datetime ?? $(el).text()));
    add('Last-Modified header', Page.headers['last-modified']);
    for (const lastmod of Sitemap?.lastmods ?? []) add('sitemap lastmod', lastmod);
    if (found.length === 0) {
      // Weakest evidence, used only alone: a copyright year says the site was maintained at some
      // point during that year.
      const years = [...bodyText($).matchAll(/(?:©|\(c\)|copyright)\s*(?:\d{4}\s*[-–]\s*)?(\d{4})\b/gi)].map(
        (m) => Number(m[1]),
      );
      const latest = Math.max(...years);
      if (years.length && latest <= new Date(now).getUTCFullYear()) {
        add('copyright year', new Date(Math.min(Date.UTC(latest, 11, 31), now)).toISOString());
      }
    }
    if (found.length === 0) {
      return warn('No date signals found (no dateModified, <time>, Last-Modified or sitemap lastmod)', 0.5);
    }
    const newest = found.reduce((a, b) => (b.time > a.time ? b : a));
    const days = Math.max(0, Math.round((now - newest.time) / DAY));
    const iso = new Date(newest.time).toISOString();
    const date = newest.source === 'copyright year' ? iso.slice(0, 4) : iso.slice(0, 10);
    const evidence = { newest: date, source: newest.source, ageDays: days, signals: found.length };
    // Up to a year: current. Two years: ageing. Beyond: stale, down to 0.1 at five years.
    if (days <= 365) return graded(1, `Content is current: newest date ${date} (${newest.source})`, evidence);
    const score = days <= 730 ? 0.6 : Math.max(0.1, 0.45 - ((days - 730) / 365) * 0.12);
    const years = (days / 365).toFixed(1);
    return graded(
      score,
      `Content looks out of date: newest date is ${date}, ${years} years old (${newest.source})`,
      evidence,
    );
  },
});
