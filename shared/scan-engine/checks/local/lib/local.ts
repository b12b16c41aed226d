import type { CheerioAPI } from 'cheerio';
import { phoneCountries, phonesInText } from '../../../computed/contact.ts';
import { htmlLang } from '../../content/lib/page.ts';
import { type JsonLdNode, type StructuredData, typesOf } from '../../seo/lib/structured-data.ts';

// What the local checks share: schema.org's LocalBusiness family and how contact details show on
// a page. Google's local-business guidelines ask for the specific subtype where one fits, so the
// common subtypes count as LocalBusiness here.

export const LOCAL_TYPES: ReadonlySet<string> = new Set([
  'LocalBusiness',
  'AccountingService',
  'Attorney',
  'AutoRepair',
  'AutomotiveBusiness',
  'Bakery',
  'BarOrPub',
  'BeautySalon',
  'CafeOrCoffeeShop',
  'ChildCare',
  'ClothingStore',
  'DaySpa',
  'Dentist',
  'DryCleaningOrLaundry',
  'Electrician',
  'EntertainmentBusiness',
  'ExerciseGym',
  'FinancialService',
  'Florist',
  'FoodEstablishment',
  'GeneralContractor',
  'GroceryStore',
  'HairSalon',
  'HardwareStore',
  'HealthAndBeautyBusiness',
  'HomeAndConstructionBusiness',
  'Hotel',
  'HVACBusiness',
  'InsuranceAgency',
  'LegalService',
  'Locksmith',
  'LodgingBusiness',
  'MedicalBusiness',
  'MedicalClinic',
  'Optician',
  'PetStore',
  'Pharmacy',
  'Physician',
  'Plumber',
  'ProfessionalService',
  'RealEstateAgent',
  'Restaurant',
  'RoofingContractor',
  'SportsActivityLocation',
  'Store',
  'TravelAgency',
  'VeterinaryCare',
]);

/** The first LocalBusiness-family node of the page's JSON-LD. */
export function localBusinessNode(data: StructuredData): JsonLdNode | undefined {
  return data.nodes.find((n) => typesOf(n).some((t) => LOCAL_TYPES.has(t)));
}

export const hasValue = (v: unknown): boolean =>
  typeof v === 'string'
    ? v.trim() !== ''
    : Array.isArray(v)
      ? v.length > 0
      : typeof v === 'object' && v !== null;

/** Any JSON-LD node carrying this property (e.g. a PostalAddress nested in an Organization). */
export function anyNodeHas(data: StructuredData, prop: string): boolean {
  return data.nodes.some((n) => hasValue(n[prop]));
}

// A number introduced as a phone number; bare digit runs (dates, prices, ids) do not count.
const PHONE_IN_TEXT = /(?:tel|phone|call|telephone|mobile)\b[^0-9+\n]{0,20}[+(]?\d[\d\s().-]{6,}\d/i;
// Postal codes that identify an address on their own: UK postcodes, US state + ZIP, and the
// "12345 City" form used across continental Europe.
const POSTCODES = [
  /\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b/,
  /\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b/,
  /\b\d{4,5}\s+[A-ZÄÖÜÉ][a-zäöüéèß]+/,
];

/** A tel: link, a number introduced as a phone number, or any valid number of the page's country. */
export function visiblePhone($: CheerioAPI, text: string, pageUrl: string): boolean {
  return (
    $('a[href^="tel:" i]').length > 0 ||
    PHONE_IN_TEXT.test(text) ||
    phonesInText(text, phoneCountries(htmlLang($), pageUrl)).length > 0
  );
}

export function visibleAddress($: CheerioAPI, text: string): boolean {
  const address = $('address').text().trim();
  return address !== '' || POSTCODES.some((re) => re.test(text));
}
