import type { Check } from '../../check.ts';

// Checks of this folder, registered here in a stable order.
export const mobileChecks: Check[] = [];
