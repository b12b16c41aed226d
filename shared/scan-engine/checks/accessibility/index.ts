import type { Check } from '../../check.ts';
import a11yAxe from './a11y-axe.ts';
import a11yButtonNames from './a11y-button-names.ts';
import a11yContextChange from './a11y-context-change.ts';
import a11yDocumentLang from './a11y-document-lang.ts';
import a11yDocumentTitle from './a11y-document-title.ts';
import a11yDuplicateIds from './a11y-duplicate-ids.ts';
import a11yFormLabels from './a11y-form-labels.ts';
import a11yFrameTitles from './a11y-frame-titles.ts';
import a11yHeadings from './a11y-headings.ts';
import a11yImageAlt from './a11y-image-alt.ts';
import a11yKeyboardFocus from './a11y-keyboard-focus.ts';
import a11yLandmarks from './a11y-landmarks.ts';
import a11yLighthouse from './a11y-lighthouse.ts';
import a11yLinkNames from './a11y-link-names.ts';
import a11yLinkUnderline from './a11y-link-underline.ts';
import a11yTabindex from './a11y-tabindex.ts';
import a11yTables from './a11y-tables.ts';
import a11yViewportZoom from './a11y-viewport-zoom.ts';

// Checks of this folder, registered here in a stable order.
export const accessibilityChecks: Check[] = [
  a11yImageAlt,
  a11yFormLabels,
  a11yDocumentLang,
  a11yDocumentTitle,
  a11yHeadings,
  a11yLinkNames,
  a11yButtonNames,
  a11yDuplicateIds,
  a11yTabindex,
  a11yViewportZoom,
  a11yKeyboardFocus,
  a11yTables,
  a11yLandmarks,
  a11yContextChange,
  a11yFrameTitles,
  a11yLinkUnderline,
  a11yAxe,
  a11yLighthouse,
];
