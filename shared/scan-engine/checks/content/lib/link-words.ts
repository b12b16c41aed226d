// The words a site uses for its privacy policy, terms, legal notice (imprint) and contact links,
// in the most used languages of the web (W3Techs' content-language ranking: English, Spanish,
// German, Japanese, French, Russian, Portuguese, Italian, Dutch, Polish, Turkish, Chinese,
// Persian, Vietnamese, Indonesian, Czech, Korean, Ukrainian, Arabic, Hungarian, Greek, Swedish,
// Romanian, Danish, Finnish, Norwegian, Hebrew, Slovak, Thai). Data, not regexes scattered over
// checks: every check that looks for one of these links asks `linkKind`.
//
// A word matches a short link text where a word starts: "datenschutz" matches
// "Datenschutzerklärung", "privatliv" matches "Privatlivspolitik". Words of four letters or fewer
// (abbreviations: AGB, AVG, RGPD) must stand alone. In an href only the last path segment counts
// (hyphens, underscores and dots read as spaces, the file extension dropped), the word must open
// it, and what follows must be a compound ("privatlivspolitik") or only words like "us", "policy"
// or "of service": /contact-us counts, /solution/contact-forms does not. Scripts without spaces (Chinese, Japanese, Thai) match anywhere in the text.
// Originality and attribution phrases (first-hand data, "according to") are given for the
// languages we have them for; elsewhere those content signals are reported as not assessed.

import { isEnglish } from './readability.ts';

export type LinkKind = 'privacy' | 'terms' | 'imprint' | 'contact';

export interface LanguageWords {
  /** BCP 47 primary language subtag. */
  lang: string;
  name: string;
  /** Country assumed for phone numbers written without +country code when the page gives none. */
  country?: string;
  privacy: string[];
  terms: string[];
  imprint: string[];
  contact: string[];
  /** First-hand material ("we surveyed", "our data"); lower case, matched at word starts. */
  originality?: string[];
  /** Attributed statements ("according to"). */
  attribution?: string[];
}

