import { defineCheck, fail, pass, warn } from '../../scan-engine/check.ts';
import { loadDocument } from '../../scan-engine/computed/document.ts';
import { advertisedKey } from '../indexnow.ts';

// IndexNow lets a site push changed URLs to Bing, Yandex, Seznam and Naver (and through Bing to
// the AI answers built on its index) instead of waiting for a recrawl. Its key file lives at
// /{key}.txt (or a keyLocation on the same host), which cannot be found without the key. So:
//   - a key we know (declared by the owner of a monitored site, or advertised in robots.txt or
//     the page: shared/geo-scoring/indexnow.ts) is verified: the key file must answer 2xx with
//     exactly the key. Verified passes; a key whose file is missing or wrong fails.
//   - no key known: the setup cannot be verified from outside. That is not a failure: the check
//     warns with neutral points (0.5) and says so; Bing/Yandex verification or sitemap <lastmod>
//     dates are reported, not scored below neutral.
export const NEUTRAL = 0.5;

export default defineCheck({
  meta: {
    id: 'geo-indexnow',
    title: 'IndexNow key verified',
    failureTitle: 'IndexNow key file does not verify',
    description:
      'IndexNow pushes new and changed URLs to Bing and Yandex within minutes, and Bing feeds several AI answer engines. Host your key at /{key}.txt and ping on every publish. A scanner cannot see the key unless you advertise it ("# IndexNow-Key: <key>" in robots.txt) or declare it on your monitored site (indexnow_key).',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['RobotsTxt', 'Sitemap', 'IndexNow'],
  },
  run({ Page, RobotsTxt, Sitemap, IndexNow }) {
    const $ = loadDocument(Page.html);
    if (IndexNow?.key) {
      const where =
        IndexNow.source === 'declared' ? 'declared for this site' : `advertised in ${IndexNow.source}`;
      const evidence = {
        key: IndexNow.key,
        source: IndexNow.source,
        keyFile: IndexNow.keyFileUrl,
        status: IndexNow.status,
      };
      if (IndexNow.matches) return pass(`IndexNow key ${where} verified at ${IndexNow.keyFileUrl}`, evidence);
      const why = IndexNow.error
        ? IndexNow.error
        : IndexNow.status === null
          ? 'it could not be fetched'
          : IndexNow.status >= 200 && IndexNow.status < 300
            ? 'its content is not the key'
            : `it answers HTTP ${IndexNow.status}`;
      return fail(`IndexNow key ${where}, but its key file ${IndexNow.keyFileUrl} does not verify: ${why}`, {
        ...evidence,
        fix: `Serve the key, and only the key, as text at ${IndexNow.keyFileUrl}`,
      });
    }
    // Artifacts stored before the IndexNow gatherer existed: an advertised key is all we know.
    if (!IndexNow) {
      const robotsOk =
        RobotsTxt && RobotsTxt.status !== null && RobotsTxt.status >= 200 && RobotsTxt.status < 300;
      const ad = advertisedKey(robotsOk ? RobotsTxt.body : null, $);
      if (ad)
        return pass(`IndexNow key advertised in ${ad.source} (key file not checked in this scan)`, {
          key: ad.key,
          keyFile: new URL(ad.location ?? `/${ad.key}.txt`, Page.finalUrl).href,
        });
    }
    const verified = ['msvalidate.01', 'yandex-verification'].filter(
      (n) => $(`meta[name="${n}" i]`).length > 0,
    );
    const lastmods = Sitemap?.lastmods.length ?? 0;
    const hints = [
      verified.length ? `the site is verified with ${verified.join(' and ')}` : null,
      lastmods ? 'the sitemap carries <lastmod> dates' : null,
    ].filter(Boolean);
    return warn(
      `IndexNow cannot be verified from outside: its key file is only findable with the key, and none is advertised or declared${hints.length ? ` (${hints.join('; ')})` : ''}`,
      NEUTRAL,
      {
        verified,
        lastmods,
        fix: 'Advertise the key ("# IndexNow-Key: <key>" in robots.txt) or declare it on your monitored site (indexnow_key) so it can be verified',
      },
    );
  },
});
