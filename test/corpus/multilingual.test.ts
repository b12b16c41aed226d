import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../shared/scan-engine/artifacts.ts';
import {
  isLinkOfKind,
  LANGUAGE_WORDS,
  type LinkKind,
} from '../../shared/scan-engine/checks/content/lib/link-words.ts';
import { checksById } from '../../shared/scan-engine/checks/index.ts';
import { emailsInText, phoneCountries, phonesInText } from '../../shared/scan-engine/computed/contact.ts';
import { runCheck } from '../../shared/scan-engine/engine.ts';
import { htmlPage } from '../helpers/artifact-factory.ts';

// Issue 14, English- and markup-bound heuristics: a footer with a phone number and an email in
// plain text, a privacy link in Danish and a Danish page's first-hand data must all be seen; the
// link words cover the web's most used languages; language-bound checks say when they do not apply.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');

function run(id: string, html: string, url = 'https://bagerietpaahjoernet.dk/') {
  const artifacts: ArtifactSet = { Page: htmlPage(html, { requestedUrl: url, finalUrl: url }) };
  return runCheck(checksById.get(id)!, artifacts);
}

const danish = readFileSync(path.resolve('test/fixtures/pages/da-bakery.html'), 'utf8');

describe('a Danish bakery page (fixture): contact, privacy and first-hand data are seen', () => {
  it('phone and email written in the footer text are a way to get in touch', () => {
    const r = run('conversion-contact', danish);
    assert.equal(r.outcome, 'pass', r.message);
    assert.match(r.message, /email address/);
    assert.match(r.message, /phone number/);
  });
  it('"Privatlivspolitik" is a privacy policy link', () => {
    const r = run('conversion-trust', danish);
    assert.doesNotMatch(r.message, /no privacy policy link/, r.message);
  });
  it('"Vores egen undersøgelse" earns first-hand data credit', () => {
    const r = run('citability-uniqueness', danish);
    assert.equal(
      r.outcome === 'not_applicable' ? null : (r as { evidence?: { original?: boolean } }).evidence?.original,
      true,
      r.message,
    );
    assert.doesNotMatch(r.message, /first-hand/);
  });
  it('the local check finds the phone number and the address', () => {
    const r = run('local-contact-details', danish);
    assert.equal(r.outcome, 'pass', r.message);
  });
  it('English-only readability says it does not apply to a Danish page', () => {
    const r = run('content-readability', danish);
    assert.equal(r.outcome, 'not_applicable');
    assert.match(r.message, /English/);
  });
  it('a page in a language without phrase lists: first-hand data is "not assessed", not missing', () => {
    const r = run('citability-uniqueness', danish.replace('lang="da"', 'lang="ja"'));
    assert.match(r.message, /first-hand data not assessed/);
    assert.doesNotMatch(r.message, /Missing first-hand/);
  });
});

