import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';

// IndexNow lets a site push changed URLs to Bing, Yandex, Seznam and Naver (and through Bing to
// the AI answers built on its index) instead of waiting for a recrawl. Its key file lives at
// /{key}.txt, which cannot be found without knowing the key, so we look for the key being
// advertised where a scanner can read it:
//   - robots.txt: a line naming IndexNow with the key or the key file's URL
//     ("# IndexNow-Key: 5f2b...", "IndexNow: https://example.com/5f2b....txt");
//   - the page: <meta name="indexnow-key" content="..."> or <link rel="indexnow" href="/5f2b....txt">.
// Partial credit: Bing or Yandex webmaster verification (either console can submit URLs), or a
// sitemap with <lastmod> dates (recrawl hints at least). Keys are 8-128 of [A-Za-z0-9-].
const KEY = /^[A-Za-z0-9-]{8,128}$/;
const ROBOTS_LINE = /^[#\s]*index[-_ ]?now(?:[-_ ]?key)?\s*[:=]\s*(\S+)/im;
const KEY_FILE = /\/([A-Za-z0-9-]{8,128})\.txt$/;

function keyFrom(value: string | undefined | null): string | null {
  if (!value) return null;
  const v = value.trim();
  const file = KEY_FILE.exec(v);
  if (file) return file[1] ?? null;
  return KEY.test(v) ? v : null;
}

export default defineCheck({
  meta: {
    id: 'geo-indexnow',
    title: 'Site advertises an IndexNow key',
    failureTitle: 'No IndexNow key advertised',
    description:
      'IndexNow pushes new and changed URLs to Bing and Yandex within minutes, and Bing feeds several AI answer engines. Generate a key, host it at /{key}.txt, ping on every publish, and note the key in robots.txt ("# IndexNow-Key: <key>").',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['RobotsTxt', 'Sitemap'],
  },
  run({ Page, RobotsTxt, Sitemap }) {
    const $ = loadDocument(Page.html);
    const robotsOk =
      RobotsTxt && RobotsTxt.status !== null && RobotsTxt.status >= 200 && RobotsTxt.status < 300;
    const fromRobots = robotsOk ? keyFrom(ROBOTS_LINE.exec(RobotsTxt.body)?.[1]) : null;
    const fromPage =
      keyFrom($('meta[name="indexnow-key" i]').attr('content')) ??
      keyFrom($('link[rel~="indexnow" i]').attr('href'));
    const key = fromRobots ?? fromPage;
    if (key) {
      return pass(`IndexNow key advertised in ${fromRobots ? 'robots.txt' : 'the page'}`, {
        key,
        keyFile: new URL(`/${key}.txt`, Page.finalUrl).href,
      });
    }
    const verified = ['msvalidate.01', 'yandex-verification'].filter(
      (n) => $(`meta[name="${n}" i]`).length > 0,
    );
    const lastmods = Sitemap?.lastmods.length ?? 0;
    const fix =
      'Generate an IndexNow key, host it at /{key}.txt, add "# IndexNow-Key: <key>" to robots.txt and ping api.indexnow.org when pages change';
    if (verified.length > 0) {
      return warn(`No IndexNow key advertised; the site is verified with ${verified.join(' and ')}`, 0.5, {
        verified,
        fix,
      });
    }
    if (lastmods > 0)
      return warn('No IndexNow key advertised; the sitemap at least carries <lastmod> dates', 0.3, {
        lastmods,
        fix,
      });
    return fail('No IndexNow key advertised and no freshness signals', { fix });
  },
});