export const LANGUAGE_WORDS: readonly LanguageWords[] = [
  {
    lang: 'en',
    name: 'English',
    privacy: ['privacy', 'data protection', 'cookie policy', 'cookies policy', 'gdpr'],
    terms: ['terms', 'conditions', 'tos', 'eula', 'legal terms'],
    imprint: ['imprint', 'legal notice', 'legal information', 'company information', 'legal'],
    contact: ['contact', 'get in touch', 'enquir', 'inquir', 'support', 'help desk', 'helpdesk', 'reach us'],
    originality: [
      'we found',
      'we surveyed',
      'we tested',
      'we analysed',
      'we analyzed',
      'we measured',
      'we interviewed',
      'we studied',
      'we benchmarked',
      'our survey',
      'our study',
      'our research',
      'our data',
      'our analysis',
      'our test',
      'our benchmark',
      'our experience',
      'our findings',
      'our customers',
      'case study',
      'original research',
      'first-hand',
      'in our experience',
    ],
    attribution: [
      'according to',
      'as reported by',
      'cited by',
      'said',
      'says',
      'notes',
      'wrote',
      'study by',
      'study from',
      'report by',
      'report from',
      'survey by',
      'survey from',
      'research by',
      'research from',
    ],
  },
  {
    lang: 'es',
    name: 'Spanish',
    country: 'ES',
    privacy: ['privacidad', 'protección de datos', 'proteccion de datos', 'política de cookies'],
    terms: ['términos', 'terminos', 'condiciones'],
    imprint: ['aviso legal', 'información legal', 'nota legal'],
    contact: ['contacto', 'contáctenos', 'contactenos', 'contáctanos', 'contactanos'],
    originality: [
      'nuestro estudio',
      'nuestra encuesta',
      'nuestros datos',
      'nuestra investigación',
      'hemos analizado',
      'encuestamos',
      'analizamos',
      'medimos',
    ],
    attribution: ['según', 'de acuerdo con', 'afirma', 'afirmó', 'declaró', 'explica'],
  },
  {
    lang: 'de',
    name: 'German',
    country: 'DE',
    privacy: ['datenschutz', 'privatsphäre', 'dsgvo'],
    terms: ['agb', 'nutzungsbedingungen', 'geschäftsbedingungen', 'geschaeftsbedingungen', 'bedingungen'],
    imprint: ['impressum', 'rechtliche hinweise', 'anbieterkennzeichnung'],
    contact: ['kontakt', 'kontaktieren', 'anfrage'],
    originality: [
      'wir haben',
      'unsere studie',
      'unsere umfrage',
      'unsere daten',
      'unsere analyse',
      'unsere erfahrung',
      'eigene daten',
      'eigene erhebung',
      'wir befragten',
      'wir testeten',
      'fallstudie',
    ],
    attribution: ['laut', 'zufolge', 'sagt', 'sagte', 'erklärt', 'erklärte', 'berichtet'],
  },
  {
    lang: 'ja',
    name: 'Japanese',
    country: 'JP',
    privacy: ['プライバシー', '個人情報'],
    terms: ['利用規約', '規約', 'ご利用条件'],
    imprint: ['特定商取引法', '会社概要', '運営会社'],
    contact: ['お問い合わせ', 'お問合せ', '問い合わせ', '連絡先'],
  },
  {
    lang: 'fr',
    name: 'French',
    country: 'FR',
    privacy: [
      'confidentialité',
      'confidentialite',
      'données personnelles',
      'donnees personnelles',
      'vie privée',
      'rgpd',
      'cookies',
    ],
    terms: ['conditions', 'cgu', 'cgv'],
    imprint: ['mentions légales', 'mentions legales', 'informations légales'],
    contact: ['contact', 'nous contacter', 'contactez'],
    originality: [
      'notre étude',
      'notre enquête',
      'nos données',
      'notre analyse',
      'nous avons analysé',
      'nous avons mesuré',
      'nous avons interrogé',
      'étude de cas',
    ],
    attribution: ['selon', "d'après", 'affirme', 'déclare', 'a déclaré', 'explique'],
  },
  {
    lang: 'ru',
    name: 'Russian',
    country: 'RU',
    privacy: ['конфиденциальност', 'персональн'],
    terms: ['условия', 'соглашение', 'оферта'],
    imprint: ['правовая информация', 'реквизиты'],
    contact: ['контакт', 'связаться', 'обратная связь'],
  },
  {
    lang: 'pt',
    name: 'Portuguese',
    country: 'BR',
    privacy: ['privacidade', 'proteção de dados', 'protecao de dados', 'lgpd'],
    terms: ['termos', 'condições', 'condicoes'],
    imprint: ['aviso legal', 'informações legais', 'informacoes legais'],
    contact: ['contato', 'contacto', 'contactos', 'fale conosco', 'fale connosco'],
    originality: [
      'nosso estudo',
      'nossa pesquisa',
      'nossos dados',
      'nossa análise',
      'pesquisamos',
      'analisamos',
    ],
    attribution: ['segundo', 'de acordo com', 'afirma', 'afirmou', 'disse'],
  },
  {
    lang: 'it',
    name: 'Italian',
    country: 'IT',
    privacy: ['privacy', 'riservatezza', 'protezione dei dati', 'trattamento dei dati', 'cookie'],
    terms: ['termini', 'condizioni'],
    imprint: ['note legali', 'informazioni legali'],
    contact: ['contatti', 'contattaci', 'contatto'],
    originality: [
      'il nostro studio',
      'la nostra indagine',
      'i nostri dati',
      'la nostra analisi',
      'abbiamo analizzato',
      'abbiamo intervistato',
    ],
    attribution: ['secondo', 'afferma', 'ha dichiarato', 'spiega'],
  },
  {
    lang: 'nl',
    name: 'Dutch',
    country: 'NL',
    privacy: ['privacy', 'gegevensbescherming', 'avg', 'cookiebeleid'],
    terms: ['voorwaarden', 'gebruiksvoorwaarden'],
    imprint: ['colofon', 'juridische informatie', 'disclaimer'],
    contact: ['contact', 'neem contact'],
    originality: [
      'ons onderzoek',
      'onze enquête',
      'onze data',
      'onze gegevens',
      'onze analyse',
      'wij onderzochten',
      'we onderzochten',
    ],
    attribution: ['volgens', 'zegt', 'zei', 'aldus'],
  },
  {
    lang: 'pl',
    name: 'Polish',
    country: 'PL',
    privacy: ['prywatnoś', 'prywatnos', 'ochrona danych', 'ochrony danych', 'rodo', 'cookies'],
    terms: ['regulamin', 'warunki'],
    imprint: ['nota prawna', 'informacje prawne'],
    contact: ['kontakt'],
  },
  {
    lang: 'tr',
    name: 'Turkish',
    country: 'TR',
    privacy: ['gizlilik', 'kişisel veri', 'kisisel veri', 'kvkk', 'çerez politikası'],
    terms: ['şartlar', 'sartlar', 'koşullar', 'kosullar', 'sözleşme'],
    imprint: ['yasal uyarı', 'künye'],
    contact: ['iletişim', 'iletisim', 'bize ulaşın'],
  },
  {
    lang: 'zh',
    name: 'Chinese',
    country: 'CN',
    privacy: ['隐私', '隱私', '个人信息', '個人資料'],
    terms: ['条款', '條款', '服务协议', '用户协议'],
    imprint: ['法律声明', '法律聲明'],
    contact: ['联系', '聯繫', '聯絡'],
  },
  {
    lang: 'fa',
    name: 'Persian',
    country: 'IR',
    privacy: ['حریم خصوصی'],
    terms: ['قوانین', 'شرایط'],
    imprint: ['اطلاعات حقوقی'],
    contact: ['تماس'],
  },
  {
    lang: 'vi',
    name: 'Vietnamese',
    country: 'VN',
    privacy: ['quyền riêng tư', 'bảo mật'],
    terms: ['điều khoản'],
    imprint: ['thông tin pháp lý'],
    contact: ['liên hệ'],
  },
  {
    lang: 'id',
    name: 'Indonesian',
    country: 'ID',
    privacy: ['privasi', 'kebijakan privasi'],
    terms: ['syarat', 'ketentuan'],
    imprint: ['informasi hukum'],
    contact: ['kontak', 'hubungi'],
  },
  {
    lang: 'cs',
    name: 'Czech',
    country: 'CZ',
    privacy: [
      'ochrana osobních údajů',
      'ochrana osobních',
      'ochrany osobních',
      'osobních údajů',
      'soukromí',
      'gdpr',
      'cookies',
    ],
    terms: ['podmínky', 'podminky'],
    imprint: ['právní informace', 'pravni informace'],
    contact: ['kontakt'],
  },
  {
    lang: 'ko',
    name: 'Korean',
    country: 'KR',
    privacy: ['개인정보', '프라이버시'],
    terms: ['이용약관', '약관'],
    imprint: ['사업자정보', '법적 고지'],
    contact: ['문의', '연락처'],
  },
  {
    lang: 'uk',
    name: 'Ukrainian',
    country: 'UA',
    privacy: ['конфіденційн', 'персональн'],
    terms: ['умови', 'угода', 'оферта'],
    imprint: ['правова інформація'],
    contact: ['контакт', "зв'язатися", 'звʼязатися'],
  },
  {
    lang: 'ar',
    name: 'Arabic',
    country: 'SA',
    privacy: ['الخصوصية'],
    terms: ['الشروط', 'شروط'],
    imprint: ['إشعار قانوني'],
    contact: ['اتصل', 'تواصل'],
  },
  {
    lang: 'hu',
    name: 'Hungarian',
    country: 'HU',
    privacy: ['adatvédelem', 'adatvédelm', 'adatkezelés'],
    terms: ['feltételek', 'feltetelek', 'ászf', 'aszf'],
    imprint: ['impresszum', 'jogi nyilatkozat'],
    contact: ['kapcsolat', 'elérhetőség', 'elerhetoseg'],
  },
  {
    lang: 'el',
    name: 'Greek',
    country: 'GR',
    privacy: ['απόρρητ', 'προσωπικά δεδομένα', 'προστασία δεδομένων'],
    terms: ['όροι', 'όρους'],
    imprint: ['νομική σημείωση'],
    contact: ['επικοινωνία', 'επικοινωνήστε'],
  },
  {
    lang: 'sv',
    name: 'Swedish',
    country: 'SE',
    privacy: ['integritet', 'personuppgift', 'dataskydd', 'cookiepolicy'],
    terms: ['villkor', 'användarvillkor'],
    imprint: ['juridisk information'],
    contact: ['kontakt', 'kontakta oss'],
    originality: ['vår undersökning', 'vår studie', 'våra data', 'vår analys', 'vi undersökte', 'vi mätte'],
    attribution: ['enligt', 'säger', 'sa'],
  },
  {
    lang: 'ro',
    name: 'Romanian',
    country: 'RO',
    privacy: ['confidențialitate', 'confidentialitate', 'protecția datelor', 'protectia datelor', 'gdpr'],
    terms: ['termeni', 'condiții', 'conditii'],
    imprint: ['informații legale', 'informatii legale'],
    contact: ['contact', 'contactați', 'contactati'],
  },
  {
    lang: 'da',
    name: 'Danish',
    country: 'DK',
    privacy: ['privatliv', 'persondata', 'databeskyttelse', 'cookiepolitik', 'fortrolighed'],
    terms: ['vilkår', 'vilkaar', 'betingelser', 'handelsbetingelser'],
    imprint: ['kolofon', 'juridisk information'],
    contact: ['kontakt', 'kontakt os'],
    originality: [
      'vores undersøgelse',
      'vores data',
      'vores analyse',
      'vores erfaring',
      'vi har undersøgt',
      'vi har målt',
      'vi har testet',
      'vi undersøgte',
      'vi målte',
      'egne tal',
      'egne data',
      'egen undersøgelse',
    ],
    attribution: ['ifølge', 'siger', 'sagde', 'fortæller', 'udtaler'],
  },
  {
    lang: 'fi',
    name: 'Finnish',
    country: 'FI',
    privacy: ['tietosuoja', 'yksityisyy', 'evästeet'],
    terms: ['ehdot', 'käyttöehdot', 'kayttoehdot', 'toimitusehdot'],
    imprint: ['oikeudellinen huomautus'],
    contact: ['yhteystiedot', 'ota yhteyttä', 'yhteydenotto'],
  },
  {
    lang: 'no',
    name: 'Norwegian',
    country: 'NO',
    privacy: ['personvern', 'informasjonskapsler'],
    terms: ['vilkår', 'betingelser'],
    imprint: ['juridisk informasjon'],
    contact: ['kontakt', 'kontakt oss'],
    originality: ['vår undersøkelse', 'våre data', 'vår analyse', 'vi undersøkte', 'vi målte'],
    attribution: ['ifølge', 'sier', 'sa'],
  },
  {
    lang: 'he',
    name: 'Hebrew',
    country: 'IL',
    privacy: ['פרטיות'],
    terms: ['תנאי שימוש', 'תקנון'],
    imprint: ['מידע משפטי'],
    contact: ['צור קשר', 'צרו קשר'],
  },
  {
    lang: 'sk',
    name: 'Slovak',
    country: 'SK',
    privacy: ['ochrana osobných', 'ochrana osobnych', 'súkromie', 'gdpr'],
    terms: ['podmienky'],
    imprint: ['právne informácie'],
    contact: ['kontakt'],
  },
  {
    lang: 'th',
    name: 'Thai',
    country: 'TH',
    privacy: ['ความเป็นส่วนตัว', 'ข้อมูลส่วนบุคคล'],
    terms: ['ข้อกำหนด', 'เงื่อนไข'],
    imprint: ['ข้อมูลทางกฎหมาย'],
    contact: ['ติดต่อ'],
  },
];

