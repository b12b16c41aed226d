import { GEO_SIGNALS } from '../../geo-scoring/models/geo.ts';
import { LETTER_GRADES, type ModelCheckRef, type ModelDimension, type ScoringModel } from '../model.ts';
import { siteAuditModel } from './site-audit.ts';

// Monitoring (variant A): what a subscriber watches day to day on its own sites and its
// competitors'. SEO and speed are the site audit's dimensions unchanged (one definition, so a
// monitor and an ad-hoc scan of the same page agree). Copy is the words on the page; social and
// local are the sharing and local-search signals; ai is built from the GEO check's signals.
// `competitor` is no measurement of the page: the monitor fills it in from the scores of the
// account's tracked competitors (see shared/monitoring/standing.ts), and it weighs 0 in the
// overall score, so a competitor improving never registers as a drop on your own site.

function fromSiteAudit(id: string): ModelDimension {
  const d = siteAuditModel.dimensions.find((x) => x.id === id);
  if (!d) throw new Error(`site-audit model has no ${id} dimension`);
  return { id: d.id, name: d.name, weight: 0, pageIndependent: d.pageIndependent, checks: d.checks };
}

// Each GEO signal's points spread over its checks by their weights within the signal. Gates are
// left out: llms.txt's "missing file caps the signal at 0" must not zero the whole dimension.
const aiChecks: ModelCheckRef[] = GEO_SIGNALS.flatMap((s) => {
  const total = s.checks.reduce((sum, c) => sum + c.weight, 0);
  return s.checks.map((c) => ({ id: c.id, weight: (s.maxScore * c.weight) / total }));
});

/**
 * Dimension weights (sum 100): SEO leads (being found is what the plans are bought for), speed
 * and AI visibility follow (speed drives rankings and conversion; answer engines are where
 * search is moving), then the copy visitors read; social and local matter to fewer businesses.
 */
export const monitoringModel: ScoringModel = {
  id: 'monitoring',
  version: '1.1.0',
  description: 'Monitoring: SEO, speed, copy, social, local, competitor standing and AI visibility',
  dimensions: [
    { ...fromSiteAudit('seo'), weight: 25 },
    { ...fromSiteAudit('speed'), weight: 20 },
    {
      id: 'copy',
      name: 'Copy',
      weight: 15,
      checks: [
        { id: 'content-word-count', weight: 8 },
        { id: 'content-readability', weight: 8 },
        { id: 'conversion-cta', weight: 6 },
        { id: 'content-heading-outline', weight: 5 },
        { id: 'seo-meta-description', weight: 4 },
        { id: 'conversion-trust', weight: 3 },
        { id: 'content-duplicate-headings', weight: 3 },
        { id: 'content-freshness', weight: 3 },
      ],
    },
    {
      id: 'social',
      name: 'Social',
      weight: 10,
      checks: [
        { id: 'seo-open-graph', weight: 8 },
        { id: 'social-share-image', weight: 6 },
        { id: 'social-twitter-card', weight: 4 },
        { id: 'social-profile-links', weight: 4 },
      ],
    },
    {
      id: 'local',
      name: 'Local',
      weight: 10,
      checks: [
        { id: 'local-business-schema', weight: 8 },
        { id: 'local-contact-details', weight: 8 },
        { id: 'local-opening-hours', weight: 4 },
        { id: 'local-map-link', weight: 3 },
      ],
    },
    { id: 'competitor', name: 'Competitor standing', weight: 0, checks: [] },
    { id: 'ai', name: 'AI visibility', weight: 20, checks: aiChecks },
  ],
  grades: LETTER_GRADES,
};

/** The members of dimensionScores, in response order. */
export const MONITOR_DIMENSIONS = ['seo', 'speed', 'copy', 'social', 'local', 'competitor', 'ai'] as const;
export type MonitorDimension = (typeof MONITOR_DIMENSIONS)[number];
