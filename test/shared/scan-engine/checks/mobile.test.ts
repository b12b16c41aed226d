import type { ArtifactSet } from '../../../../shared/scan-engine/artifacts.ts';
import mobileFixedWidths from '../../../../shared/scan-engine/checks/mobile/mobile-fixed-widths.ts';
import mobileFontSize from '../../../../shared/scan-engine/checks/mobile/mobile-font-size.ts';
import mobileOverflow from '../../../../shared/scan-engine/checks/mobile/mobile-overflow.ts';
import mobileResponsiveImages from '../../../../shared/scan-engine/checks/mobile/mobile-responsive-images.ts';
import mobileSmallText from '../../../../shared/scan-engine/checks/mobile/mobile-small-text.ts';
import mobileTapTargets from '../../../../shared/scan-engine/checks/mobile/mobile-tap-targets.ts';
import mobileViewport from '../../../../shared/scan-engine/checks/mobile/mobile-viewport.ts';
import {
  checkTable,
  html,
  htmlPage,
  page,
  rendered,
  resources,
  viewport,
} from '../../../helpers/artifact-factory.ts';

const head = (markup: string, bodyMarkup = '<p>x</p>'): ArtifactSet => ({
  Page: htmlPage(html(bodyMarkup, markup)),
});
const body = (markup: string): ArtifactSet => head('', markup);
const vp = (content: string) => head(`<meta name="viewport" content="${content}">`);
const mobileRender = (overrides: Parameters<typeof viewport>[0]) => ({
  Rendered: rendered({ mobile: viewport(overrides) }),
});

checkTable(mobileViewport, [
  ['device width', vp('width=device-width, initial-scale=1'), { outcome: 'pass' }],
  ['missing', head(''), { outcome: 'fail', message: /no viewport meta tag/ }],
  ['fixed width', vp('width=1024'), { outcome: 'fail', message: /fixed width of 1024/ }],
  ['initial-scale only', vp('initial-scale=1'), { outcome: 'warn' }],
  ['neither', vp('user-scalable=yes'), { outcome: 'fail', message: /neither width nor initial-scale/ }],
]);

checkTable(mobileFixedWidths, [
  [
    'fluid layout',
    head('<style>.wrap { max-width: 960px; width: 100% }</style>', '<div class="wrap">x</div>'),
    { outcome: 'pass' },
  ],
  [
    'table width attribute',
    body('<table width="780"><tr><td>x</td></tr></table>'),
    { outcome: 'warn', score: [0.6, 0.6], message: /780 px/ },
  ],
  ['percent widths are fine', body('<table width="100%"><tr><td>x</td></tr></table>'), { outcome: 'pass' }],
  ['images are left to CSS', body('<img src="a.png" width="1200" alt="a">'), { outcome: 'pass' }],
  ['style attribute', body('<div style="width: 900px">x</div>'), { outcome: 'warn' }],
  [
    'wide rule in a media query is conditional',
    head('<style>@media (min-width: 1000px) { .c { width: 980px } }</style>'),
    { outcome: 'pass' },
  ],
  [
    'many fixed boxes',
    body(
      '<table width="800"><tr><td width="400">a</td><td width="400">b</td></tr></table><div style="min-width:600px">c</div>',
    ),
    { outcome: 'fail', message: /4 elements/ },
  ],
]);

const bigImage = (attrs: string, bytes?: number): ArtifactSet => ({
  Page: htmlPage(html(`<img src="https://example.test/hero.jpg" alt="Hero" ${attrs}>`)),
  ...(bytes
    ? { Resources: resources([{ url: 'https://example.test/hero.jpg', type: 'image', bytes }]) }
    : {}),
});
checkTable(mobileResponsiveImages, [
  [
    'srcset',
    bigImage('width="1600" srcset="hero-800.jpg 800w, hero-1600.jpg 1600w" sizes="100vw"'),
    { outcome: 'pass' },
  ],
  [
    'picture with sources',
    body(
      '<picture><source srcset="a.avif" type="image/avif"><img src="a.jpg" width="1200" alt="a"></picture>',
    ),
    { outcome: 'pass' },
  ],
  [
    'wide image without srcset',
    bigImage('width="1600"'),
    { outcome: 'fail', message: /1 of 1 large images/ },
  ],
  ['heavy image known from Resources', bigImage('', 300 * 1024), { outcome: 'fail' }],
  ['small image', bigImage('width="120"', 8000), { outcome: 'not_applicable' }],
  ['svg scales anyway', body('<img src="logo.svg" width="800" alt="Logo">'), { outcome: 'not_applicable' }],
]);

checkTable(mobileFontSize, [
  [
    'readable sizes',
    head('<style>body { font-size: 16px } small { font-size: 13px }</style>'),
    { outcome: 'pass' },
  ],
  [
    'tiny legal text',
    head('<style>body { font-size: 16px } .legal { font: 9px/1.2 Arial }</style>'),
    { outcome: 'warn', score: [0.5, 0.5], message: /1 of 2/ },
  ],
  [
    'everything tiny',
    head('<style>body { font-size: 10px } td { font-size: 11px }</style>'),
    { outcome: 'fail', score: [0, 0] },
  ],
  [
    'points converted to pixels',
    head('<style>p { font-size: 8pt } h1 { font-size: 24pt } li { font-size: 12pt }</style>'),
    { outcome: 'warn' },
  ],
  [
    'font size="1"',
    body('<font size="1">fine print</font><font size="3">body</font>'),
    { outcome: 'warn', message: /1 of 2/ },
  ],
  ['relative units only', head('<style>body { font-size: 1rem }</style>'), { outcome: 'not_applicable' }],
]);

checkTable(mobileOverflow, [
  ['fits', mobileRender({ scrollWidth: 375 }), { outcome: 'pass' }],
  ['sub-pixel rounding', mobileRender({ scrollWidth: 377 }), { outcome: 'pass' }],
  ['slight overflow', mobileRender({ scrollWidth: 390 }), { outcome: 'warn', message: /15 px/ }],
  ['desktop-width layout', mobileRender({ scrollWidth: 800 }), { outcome: 'fail', message: /800 px wide/ }],
  ['quick mode', { Page: page() }, { outcome: 'not_applicable' }],
]);

checkTable(mobileTapTargets, [
  ['all large', mobileRender({ tapTargets: { total: 30, tooSmall: 0, examples: [] } }), { outcome: 'pass' }],
  [
    'a few small',
    mobileRender({ tapTargets: { total: 30, tooSmall: 2, examples: ['a.social'] } }),
    { outcome: 'pass', score: [0.93, 0.94] },
  ],
  [
    'half too small',
    mobileRender({ tapTargets: { total: 20, tooSmall: 10, examples: ['a.nav'] } }),
    { outcome: 'warn', message: /10 of 20 .*a\.nav/ },
  ],
  [
    'no targets',
    mobileRender({ tapTargets: { total: 0, tooSmall: 0, examples: [] } }),
    { outcome: 'not_applicable' },
  ],
]);

checkTable(mobileSmallText, [
  ['legible', mobileRender({ smallTextRatio: 0.02 }), { outcome: 'pass' }],
  [
    "above Lighthouse's 60% line",
    mobileRender({ smallTextRatio: 0.3 }),
    { outcome: 'warn', message: /30% of the text/ },
  ],
  ["below Lighthouse's 60% line", mobileRender({ smallTextRatio: 0.5 }), { outcome: 'fail' }],
]);