describe('link words: data for at least 20 languages, each with every kind', () => {
  it('covers >= 20 languages, each with privacy, terms, imprint and contact words', () => {
    assert.ok(LANGUAGE_WORDS.length >= 20, `${LANGUAGE_WORDS.length} languages`);
    for (const l of LANGUAGE_WORDS)
      for (const k of ['privacy', 'terms', 'imprint', 'contact'] as const)
        assert.ok(l[k].length > 0, `${l.lang} has ${k} words`);
  });
  // Real link texts and paths as sites write them.
  const cases: [LinkKind, string, string][] = [
    ['privacy', 'Privatlivspolitik', '/privatlivspolitik'],
    ['privacy', 'Datenschutzerklärung', '/datenschutz/'],
    ['privacy', 'Politique de confidentialité', '/politique-de-confidentialite'],
    ['privacy', 'Aviso de privacidad', '/aviso-de-privacidad'],
    ['privacy', 'Informativa sulla privacy', '/privacy-policy'],
    ['privacy', 'Política de Privacidade', '/politica-de-privacidade'],
    ['privacy', 'Privacyverklaring', '/privacyverklaring'],
    ['privacy', 'Polityka prywatności', '/polityka-prywatnosci'],
    ['privacy', 'Gizlilik Politikası', '/gizlilik-politikasi'],
    ['privacy', 'Политика конфиденциальности', '/privacy'],
    ['privacy', 'プライバシーポリシー', '/privacy/'],
    ['privacy', '隐私政策', '/privacy'],
    ['privacy', '개인정보처리방침', '/privacy'],
    ['privacy', 'Integritetspolicy', '/integritetspolicy'],
    ['privacy', 'Personvernerklæring', '/personvern'],
    ['privacy', 'Tietosuojaseloste', '/tietosuoja'],
    ['privacy', 'Zásady ochrany osobních údajů', '/ochrana-osobnich-udaju'],
    ['privacy', 'Adatvédelmi tájékoztató', '/adatvedelem'],
    ['privacy', 'سياسة الخصوصية', '/privacy'],
    ['privacy', 'מדיניות פרטיות', '/privacy'],
    ['privacy', 'Politica de confidențialitate', '/confidentialitate'],
    ['privacy', 'Πολιτική απορρήτου', '/privacy'],
    ['privacy', 'Chính sách bảo mật', '/chinh-sach-bao-mat'],
    ['privacy', 'Kebijakan Privasi', '/kebijakan-privasi'],
    ['terms', 'AGB', '/agb'],
    ['terms', 'Handelsbetingelser', '/handelsbetingelser'],
    ['terms', 'Conditions générales de vente', '/cgv'],
    ['terms', '利用規約', '/terms'],
    ['imprint', 'Impressum', '/impressum'],
    ['imprint', 'Mentions légales', '/mentions-legales'],
    ['imprint', 'Aviso legal', '/aviso-legal'],
    ['contact', 'Kontakt os', '/kontakt'],
    ['contact', 'Contáctenos', '/contacto'],
    ['contact', 'Contatti', '/contatti'],
    ['contact', 'お問い合わせ', '/contact/'],
    ['contact', 'İletişim', '/iletisim'],
    ['contact', 'Связаться с нами', '/contacts'],
    ['contact', 'Liên hệ', '/lien-he'],
    ['contact', 'צור קשר', '/contact-us'],
  ];
  for (const [kind, text, href] of cases) {
    it(`${kind}: "${text}" and ${href}`, () => {
      assert.ok(isLinkOfKind(kind, text, '#'), `text ${text}`);
      assert.ok(isLinkOfKind(kind, '', href), `href ${href}`);
    });
  }
  it('does not take look-alikes for links of a kind', () => {
    assert.equal(
      isLinkOfKind('contact', 'https://vendor.test/solution/contact-forms', '/solution/contact-forms'),
      false,
    );
    assert.equal(
      isLinkOfKind(
        'terms',
        'Read our long article about the terms people use when they talk about bread',
        '/blog/bread',
      ),
      false,
    );
    assert.equal(isLinkOfKind('terms', 'Agbada styles', '/agbada'), false);
    assert.equal(isLinkOfKind('privacy', 'Blog', '/blog/privacy-tools-we-love-in-2026'), false);
  });
});

describe('contact data in text', () => {
  it('phone numbers in national format are read in the page country; prices, years and ids are not', () => {
    const text = 'Tlf. 86 12 34 56 · CVR 12345678 · Priser fra 2.495 kr. · Siden 2011 · Åbent 7-17';
    assert.deepEqual(phonesInText(text, phoneCountries('da', 'https://x.dk/')), ['+4586123456']);
    assert.deepEqual(phonesInText('Call us on (415) 555-0132', phoneCountries(null, 'https://x.com/')), [
      '+14155550132',
    ]);
    assert.deepEqual(phonesInText('Order 2024-11-24, total 1,299.00, SKU 4006381333931', ['US', 'GB']), []);
  });
  it('emails in text, including "[at]"; image file names are not emails', () => {
    assert.deepEqual(emailsInText('Skriv til hej@bagerietpaahjoernet.dk'), ['hej@bagerietpaahjoernet.dk']);
    assert.equal(emailsInText('info [at] example.org').length, 1);
    assert.deepEqual(emailsInText('<img src="logo@2x.png">'), []);
  });
});

describe('corpus pages keep their verdicts', { skip: !existsSync(SITES) && 'no corpus' }, () => {
  it('the startbootstrap landing page (footer links, no contact data) is still judged on what it has', () => {
    const html = readFileSync(path.join(SITES, 'startbootstrap-landing-page/index.html'), 'utf8');
    const r = run('conversion-contact', html, 'http://127.0.0.1/startbootstrap-landing-page/index.html');
    assert.match(r.message, /contact page link|get in touch|No way/);
  });
  it('underscorejs.org (English docs, no lang): readability applies', () => {
    const html = readFileSync(path.join(SITES, 'underscorejs-org/index.html'), 'utf8');
    const r = run('content-readability', html, 'http://127.0.0.1/underscorejs-org/');
    assert.notEqual(r.outcome, 'not_applicable', r.message);
  });
});