/**
 * The language a page's text is in: its lang attribute's primary subtag, else "en" when the text
 * reads as English (function-word share), else null (unknown).
 */
export function pageLanguage(langAttr: string | null, text: string): string | null {
  const l = primaryLang(langAttr);
  if (l) return l;
  return isEnglish(text, null) ? 'en' : null;
}

/** Norwegian Bokmål and Nynorsk share the `no` list. */
const ALIASES: Record<string, string> = { nb: 'no', nn: 'no', iw: 'he', in: 'id' };

const byLang = new Map(LANGUAGE_WORDS.map((l) => [l.lang, l]));

/** The primary language subtag of a BCP 47 tag ("da-DK" -> "da"), lower case; null for none. */
export function primaryLang(tag: string | null | undefined): string | null {
  const m = /^([a-z]{2,3})(?:[-_]|$)/i.exec(tag?.trim() ?? '');
  if (!m) return null;
  const l = m[1]!.toLowerCase();
  return ALIASES[l] ?? l;
}

export function languageWords(tag: string | null | undefined): LanguageWords | undefined {
  const l = primaryLang(tag);
  return l ? byLang.get(l) : undefined;
}

/** Country for phone numbers: the tag's region ("de-AT" -> AT), else the language's usual one. */
export function defaultCountry(tag: string | null | undefined): string | undefined {
  const region = /^[a-z]{2,3}[-_]([a-z]{2})(?:[-_]|$)/i.exec(tag?.trim() ?? '')?.[1];
  if (region) return region.toUpperCase();
  return languageWords(tag)?.country;
}

