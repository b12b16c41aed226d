import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../../../shared/scan-engine/artifacts.ts';
import conversionContact from '../../../../shared/scan-engine/checks/conversion/conversion-contact.ts';
import conversionCta from '../../../../shared/scan-engine/checks/conversion/conversion-cta.ts';
import conversionForms from '../../../../shared/scan-engine/checks/conversion/conversion-forms.ts';
import conversionPricing from '../../../../shared/scan-engine/checks/conversion/conversion-pricing.ts';
import conversionTrust from '../../../../shared/scan-engine/checks/conversion/conversion-trust.ts';
import { collapsedLength } from '../../../../shared/scan-engine/checks/conversion/lib/cta.ts';
import { checkTable, html, htmlPage, rendered, viewport } from '../../../helpers/artifact-factory.ts';

const body = (markup: string, url?: string): ArtifactSet => ({
  Page: htmlPage(html(markup), url ? { finalUrl: url } : {}),
});
const filler = (n: number) =>
  `<p>${'Our bakery has served the town since 1921 with bread baked overnight. '.repeat(n)}</p>`;

checkTable(conversionCta, [
  [
    'hero with a button',
    body(
      '<header><h1>Fresh bread daily</h1><a class="btn btn-primary" href="/order">Order now</a></header>' +
        filler(20),
    ),
    { outcome: 'pass', message: /with a headline: "Order now"/ },
  ],
  [
    'button-styled link without a verb',
    body('<a class="button" href="/menu">Our menu</a>'),
    { outcome: 'pass', message: /"Our menu"/ },
  ],
  ['action verb on a plain link', body('<a href="/trial">Start your free trial</a>'), { outcome: 'pass' }],
  [
    'CTA only at the bottom',
    body(`<h1>Bakery</h1>${filler(20)}<a href="/order">Book a table</a>`),
    { outcome: 'warn', message: /further down \("Book a table"\)/ },
  ],
  ['no CTA', body(`<h1>Bakery</h1>${filler(2)}<a href="/about">About</a>`), { outcome: 'fail' }],
  ['placeholder links are not CTAs', body('<a class="btn" href="#">Sign up</a>'), { outcome: 'fail' }],
  [
    'the render decides in full mode',
    {
      ...body(`<h1>Bakery</h1>${filler(20)}<a href="/order">Order now</a>`),
      Rendered: rendered({ desktop: viewport({ width: 1366, aboveFoldCtas: ['Order now'] }) }),
    },
    { outcome: 'pass', message: /above the fold: "Order now"/ },
  ],
  [
    'render finds none above the fold',
    {
      ...body('<a href="/order">Order now</a>'),
      Rendered: rendered({ desktop: viewport({ width: 1366, aboveFoldCtas: [] }) }),
    },
    { outcome: 'warn', message: /first screen/ },
  ],
]);

checkTable(conversionForms, [
  [
    'one-field signup',
    body(
      '<form><input type="email" placeholder="Email address"><button type="submit">Subscribe</button></form>',
    ),
    { outcome: 'pass', message: /^The signup form is quick to complete: 1 field and a "Subscribe" button$/ },
  ],
  [
    'labelled contact form',
    body(
      '<form><label for="n">Name</label><input id="n"><label for="e">Email</label><input id="e" type="email"><label for="m">Message</label><textarea id="m"></textarea><button>Send</button></form>',
    ),
    { outcome: 'pass', message: /contact form .*3 fields/ },
  ],
  [
    'no submit button',
    body('<form><label>Email <input type="email"></label></form>'),
    { outcome: 'warn', message: /no submit button/ },
  ],
  [
    'placeholder-only labels on a longer form',
    body(
      '<form><input placeholder="Name"><input type="email" placeholder="Email"><textarea placeholder="Message"></textarea><button>Send</button></form>',
    ),
    {
      outcome: 'warn',
      score: [0.8, 0.8],
      message:
        /^The contact form is harder to complete than needed: 3 fields labelled only by a placeholder$/,
    },
  ],
  [
    'email field typed as text',
    body('<form><label>Email <input type="text" name="email"></label><button>Join</button></form>'),
    { outcome: 'warn', score: [0.9, 0.9], message: /type="email"/ },
  ],
  [
    'long unlabelled form',
    body(`<form>${'<input name="f">'.repeat(12)}</form>`),
    { outcome: 'fail', message: /12 fields \(keep it to 5 or fewer\)/ },
  ],
  [
    'search box is not a conversion form',
    body('<form role="search"><input type="search" name="q"><button>Go</button></form>'),
    { outcome: 'not_applicable' },
  ],
  [
    'jump menu is not a conversion form',
    body('<form><select><option>A</option></select><input type="submit" value="Go"></form>'),
    { outcome: 'not_applicable' },
  ],
  ['no forms', body('<p>x</p>'), { outcome: 'not_applicable' }],
]);

