import type { Check } from '../../check.ts';
import localBusinessSchema from './local-business-schema.ts';
import localContactDetails from './local-contact-details.ts';
import localMapLink from './local-map-link.ts';
import localOpeningHours from './local-opening-hours.ts';

// The monitoring model's local dimension: is the business findable on a map and reachable.
export const localChecks: Check[] = [
  localBusinessSchema,
  localContactDetails,
  localOpeningHours,
  localMapLink,
];
