import { defineCheck, fail, graded } from '../../scan-engine/check.ts';
import { listText } from '../../scan-engine/checks/content/lib/page.ts';
import { structuredData } from '../../scan-engine/checks/seo/lib/structured-data.ts';
import { loadDocument } from '../../scan-engine/computed/document.ts';

// What answer engines use schema.org for: who is speaking (entity), what the page is (content
// type), how it fits the site (breadcrumbs), and ready-made question/answer or step shapes.
const GROUPS = [
  {
    id: 'entity',
    weight: 0.35,
    types: [
      'Organization',
      'Corporation',
      'LocalBusiness',
      'Person',
      'WebSite',
      'NGO',
      'EducationalOrganization',
      'OnlineStore',
    ],
  },
  {
    id: 'content',
    weight: 0.35,
    types: [
      'Article',
      'NewsArticle',
      'BlogPosting',
      'TechArticle',
      'Report',
      'Product',
      'Service',
      'SoftwareApplication',
      'Event',
      'Recipe',
      'Course',
      'Book',
      'Review',
      'Dataset',
      'JobPosting',
      'WebPage',
      'AboutPage',
      'CollectionPage',
      'ItemPage',
      'ProfilePage',
      'ContactPage',
      'Offer',
    ],
  },
  { id: 'breadcrumbs', weight: 0.1, types: ['BreadcrumbList'] },
  { id: 'answers', weight: 0.2, types: ['FAQPage', 'QAPage', 'HowTo', 'Question'] },
] as const;

export default defineCheck({
  meta: {
    id: 'geo-schema-coverage',
    title: 'Structured data covers entity, content and answers',
    failureTitle: 'Structured data is missing or thin',
    description:
      'JSON-LD tells answer engines who publishes the page, what it is and which passages answer which questions. Add Organization (or Person), the page type (Article, Product...), BreadcrumbList and FAQPage or HowTo where they fit.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const data = structuredData(loadDocument(Page.html));
    const types = new Set([...data.types, ...data.microdataTypes]);
    const covered = GROUPS.filter((g) => g.types.some((t) => types.has(t)));
    const missing = GROUPS.filter((g) => !covered.includes(g)).map((g) => g.id);
    const penalty = data.errors.length > 0 ? 0.2 : 0;
    const score = Math.max(0, covered.reduce((s, g) => s + g.weight, 0) - penalty);
    const evidence = {
      types: [...types],
      covered: covered.map((g) => g.id),
      errors: data.errors,
      fix: missing.length ? `Add JSON-LD for: ${missing.map((m) => FIXES[m]).join('; ')}` : undefined,
    };
    if (types.size === 0) {
      return fail(data.errors[0] ?? 'No schema.org structured data on the page', {
        ...evidence,
        fix: 'Add a JSON-LD block with Organization and the page type (Article, Product, FAQPage...)',
      });
    }
    const errorNote = data.errors.length ? `; ${data.errors.length} block(s) fail to parse` : '';
    const msg = `Schema types ${listText([...types])}: covers ${covered.map((g) => g.id).join(', ') || 'nothing useful'}${missing.length ? `, missing ${missing.join(', ')}` : ''}${errorNote}`;
    return graded(score, msg, evidence);
  },
});

const FIXES: Record<string, string> = {
  entity: 'Organization or Person (who publishes)',
  content: 'the page type (Article, Product, Service...)',
  breadcrumbs: 'BreadcrumbList',
  answers: 'FAQPage or HowTo for question/answer or step content',
};