const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Hangul}]/u;

/** Lower case without diacritics, so "Confidentialité", "confidentialite" and "İletişim" match their words. */
export const fold = (s: string) =>
  // ASCII has no combining marks and is its own NFD form: most link texts, hrefs and English prose.
  PRINTABLE_ASCII.test(s) ? s.toLowerCase() : s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const PRINTABLE_ASCII = /^[\t\n\v\f\r -~]*$/;

function compile(list: readonly string[]): RegExp | null {
  if (list.length === 0) return null;
  // Longest first: the alternation takes the first that matches, and "ochrana osobnich udaju" should win over "ochrana osobnich".
  list = [...new Set(list.map(fold))].sort((a, b) => b.length - a.length);
  const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s\\-_.]+');
  const parts = list.map((w) => {
    if (NO_SPACES.test(w)) return esc(w);
    const start = '(?<![\\p{L}\\p{M}\\p{N}])';
    return w.length <= 4 ? `${start}${esc(w)}(?![\\p{L}\\p{M}])` : `${start}${esc(w)}`;
  });
  return new RegExp(`(?:${parts.join('|')})`, 'iu');
}

const KINDS: LinkKind[] = ['privacy', 'terms', 'imprint', 'contact'];
/** Every language's words for a kind: a Danish shop's English "Privacy" link counts as well. */
const ALL_WORDS: Record<LinkKind, RegExp> = Object.fromEntries(
  KINDS.map((k) => [k, compile(LANGUAGE_WORDS.flatMap((l) => l[k]))!]),
) as Record<LinkKind, RegExp>;

