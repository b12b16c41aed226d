import type { ArtifactSet } from '../../../../shared/scan-engine/artifacts.ts';
import a11yAxe from '../../../../shared/scan-engine/checks/accessibility/a11y-axe.ts';
import a11yButtonNames from '../../../../shared/scan-engine/checks/accessibility/a11y-button-names.ts';
import a11yContextChange from '../../../../shared/scan-engine/checks/accessibility/a11y-context-change.ts';
import a11yDocumentLang from '../../../../shared/scan-engine/checks/accessibility/a11y-document-lang.ts';
import a11yDocumentTitle from '../../../../shared/scan-engine/checks/accessibility/a11y-document-title.ts';
import a11yDuplicateIds from '../../../../shared/scan-engine/checks/accessibility/a11y-duplicate-ids.ts';
import a11yFormLabels from '../../../../shared/scan-engine/checks/accessibility/a11y-form-labels.ts';
import a11yFrameTitles from '../../../../shared/scan-engine/checks/accessibility/a11y-frame-titles.ts';
import a11yHeadings from '../../../../shared/scan-engine/checks/accessibility/a11y-headings.ts';
import a11yImageAlt from '../../../../shared/scan-engine/checks/accessibility/a11y-image-alt.ts';
import a11yKeyboardFocus from '../../../../shared/scan-engine/checks/accessibility/a11y-keyboard-focus.ts';
import a11yLandmarks from '../../../../shared/scan-engine/checks/accessibility/a11y-landmarks.ts';
import a11yLighthouse from '../../../../shared/scan-engine/checks/accessibility/a11y-lighthouse.ts';
import a11yLinkNames from '../../../../shared/scan-engine/checks/accessibility/a11y-link-names.ts';
import a11yLinkUnderline from '../../../../shared/scan-engine/checks/accessibility/a11y-link-underline.ts';
import a11yTabindex from '../../../../shared/scan-engine/checks/accessibility/a11y-tabindex.ts';
import a11yTables from '../../../../shared/scan-engine/checks/accessibility/a11y-tables.ts';
import a11yViewportZoom from '../../../../shared/scan-engine/checks/accessibility/a11y-viewport-zoom.ts';
import { checkTable, html, htmlPage, lighthouse, page, rendered } from '../../../helpers/artifact-factory.ts';

const body = (markup: string): ArtifactSet => ({ Page: htmlPage(html(markup)) });
const head = (markup: string): ArtifactSet => ({ Page: htmlPage(html('<p>x</p>', markup)) });
const prose = '<p>' + 'Plain words for a page of text. '.repeat(12) + '</p>';

checkTable(a11yImageAlt, [
  ['described image', body('<img src="a.png" alt="A red bicycle">'), { outcome: 'pass' }],
  ['decorative image (alt="")', body('<img src="rule.png" alt="">'), { outcome: 'pass' }],
  ['presentational role', body('<img src="rule.png" role="presentation">'), { outcome: 'pass' }],
  [
    'one of eight missing',
    body('<img src="x.png">' + '<img src="a.png" alt="a">'.repeat(7)),
    { outcome: 'warn', message: /1 of 8 images/ },
  ],
  [
    'most missing',
    body('<img src="x.png"><img src="y.png"><img src="z.png" alt="z">'),
    { outcome: 'fail', message: /2 of 3 .*<img src="x\.png">/ },
  ],
  ['image input without alt', body('<form><input type="image" src="go.png"></form>'), { outcome: 'fail' }],
  [
    'role=img named by aria-label',
    body('<div role="img" aria-label="Chart of sales"></div>'),
    { outcome: 'pass' },
  ],
  ['hidden images are ignored', body('<img src="x.png" aria-hidden="true">'), { outcome: 'not_applicable' }],
  ['no images', body('<p>Text</p>'), { outcome: 'not_applicable' }],
]);

