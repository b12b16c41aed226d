import { SIGHTLINE_USER_AGENT } from '../../../net/user-agent.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';
import { isAllowed, parseRobotsTxt } from '../../parsers/robots-txt.ts';

// Google treats a missing robots.txt (4xx) as "crawl everything" and a 5xx one as "crawl nothing"
// until it recovers, so a server error is worse than no file at all.

const CRAWLERS = [
  { name: 'SightlineBot', userAgent: SIGHTLINE_USER_AGENT },
  { name: 'Googlebot', userAgent: 'Googlebot' },
];
// Directives some search engines honour that RFC 9309 does not define: not mistakes.
const KNOWN_EXTENSIONS = /^\s*(host|clean-param|request-rate|visit-time|noindex|crawl-delay)\s*:/i;

export default defineCheck({
  meta: {
    id: 'seo-robots-txt',
    title: 'robots.txt is valid and lets crawlers in',
    failureTitle: 'robots.txt blocks crawlers',
    description:
      'robots.txt tells crawlers what they may fetch. Serve a valid file at /robots.txt that does not disallow the whole site, and list your sitemap in it.',
    requiredArtifacts: ['RobotsTxt'],
  },
  run({ RobotsTxt }) {
    const { status, body } = RobotsTxt;
    if (status === null)
      return fail(`robots.txt could not be fetched${RobotsTxt.error ? `: ${RobotsTxt.error}` : ''}`);
    if (status >= 500)
      return fail(`robots.txt answers HTTP ${status}; search engines stop crawling while it fails`);
    if (status >= 400)
      return warn('No robots.txt file (crawlers assume everything may be crawled)', 0.8, { status });
    if (status >= 300) return warn(`robots.txt answers HTTP ${status} instead of the file`, 0.7, { status });
    const robots = parseRobotsTxt(body);
    const root = new URL('/', RobotsTxt.url).href;
    const blocked = CRAWLERS.filter((c) => !isAllowed(robots, c.userAgent, root)).map((c) => c.name);
    const invalid = robots.ignoredLines.map((l) => l.text.trim()).filter((t) => !KNOWN_EXTENSIONS.test(t));
    const evidence = { sitemaps: robots.sitemaps, invalidLines: invalid.slice(0, 5), blocked };
    if (blocked.length > 0)
      return fail(`robots.txt disallows the whole site for ${blocked.join(' and ')}`, evidence);
    if (invalid.length > 0) {
      return warn(
        `robots.txt has ${invalid.length} unrecognised line(s), e.g. "${invalid[0]}"`,
        0.7,
        evidence,
      );
    }
    return pass('robots.txt is valid and allows crawling', evidence);
  },
});
