import type { Check } from '../../check.ts';
import seoCanonical from './seo-canonical.ts';
import seoDirectoryListing from './seo-directory-listing.ts';
import seoH1 from './seo-h1.ts';
import seoHreflang from './seo-hreflang.ts';
import seoHtmlLang from './seo-html-lang.ts';
import seoHttpStatus from './seo-http-status.ts';
import seoIndexable from './seo-indexable.ts';
import seoLighthouse from './seo-lighthouse.ts';
import seoMetaDescription from './seo-meta-description.ts';
import seoOpenGraph from './seo-open-graph.ts';
import seoRobotsTxt from './seo-robots-txt.ts';
import seoSitemap from './seo-sitemap.ts';
import seoStructuredData from './seo-structured-data.ts';
import seoTitle from './seo-title.ts';

// Checks of this folder, registered here in a stable order.
export const seoChecks: Check[] = [
  seoHttpStatus,
  seoDirectoryListing,
  seoIndexable,
  seoTitle,
  seoMetaDescription,
  seoH1,
  seoHtmlLang,
  seoCanonical,
  seoRobotsTxt,
  seoSitemap,
  seoStructuredData,
  seoOpenGraph,
  seoHreflang,
  seoLighthouse,
];