checkTable(a11yFormLabels, [
  ['label for', body('<label for="e">Email</label><input id="e" type="email">'), { outcome: 'pass' }],
  ['wrapping label', body('<label>Name <input name="n"></label>'), { outcome: 'pass' }],
  ['aria-labelledby', body('<span id="l">Search</span><input aria-labelledby="l">'), { outcome: 'pass' }],
  [
    'placeholder counts as a name (as in axe)',
    body('<input type="email" placeholder="Email address">'),
    { outcome: 'pass' },
  ],
  [
    'select without label',
    body('<select><option>A</option></select>'),
    { outcome: 'fail', message: /<select>/ },
  ],
  ['label pointing elsewhere', body('<label for="other">Email</label><input id="e">'), { outcome: 'fail' }],
  [
    'hidden and button inputs are not fields',
    body('<input type="hidden" name="t"><input type="submit">'),
    { outcome: 'not_applicable' },
  ],
]);

checkTable(a11yDocumentLang, [
  ['lang present', body(''), { outcome: 'pass' }],
  [
    'no lang',
    { Page: htmlPage(html('', '', '')) },
    { outcome: 'fail', message: /^<html> has no lang attribute$/ },
  ],
  ['empty lang', { Page: htmlPage(html('', '', 'lang=" "')) }, { outcome: 'fail' }],
  [
    'invalid lang',
    { Page: htmlPage(html('', '', 'lang="en_GB"')) },
    { outcome: 'fail', message: /not a valid/ },
  ],
]);

checkTable(a11yDocumentTitle, [
  ['title', head('<title>Tickets - CityLights</title>'), { outcome: 'pass' }],
  ['no title', head(''), { outcome: 'fail', message: /no <title>/ }],
  ['empty title', head('<title></title>'), { outcome: 'fail', message: /empty/ }],
]);

checkTable(a11yHeadings, [
  [
    'ordered outline',
    body('<h1>A</h1><h2>B</h2><h3>C</h3><h2>D</h2>'),
    { outcome: 'pass', message: /4 headings/ },
  ],
  ['skipped level', body('<h1>A</h1><h3>C</h3>'), { outcome: 'fail', message: /h1 -> h3/ }],
  ['one skip among many', body('<h1>A</h1>' + '<h2>B</h2>'.repeat(8) + '<h4>C</h4>'), { outcome: 'warn' }],
  ['empty heading', body('<h1>A</h1><h2></h2>'), { outcome: 'fail', message: /1 empty heading/ }],
  [
    'heading made of an image with alt',
    body('<h1><img src="logo.png" alt="CityLights"></h1>'),
    { outcome: 'pass' },
  ],
  [
    'text styled as headings',
    body('<h1>Site</h1><p class="headline">Welcome</p><p class="subheadline">Elsewhere</p>' + prose),
    { outcome: 'fail', message: /2 headings only styled as such \("Welcome"\)/ },
  ],
  ['long text with no headings', body(prose), { outcome: 'fail', message: /no headings/ }],
  ['short text needs none', body('<p>Hello there.</p>'), { outcome: 'not_applicable' }],
]);

checkTable(a11yLinkNames, [
  ['text links', body('<a href="/tickets">Buy tickets</a><a href="/news">News</a>'), { outcome: 'pass' }],
  ['image link with alt', body('<a href="/"><img src="logo.png" alt="Home"></a>'), { outcome: 'pass' }],
  [
    'icon link with aria-label',
    body('<a href="/fb" aria-label="Facebook"><i class="icon"></i></a>'),
    { outcome: 'pass' },
  ],
  [
    'icon link without name',
    body('<a href="/fb"><i class="icon"></i></a>'),
    { outcome: 'fail', message: /1 has no name/ },
  ],
  [
    'image link with empty alt',
    body('<a href="/more"><img src="arrow.gif" alt=""></a>'),
    { outcome: 'fail' },
  ],
  [
    'vague text counts half',
    body('<a href="/a">Click here</a>' + '<a href="/b">Opening hours</a>'.repeat(4)),
    { outcome: 'warn', message: /1 only says "Click here"$/, score: [0.5, 0.55] },
  ],
  ['anchors without href are not links', body('<a name="top">Top</a>'), { outcome: 'not_applicable' }],
]);