/** Words that may stand before a link word in a path segment: /politique-de-confidentialite, /our-privacy-policy. */
const LEAD = new Set(
  'our the de da do di del des du la le of and general website site data cookie politique politica polityka politika zasady kebijakan chinh sach aviso avviso nota informativa sulla declaracion dichiarazione allgemeine'.split(
    ' ',
  ),
);
/** Words that may follow it: /contact-us, /privacy-policy, /terms-of-service, /gizlilik-politikasi. */
const FOLLOW = new Set(
  'us os oss uns me nous page policy policies notice statement statements information info and of for the use service services conditions terms center centre form erklaerung hinweise politik politika politikasi politica beleid verklaring sozlesmesi bildirimi os ons oss meg mig'.split(
    ' ',
  ),
);

// The contact and privacy checks each ask about every link of the page: segments are kept per href.
const segments = new Map<string, string>();

/** The last path segment of an href, decoded, with - _ . + as spaces and no file extension. */
function hrefSegment(href: string): string {
  let seg = segments.get(href);
  if (seg === undefined) {
    if (segments.size >= 5_000) segments.clear();
    seg = readHrefSegment(href);
    segments.set(href, seg);
  }
  return seg;
}

function readHrefSegment(href: string): string {
  const path = href
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .replace(/\.(?:s?html?|php\d?|aspx?|jsp|cfm)$/i, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  let decoded = last;
  try {
    decoded = decodeURIComponent(last);
  } catch {}
  return fold(decoded.replace(/[-_.+]+/g, ' ').trim());
}

const allIn = (set: ReadonlySet<string>, s: string) =>
  s
    .trim()
    .split(/\s+/)
    .every((w) => w === '' || set.has(w) || /^\d+$/.test(w));

function hrefIs(kind: LinkKind, href: string): boolean {
  const seg = hrefSegment(href);
  const m = ALL_WORDS[kind].exec(seg);
  if (!m || !allIn(LEAD, seg.slice(0, m.index))) return false;
  const rest = seg.slice(m.index + m[0].length);
  if (rest === '' || /^[\p{L}\p{M}]/u.test(rest)) return true; // the whole segment, or a compound
  return allIn(FOLLOW, rest);
}

/**
 * Whether a link is a `kind` link, by its text (short texts only: a sentence that mentions privacy
 * is not a privacy link) or by the last segment of its path.
 */
export function isLinkOfKind(kind: LinkKind, text: string, href: string | undefined): boolean {
  // A site's navigation and footer links recur on every page it has: answers are kept per link,
  // like the segments (the words' alternation over 30 languages is most of the cost).
  if (text.length > 200) return readLinkKind(kind, text, href);
  const key = `${kind}\u0000${text}\u0000${href ?? '\u0001'}`;
  let is = linkKinds.get(key);
  if (is === undefined) {
    if (linkKinds.size >= 10_000) linkKinds.clear();
    is = readLinkKind(kind, text, href);
    linkKinds.set(key, is);
  }
  return is;
}
const linkKinds = new Map<string, boolean>();

function readLinkKind(kind: LinkKind, text: string, href: string | undefined): boolean {
  const re = ALL_WORDS[kind];
  const t = fold(text.replace(/\s+/g, ' ').trim());
  if (t.length > 0 && t.length <= 40 && re.test(t)) return true;
  return href !== undefined && !/^(mailto|tel|javascript):/i.test(href) && hrefIs(kind, href);
}

const phraseCache = new Map<string, RegExp | null>();
/**
 * The page language's phrases for a content signal, compiled; null when we have no list for the
 * language (the signal is then "not assessed", not failed).
 */
export function phrasesFor(kind: 'originality' | 'attribution', lang: string): RegExp | null {
  const key = `${kind}:${lang}`;
  if (phraseCache.has(key)) return phraseCache.get(key)!;
  const list = byLang.get(lang)?.[kind];
  const re = list ? compile(list) : null;
  // Callers fold the text they test (see `fold`).
  phraseCache.set(key, re);
  return re;
}
