import { describe } from 'node:test';
import localBusinessSchema from '../../../../shared/scan-engine/checks/local/local-business-schema.ts';
import localContactDetails from '../../../../shared/scan-engine/checks/local/local-contact-details.ts';
import localMapLink from '../../../../shared/scan-engine/checks/local/local-map-link.ts';
import localOpeningHours from '../../../../shared/scan-engine/checks/local/local-opening-hours.ts';
import socialProfileLinks from '../../../../shared/scan-engine/checks/social/social-profile-links.ts';
import socialShareImage from '../../../../shared/scan-engine/checks/social/social-share-image.ts';
import socialTwitterCard from '../../../../shared/scan-engine/checks/social/social-twitter-card.ts';
import { checkTable, gatherError, html, htmlPage } from '../../../helpers/artifact-factory.ts';

// The monitoring model's own checks (social and local dimensions), as tables of cases.

const withHead = (head: string, body = '<h1>Page</h1>') => ({
  Page: htmlPage(html(body, `<title>T</title>${head}`)),
});
const withBody = (body: string) => ({ Page: htmlPage(html(body)) });
const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const og =
  '<meta property="og:title" content="Shop"><meta property="og:image" content="https://cdn.example.test/a.jpg">';

describe('monitoring checks', () => {
  checkTable(socialTwitterCard, [
    [
      'summary_large_image card',
      withHead('<meta name="twitter:card" content="summary_large_image">'),
      { outcome: 'pass', score: [1, 1] },
    ],
    [
      'card type in capitals still known',
      withHead('<meta name="twitter:card" content="Summary">'),
      { outcome: 'pass' },
    ],
    [
      'unknown card type',
      withHead('<meta name="twitter:card" content="huge">'),
      { outcome: 'warn', message: /not a card type/, score: [0.4, 0.4] },
    ],
    [
      'Open Graph without a card',
      withHead(og),
      { outcome: 'warn', message: /No twitter:card/, score: [0.5, 0.5] },
    ],
    ['nothing at all', withHead(''), { outcome: 'fail', message: /bare URLs/ }],
    ['no page', { Page: gatherError('connection refused') }, { outcome: 'error' }],
  ]);

  checkTable(socialShareImage, [
    ['absolute https og:image', withHead(og), { outcome: 'pass' }],
    [
      'twitter:image only',
      withHead('<meta name="twitter:image" content="https://cdn.example.test/t.png">'),
      { outcome: 'pass' },
    ],
    [
      'relative og:image',
      withHead('<meta property="og:image" content="/img/share.jpg">'),
      { outcome: 'warn', message: /not an absolute URL/, score: [0.3, 0.3] },
    ],
    [
      'http image on an https page',
      withHead('<meta property="og:image" content="http://cdn.example.test/a.jpg">'),
      { outcome: 'warn', message: /plain http/ },
    ],
    [
      'no image',
      withHead('<meta property="og:title" content="x">'),
      { outcome: 'fail', message: /No share image/ },
    ],
  ]);

  checkTable(socialProfileLinks, [
    [
      'profile links in the footer',
      withBody(
        '<footer><a href="https://www.instagram.com/shop">Insta</a> <a href="https://www.linkedin.com/company/shop">in</a></footer>',
      ),
      { outcome: 'pass', message: /Instagram and LinkedIn/ },
    ],
    [
      'sameAs only',
      withBody(
        jsonLd({ '@context': 'https://schema.org', '@type': 'Organization', sameAs: ['https://x.com/shop'] }),
      ),
      { outcome: 'pass', message: /X/ },
    ],
    [
      'share buttons are not profiles',
      withBody(
        '<a href="https://twitter.com/intent/tweet?url=x">Tweet</a><a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a>',
      ),
      { outcome: 'fail' },
    ],
    [
      'a bare network home page is not a profile',
      withBody('<a href="https://www.facebook.com/">Facebook</a>'),
      { outcome: 'fail' },
    ],
    ['lookalike host', withBody('<a href="https://facebook.com.evil.test/shop">fb</a>'), { outcome: 'fail' }],
  ]);

  const bakery = {
    '@context': 'https://schema.org',
    '@type': 'Bakery',
    name: 'Crumb',
    telephone: '+44 113 496 0000',
    address: { '@type': 'PostalAddress', streetAddress: '12 Briggate', addressLocality: 'Leeds' },
  };
  checkTable(localBusinessSchema, [
    ['a LocalBusiness subtype with name, address and phone', withBody(jsonLd(bakery)), { outcome: 'pass' }],
    [
      'inside an @graph',
      withBody(jsonLd({ '@context': 'https://schema.org', '@graph': [{ '@type': 'WebPage' }, bakery] })),
      { outcome: 'pass' },
    ],
    [
      'no telephone',
      withBody(jsonLd({ ...bakery, telephone: '' })),
      { outcome: 'warn', message: /lacks telephone/, score: [0.6, 0.7] },
    ],
    [
      'only a name',
      withBody(jsonLd({ '@context': 'https://schema.org', '@type': 'LocalBusiness', name: 'x' })),
      { outcome: 'fail', message: /address and telephone/ },
    ],
    [
      'an Organization with an address',
      withBody(jsonLd({ '@context': 'https://schema.org', '@type': 'Organization', address: 'Leeds' })),
      { outcome: 'warn', message: /no LocalBusiness/, score: [0.4, 0.4] },
    ],
    ['no structured data', withBody('<p>Hi</p>'), { outcome: 'fail', message: /No LocalBusiness/ }],
  ]);

  checkTable(localContactDetails, [
    [
      'tel link and <address>',
      withBody('<address>12 Briggate, Leeds</address><a href="tel:+441134960000">Call</a>'),
      { outcome: 'pass' },
    ],
    [
      'phone in text and a UK postcode',
      withBody('<p>Phone: 0113 496 0000. Visit us at 12 Briggate, Leeds LS1 6HD.</p>'),
      { outcome: 'pass' },
    ],
    [
      'US state and ZIP',
      withBody('<p>Call 555 010 2030</p><p>1 Main St, Springfield, IL 62701</p>'),
      { outcome: 'pass' },
    ],
    [
      'phone only',
      withBody('<a href="tel:+441134960000">0113 496 0000</a>'),
      { outcome: 'warn', message: /no postal address/ },
    ],
    [
      'address only',
      withBody('<p>Hauptstraße 5, 10115 Berlin</p>'),
      { outcome: 'warn', message: /no phone/ },
    ],
    [
      'numbers that are not phone numbers',
      withBody('<p>Founded 1998. Over 12000000 loaves sold.</p>'),
      { outcome: 'fail' },
    ],
  ]);

  checkTable(localOpeningHours, [
    [
      'openingHours in schema',
      withBody(jsonLd({ ...bakery, openingHours: 'Mo-Sa 07:00-17:00' })),
      { outcome: 'pass' },
    ],
    [
      'openingHoursSpecification in schema',
      withBody(
        jsonLd({
          ...bakery,
          openingHoursSpecification: [{ '@type': 'OpeningHoursSpecification', opens: '07:00' }],
        }),
      ),
      { outcome: 'pass' },
    ],
    [
      'hours in the text',
      withBody('<p>Monday to Friday 9am - 5pm</p>'),
      { outcome: 'warn', message: /not in the structured data/ },
    ],
    ['an opening hours heading', withBody('<h2>Opening times</h2><p>Ring ahead.</p>'), { outcome: 'warn' }],
    ['none', withBody('<p>We bake bread.</p>'), { outcome: 'fail' }],
  ]);

  checkTable(localMapLink, [
    [
      'Google Maps link',
      withBody('<a href="https://www.google.com/maps/place/Leeds">Map</a>'),
      { outcome: 'pass' },
    ],
    [
      'short maps.app link',
      withBody('<a href="https://maps.app.goo.gl/abc">Directions</a>'),
      { outcome: 'pass' },
    ],
    [
      'embedded OpenStreetMap',
      withBody('<iframe title="map" src="https://www.openstreetmap.org/export/embed.html"></iframe>'),
      { outcome: 'pass' },
    ],
    [
      'geo in schema',
      withBody(jsonLd({ ...bakery, geo: { '@type': 'GeoCoordinates', latitude: 53.8, longitude: -1.5 } })),
      { outcome: 'pass', message: /Structured data/ },
    ],
    [
      'a link that merely mentions maps',
      withBody('<a href="https://example.test/maps-of-the-world">Maps</a>'),
      { outcome: 'fail' },
    ],
  ]);
});
