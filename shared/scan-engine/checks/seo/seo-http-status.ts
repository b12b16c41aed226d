import { defineCheck, fail, pass, warn } from '../../check.ts';

// Search engines index only pages that answer 2xx; every extra redirect hop costs crawl budget
// and a round trip (Google follows up to 10 but recommends at most a few).

export default defineCheck({
  meta: {
    id: 'seo-http-status',
    title: 'Page answers with a successful HTTP status',
    failureTitle: 'Page answers with an HTTP error',
    description:
      'Pages answering 4xx or 5xx are dropped from search results. Serve the page with 200 and keep redirect chains to a single hop.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const hops = Page.redirectChain.length;
    const evidence = { status: Page.status, redirects: hops };
    if (Page.status >= 400)
      return fail(`Page answers HTTP ${Page.status}; search engines do not index error pages`, evidence);
    if (Page.status < 200 || Page.status >= 300)
      return fail(`Page answers HTTP ${Page.status} instead of content`, evidence);
    if (hops > 2)
      return warn(`Page is reached through ${hops} redirects; link to the final URL`, 0.6, evidence);
    return pass(
      `Page answers HTTP ${Page.status}${hops ? ` after ${hops} redirect${hops > 1 ? 's' : ''}` : ''}`,
      evidence,
    );
  },
});