checkTable(a11yButtonNames, [
  ['text button', body('<button>Send</button>'), { outcome: 'pass' }],
  ['submit input has a default name', body('<input type="submit">'), { outcome: 'pass' }],
  ['plain input button without value', body('<input type="button">'), { outcome: 'fail' }],
  [
    'icon button without label',
    body('<button><svg></svg></button>'),
    { outcome: 'fail', message: /1 of 1 buttons/ },
  ],
  [
    'icon button with svg title',
    body('<button><svg><title>Close</title></svg></button>'),
    { outcome: 'pass' },
  ],
  ['no buttons', body('<p>x</p>'), { outcome: 'not_applicable' }],
]);

checkTable(a11yDuplicateIds, [
  ['unique ids', body('<div id="a"></div><div id="b"></div>'), { outcome: 'pass' }],
  [
    'duplicate but unreferenced',
    body('<div id="a"></div><div id="a"></div>'),
    { outcome: 'warn', message: /1 ids are used more than once: a/ },
  ],
  [
    'duplicate id a label points at',
    body('<label for="email">Email</label><input id="email"><input id="email">'),
    { outcome: 'fail', message: /labels or ARIA: email/ },
  ],
]);

checkTable(a11yTabindex, [
  [
    'natural order',
    body('<a href="/">a</a><div tabindex="0">b</div><div tabindex="-1">c</div>'),
    { outcome: 'pass' },
  ],
  [
    'positive tabindex',
    body('<a href="/" tabindex="3">a</a><a href="/b">b</a>'),
    { outcome: 'fail', message: /tabindex above 0/ },
  ],
]);

checkTable(a11yViewportZoom, [
  [
    'zoomable',
    head('<meta name="viewport" content="width=device-width, initial-scale=1">'),
    { outcome: 'pass' },
  ],
  ['no viewport tag', head(''), { outcome: 'pass' }],
  [
    'user-scalable=no',
    head('<meta name="viewport" content="width=device-width, user-scalable=no">'),
    { outcome: 'fail', message: /disabled/ },
  ],
  [
    'maximum-scale=1',
    head('<meta name="viewport" content="width=device-width, maximum-scale=1.0">'),
    { outcome: 'fail', message: /maximum-scale=1/ },
  ],
  [
    'maximum-scale=5 is fine',
    head('<meta name="viewport" content="width=device-width, maximum-scale=5">'),
    { outcome: 'pass' },
  ],
]);

checkTable(a11yKeyboardFocus, [
  ['plain links and buttons', body('<a href="/">a</a><button>b</button>'), { outcome: 'pass' }],
  [
    'focus thrown away',
    body('<a href="/" onfocus="blur();">a</a>'),
    { outcome: 'fail', message: /drop focus/ },
  ],
  [
    'click handler on a div',
    body('<div onclick="go()">Open</div><a href="/">a</a>'),
    { outcome: 'fail', message: /<div>/ },
  ],
  ['click handler on a button is fine', body('<button onclick="go()">Open</button>'), { outcome: 'pass' }],
  [
    'outline removed on focus',
    head('<style>a:focus { outline: none; }</style><a href="/">a</a>'),
    { outcome: 'fail', message: /a:focus/ },
  ],
  [
    'the :focus-visible pattern is fine',
    head('<style>a:focus:not(:focus-visible) { outline: none }</style><a href="/">a</a>'),
    { outcome: 'pass' },
  ],
]);

checkTable(a11yTables, [
  [
    'data table',
    body('<table><tr><th>Day</th><th>Price</th></tr><tr><td>Mon</td><td>5</td></tr></table>'),
    { outcome: 'pass' },
  ],
  [
    'layout table marked presentational',
    body('<table role="presentation"><tr><td>x</td></tr></table>'),
    { outcome: 'not_applicable' },
  ],
  [
    'nested layout tables',
    body('<table width="800"><tr><td><table><tr><td>Menu</td></tr></table></td></tr></table>'),
    { outcome: 'fail', message: /2 of 2 tables .*1 nested/ },
  ],
  ['no tables', body('<p>x</p>'), { outcome: 'not_applicable' }],
]);

