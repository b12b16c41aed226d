import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isAllowed } from '../../parsers/robots-txt.ts';

// After Lighthouse's is-crawlable: a noindex directive (meta robots / googlebot, or X-Robots-Tag)
// or a robots.txt rule blocking this URL keeps the page out of search results entirely.

const SEARCH_BOTS = ['robots', 'googlebot', 'bingbot'];

/** X-Robots-Tag directives apply to every crawler unless prefixed with "<agent>:". */
function headerNoindex(value: string | undefined): boolean {
  if (!value) return false;
  let agent: string | null = null;
  for (const raw of value.split(',')) {
    let part = raw.trim().toLowerCase();
    const m = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part);
    if (
      m &&
      !['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'].includes(m[1] ?? '')
    ) {
      agent = m[1] ?? null;
      part = m[2] ?? '';
    }
    const forSearch = agent === null || SEARCH_BOTS.includes(agent);
    if (forSearch && (part === 'noindex' || part === 'none')) return true;
  }
  return false;
}

export default defineCheck({
  meta: {
    id: 'seo-indexable',
    title: 'Page can be indexed by search engines',
    failureTitle: 'Page is blocked from search engines',
    description:
      'A noindex directive (meta robots tag or X-Robots-Tag header) or a robots.txt rule blocking the URL keeps the page out of search results. Remove it unless the page should stay private.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['RobotsTxt'],
  },
  run({ Page, RobotsTxt }) {
    const $ = loadDocument(Page.html);
    const metaNoindex = $('meta[name]')
      .filter((_, m) => SEARCH_BOTS.includes((m.attribs.name ?? '').toLowerCase()))
      .map((_, m) => (m.attribs.content ?? '').toLowerCase())
      .get()
      .find((c: string) => /\b(noindex|none)\b/.test(c));
    if (metaNoindex !== undefined) {
      return fail(`Page is blocked from search engines by <meta name="robots" content="${metaNoindex}">`);
    }
    if (headerNoindex(Page.headers['x-robots-tag'])) {
      return fail(
        `Page is blocked from search engines by the X-Robots-Tag header ("${Page.headers['x-robots-tag']}")`,
      );
    }
    if (RobotsTxt && RobotsTxt.status !== null && RobotsTxt.status >= 200 && RobotsTxt.status < 300) {
      if (!isAllowed(RobotsTxt.body, 'Googlebot', Page.finalUrl)) {
        return fail(
          `robots.txt blocks search engines from crawling this page (${new URL(Page.finalUrl).pathname})`,
        );
      }
    }
    return pass('Page can be indexed: no noindex directive and not blocked by robots.txt');
  },
});
