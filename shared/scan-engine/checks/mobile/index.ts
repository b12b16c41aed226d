import type { Check } from '../../check.ts';
import mobileFixedWidths from './mobile-fixed-widths.ts';
import mobileFontSize from './mobile-font-size.ts';
import mobileOverflow from './mobile-overflow.ts';
import mobileResponsiveImages from './mobile-responsive-images.ts';
import mobileSmallText from './mobile-small-text.ts';
import mobileTapTargets from './mobile-tap-targets.ts';
import mobileViewport from './mobile-viewport.ts';

// Checks of this folder, registered here in a stable order.
export const mobileChecks: Check[] = [
  mobileViewport,
  mobileFixedWidths,
  mobileResponsiveImages,
  mobileFontSize,
  mobileOverflow,
  mobileTapTargets,
  mobileSmallText,
];
