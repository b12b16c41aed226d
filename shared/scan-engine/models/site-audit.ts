import { SECURITY_DIMENSION } from '../checks/security/index.ts';
import { LETTER_GRADES, type ModelDimension, type ScoringModel } from '../model.ts';

// Variant A's scan: seven dimensions, each a weighted mean of its checks (security uses the
// Observatory's modifier scoring, defined beside its checks). Checks that need Rendered or
// Lighthouse are not applicable in quick mode and drop out of the mean, so every dimension is
// scored in both modes; in full mode the browser's measurements carry about half the weight.

const seo: ModelDimension = {
  id: 'seo',
  name: 'SEO',
  // Crawlability first (Lighthouse gives is-crawlable ~31% of its SEO category): a page that
  // answers an error or says noindex cannot rank, whatever its tags.
  weight: 20,
  // Scored on an error page too: it is where "the page answers HTTP 404" is said (capped at 20).
  pageIndependent: true,
  checks: [
    { id: 'seo-http-status', weight: 10, gate: { cap: 20 } },
    { id: 'seo-directory-listing', weight: 5, gate: { cap: 40 } },
    { id: 'seo-indexable', weight: 10, gate: { cap: 40 } },
    { id: 'seo-title', weight: 8 },
    { id: 'seo-meta-description', weight: 6 },
    { id: 'seo-robots-txt', weight: 5 },
    { id: 'seo-h1', weight: 4 },
    { id: 'seo-html-lang', weight: 4 },
    { id: 'seo-canonical', weight: 4 },
    { id: 'seo-sitemap', weight: 4 },
    { id: 'seo-structured-data', weight: 4 },
    { id: 'seo-open-graph', weight: 3 },
    { id: 'seo-hreflang', weight: 2 },
    { id: 'seo-lighthouse', weight: 15 },
  ],
};

const speed: ModelDimension = {
  id: 'speed',
  name: 'Speed',
  weight: 20,
  checks: [
    // Quick mode: what plain HTTP can measure or estimate.
    { id: 'speed-ttfb', weight: 10 },
    { id: 'speed-page-weight', weight: 8 },
    { id: 'speed-compression', weight: 6 },
    { id: 'speed-render-blocking', weight: 6 },
    { id: 'speed-image-weight', weight: 6 },
    { id: 'speed-caching', weight: 5 },
    // Full mode: Lighthouse's lab metrics in Lighthouse 12's own proportions (10/25/30/25/10),
    // plus its category score as a cross-check.
    { id: 'speed-fcp', weight: 4 },
    { id: 'speed-lcp', weight: 10 },
    { id: 'speed-tbt', weight: 12 },
    { id: 'speed-cls', weight: 10 },
    { id: 'speed-speed-index', weight: 4 },
    { id: 'speed-lighthouse-performance', weight: 10 },
  ],
};

const accessibility: ModelDimension = {
  id: 'accessibility',
  name: 'Accessibility',
  weight: 15,
  // Weights follow Lighthouse's axe-derived ones for the matching rule (critical 10, serious 7,
  // moderate 3); heuristics that markup can only suspect weigh 3. In full mode the rendered axe
  // run and Lighthouse's category carry about half the dimension.
  checks: [
    { id: 'a11y-image-alt', weight: 10 },
    { id: 'a11y-button-names', weight: 10 },
    { id: 'a11y-viewport-zoom', weight: 10 },
    { id: 'a11y-form-labels', weight: 7 },
    { id: 'a11y-document-lang', weight: 7 },
    { id: 'a11y-document-title', weight: 7 },
    { id: 'a11y-link-names', weight: 7 },
    { id: 'a11y-tabindex', weight: 7 },
    { id: 'a11y-keyboard-focus', weight: 7 },
    { id: 'a11y-context-change', weight: 7 },
    { id: 'a11y-frame-titles', weight: 7 },
    { id: 'a11y-headings', weight: 3 },
    { id: 'a11y-duplicate-ids', weight: 3 },
    { id: 'a11y-tables', weight: 3 },
    { id: 'a11y-landmarks', weight: 3 },
    { id: 'a11y-link-underline', weight: 3 },
    { id: 'a11y-axe', weight: 60 },
    { id: 'a11y-lighthouse', weight: 30 },
  ],
};

const mobile: ModelDimension = {
  id: 'mobile',
  name: 'Mobile',
  weight: 10,
  checks: [
    // Without a viewport a phone shows a shrunken desktop page: not mobile-friendly, whatever else.
    { id: 'mobile-viewport', weight: 10, gate: { cap: 50 } },
    { id: 'mobile-fixed-widths', weight: 6 },
    { id: 'mobile-responsive-images', weight: 4 },
    { id: 'mobile-font-size', weight: 4 },
    { id: 'mobile-overflow', weight: 10 },
    { id: 'mobile-tap-targets', weight: 6 },
    { id: 'mobile-small-text', weight: 6 },
  ],
};

const content: ModelDimension = {
  id: 'content',
  name: 'Content',
  weight: 10,
  checks: [
    { id: 'content-word-count', weight: 8 },
    { id: 'content-readability', weight: 6 },
    { id: 'content-heading-outline', weight: 5 },
    { id: 'content-image-alt', weight: 5 },
    { id: 'content-freshness', weight: 4 },
    { id: 'content-duplicate-headings', weight: 3 },
  ],
};

const conversion: ModelDimension = {
  id: 'conversion',
  name: 'Conversion',
  weight: 10,
  checks: [
    { id: 'conversion-cta', weight: 10 },
    { id: 'conversion-forms', weight: 6 },
    { id: 'conversion-contact', weight: 6 },
    { id: 'conversion-trust', weight: 5 },
    { id: 'conversion-pricing', weight: 3 },
  ],
};

/**
 * Dimension weights (sum 100): SEO and speed lead because they are what a site audit is bought
 * for (seo_audit and speed_audit are the products the interface names) and speed also drives
 * rankings and conversions. Security and accessibility are risks with legal weight. Mobile
 * overlaps speed (mobile Lighthouse) and accessibility (zoom, tap targets), and content and
 * conversion are judged by heuristics with less certainty, so those three count less.
 */
export const siteAuditModel: ScoringModel = {
  id: 'site-audit',
  version: '1.1.0',
  description: 'Site audit: SEO, speed, security, accessibility, mobile, content and conversion',
  dimensions: [seo, speed, { ...SECURITY_DIMENSION, weight: 15 }, accessibility, mobile, content, conversion],
  grades: LETTER_GRADES,
};
