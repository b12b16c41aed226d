import type { Check } from '../../check.ts';
import localBusinessSchema from './local-business-schema.ts';
import localContactDetails from './local-contact-details.ts';
import localMapLink from './local-map-link.ts';
import localOpeningHours from './local-opening-hours.ts';
import socialProfileLinks from './social-profile-links.ts';
import socialShareImage from './social-share-image.ts';
import socialTwitterCard from './social-twitter-card.ts';

// Checks only the monitoring model uses: its social and local dimensions. Its other dimensions
// reuse the site-audit, content, conversion and GEO checks.
export const monitoringChecks: Check[] = [
  socialTwitterCard,
  socialShareImage,
  socialProfileLinks,
  localBusinessSchema,
  localContactDetails,
  localOpeningHours,
  localMapLink,
];