checkTable(conversionContact, [
  [
    'email link',
    body('<a href="mailto:hello@example.test">Email us</a>'),
    { outcome: 'pass', message: /email link/ },
  ],
  [
    'phone link and address',
    body('<a href="tel:+441234567890">Call</a><address>1 High St</address>'),
    { outcome: 'pass', message: /phone link and address/ },
  ],
  [
    'contact page',
    body('<a href="/contact-us.html">Get in touch</a>'),
    { outcome: 'pass', message: /contact page link/ },
  ],
  [
    'phone number in text',
    body('<p>Telephone hotline: (1) 269 24653</p>'),
    { outcome: 'pass', message: /phone number/ },
  ],
  [
    'contact link that goes nowhere',
    body('<a href="#!">Contact</a>'),
    { outcome: 'warn', message: /"Contact" link goes nowhere/ },
  ],
  [
    'a product page about contact forms is not a contact path',
    body(
      '<a href="https://vendor.test/solution/contact-forms">https://vendor.test/solution/contact-forms</a>',
    ),
    { outcome: 'fail' },
  ],
  ['nothing', body('<p>Welcome</p>'), { outcome: 'fail', message: /No way to get in touch/ }],
]);

checkTable(conversionTrust, [
  [
    'all four signals',
    body(
      '<section class="testimonials"><blockquote>Best bread in town</blockquote></section><div class="client-logos"></div><a href="/privacy">Privacy policy</a>',
    ),
    { outcome: 'pass' },
  ],
  [
    'rating markup counts as third-party proof',
    body(
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"AggregateRating","ratingValue":4.8}</script><h2>What our customers say</h2><a href="/privacy">Privacy</a>',
    ),
    { outcome: 'pass' },
  ],
  [
    'https only',
    body('<p>x</p>'),
    { outcome: 'fail', score: [0.3, 0.3], message: /no privacy policy link; no testimonials/ },
  ],
  [
    'plain http and nothing else',
    body('<p>x</p>', 'http://example.test/'),
    { outcome: 'fail', score: [0, 0], message: /no HTTPS/ },
  ],
  [
    'a placeholder privacy link does not count',
    body('<a href="#!">Privacy Policy</a>'),
    { outcome: 'fail', message: /no privacy policy link/ },
  ],
]);

checkTable(conversionPricing, [
  ['prices in text', body('<p>Loaf £3.50, delivery from €2</p>'), { outcome: 'pass', message: /"£3/ }],
  ['subscription wording', body('<p>Plans start at 9 per month</p>'), { outcome: 'pass' }],
  [
    'pricing page link',
    body('<nav><a href="/pricing">Pricing</a></nav>'),
    { outcome: 'pass', message: /"Pricing"/ },
  ],
  [
    'offer markup',
    body(
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Offer","price":"3.50"}</script>',
    ),
    { outcome: 'pass' },
  ],
  ['nothing', body('<p>Welcome</p>'), { outcome: 'warn', message: /No pricing/ }],
]);

describe('collapsedLength', () => {
  it('is the length of the text with whitespace collapsed and trimmed, for every UTF-16 unit', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const s of [ch, `a${ch}b`, `${ch}${ch}x${ch}`, ` ${ch} `])
        assert.equal(collapsedLength(s), s.replace(/\s+/g, ' ').trim().length, `U+${c.toString(16)}`);
    }
  });
});
