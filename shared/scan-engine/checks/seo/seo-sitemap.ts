import { defineCheck, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'seo-sitemap',
    title: 'Site has an XML sitemap',
    failureTitle: 'No XML sitemap found',
    description:
      'A sitemap lists the URLs you want crawled, which helps search engines find new and deep pages. Publish /sitemap.xml and reference it from robots.txt.',
    requiredArtifacts: ['Sitemap'],
  },
  run({ Sitemap }) {
    const evidence = {
      sources: Sitemap.sources,
      urlCount: Sitemap.urlCount,
      errors: Sitemap.errors.slice(0, 5),
    };
    if (!Sitemap.found)
      return warn('No XML sitemap found (checked robots.txt and /sitemap.xml)', 0.4, evidence);
    if (Sitemap.urlCount === 0) {
      return warn(
        `Sitemap lists no URLs${Sitemap.errors[0] ? ` (${Sitemap.errors[0]})` : ''}`,
        0.4,
        evidence,
      );
    }
    if (Sitemap.errors.length > 0) return warn(`Sitemap has errors: ${Sitemap.errors[0]}`, 0.7, evidence);
    return pass(`XML sitemap lists ${Sitemap.urlCount} URL${Sitemap.urlCount === 1 ? '' : 's'}`, evidence);
  },
});