checkTable(a11yLandmarks, [
  [
    'full set',
    body('<header>h</header><nav>n</nav><main>m</main><footer>f</footer>'),
    { outcome: 'pass', message: /main/ },
  ],
  ['role attributes', body('<div role="main">m</div>'), { outcome: 'pass' }],
  ['no main', body('<header>h</header><nav>n</nav>'), { outcome: 'warn', message: /no <main>/ }],
  ['none', body('<div>m</div>'), { outcome: 'fail', message: /no landmarks/ }],
]);

checkTable(a11yContextChange, [
  ['quiet page', body('<select><option>A</option></select>'), { outcome: 'pass' }],
  [
    'jump menu',
    body('<select onchange="location.href=this.value"><option>A</option></select>'),
    { outcome: 'fail', message: /navigates as soon/ },
  ],
  ['timed refresh', head('<meta http-equiv="refresh" content="30">'), { outcome: 'fail', message: /timer/ }],
  [
    'immediate redirect is not a timer',
    head('<meta http-equiv="refresh" content="0; url=/new">'),
    { outcome: 'pass' },
  ],
]);

checkTable(a11yFrameTitles, [
  ['titled', body('<iframe src="/map" title="Map of the venue"></iframe>'), { outcome: 'pass' }],
  ['untitled', body('<iframe src="/map"></iframe>'), { outcome: 'fail' }],
  ['none', body(''), { outcome: 'not_applicable' }],
]);

checkTable(a11yLinkUnderline, [
  ['no inline CSS', body('<p>Read <a href="/">this</a></p>'), { outcome: 'pass' }],
  [
    'content links lose underline',
    head('<style>#main a { color: #226C8E; text-decoration: none }</style>'),
    { outcome: 'warn', message: /#main a/ },
  ],
  [
    'navigation links are exempt',
    head('<style>nav a, .btn { text-decoration: none }</style>'),
    { outcome: 'pass' },
  ],
  [
    'style attribute on a link',
    body('<a href="/" style="text-decoration:none">More</a>'),
    { outcome: 'warn', message: /style attributes on 1 link/ },
  ],
]);

const axe = (violations: { id: string; impact: string | null; nodes?: number }[], passes: string[]) => ({
  Rendered: rendered({
    axe: {
      violations: violations.map((v) => ({ help: `${v.id} help`, nodes: v.nodes ?? 1, targets: [], ...v })),
      passes,
      incomplete: [],
    },
  }),
});
checkTable(a11yAxe, [
  ['no violations', axe([], ['image-alt', 'label']), { outcome: 'pass', message: /2 rules pass/ }],
  [
    "a critical rule failing against Lighthouse's weights",
    axe([{ id: 'image-alt', impact: 'critical', nodes: 12 }], ['label', 'document-title', 'html-has-lang']),
    { outcome: 'warn', score: [0.67, 0.68], message: /1 critical\): image-alt help \(12 elements\)/ },
  ],
  [
    'mostly failing',
    axe(
      [
        { id: 'color-contrast', impact: 'serious' },
        { id: 'link-name', impact: 'serious' },
        { id: 'button-name', impact: 'critical' },
      ],
      ['heading-order'],
    ),
    { outcome: 'fail', score: [0.11, 0.12], message: /1 critical, 2 serious/ },
  ],
  ['axe did not run', { Rendered: rendered({ axe: null }) }, { outcome: 'not_applicable' }],
  ['quick mode', { Page: page() }, { outcome: 'not_applicable' }],
]);

checkTable(a11yLighthouse, [
  ['good', { Lighthouse: lighthouse({ accessibility: 1 }) }, { outcome: 'pass' }],
  ['poor', { Lighthouse: lighthouse({ accessibility: 0.45 }) }, { outcome: 'fail', message: /45/ }],
]);
