import type { Check } from '../../check.ts';
import contentDuplicateHeadings from './content-duplicate-headings.ts';
import contentFreshness from './content-freshness.ts';
import contentHeadingOutline from './content-heading-outline.ts';
import contentImageAlt from './content-image-alt.ts';
import contentReadability from './content-readability.ts';
import contentWordCount from './content-word-count.ts';

// Checks of this folder, registered here in a stable order.
export const contentChecks: Check[] = [
  contentWordCount,
  contentReadability,
  contentHeadingOutline,
  contentImageAlt,
  contentFreshness,
  contentDuplicateHeadings,
];
