import type { Check } from '../../check.ts';
import conversionContact from './conversion-contact.ts';
import conversionCta from './conversion-cta.ts';
import conversionForms from './conversion-forms.ts';
import conversionPricing from './conversion-pricing.ts';
import conversionTrust from './conversion-trust.ts';

// Checks of this folder, registered here in a stable order.
export const conversionChecks: Check[] = [
  conversionCta,
  conversionForms,
  conversionContact,
  conversionTrust,
  conversionPricing,
];
