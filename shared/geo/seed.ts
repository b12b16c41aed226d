import * as cheerio from 'cheerio';

// Prompts suggested from a site's own content (GET .../seed-prompts): what a customer might ask
// an answer engine for which this site ought to be cited. Sources, in order: FAQ questions
// (FAQPage JSON-LD, question headings), products and services (JSON-LD Product / Service /
// Offer names), the page title and description, and the main headings. A suggestion never names
// the site itself: a prompt that names the brand tests nothing.

export type SeedSource = 'title' | 'heading' | 'product' | 'service' | 'faq' | 'description';

export interface SeedPrompt {
  prompt: string;
  label: string;
  source: SeedSource;
}

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

function jsonLdNodes(raw: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    out.push(o);
    for (const key of [
      '@graph',
      'mainEntity',
      'itemListElement',
      'item',
      'offers',
      'itemOffered',
      'hasOfferCatalog',
    ]) {
      if (key in o) walk(o[key]);
    }
  };
  try {
    walk(JSON.parse(raw));
  } catch {
    // A broken JSON-LD block suggests nothing.
  }
  return out;
}

const typesOf = (o: Record<string, unknown>) =>
  (Array.isArray(o['@type']) ? o['@type'] : [o['@type']]).filter((t): t is string => typeof t === 'string');

function stripBrand(text: string, brands: string[]): string {
  let t = text;
  for (const b of brands) {
    if (b.length < 3) continue;
    t = t.replace(new RegExp(b.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), ' ');
  }
  return clean(t.replace(/\s*[|–—·:-]\s*$/g, '').replace(/^\s*[|–—·:-]\s*/g, ''));
}

const label = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

export function seedPrompts(html: string, pageUrl: string, brand: string | null, max = 20): SeedPrompt[] {
  const $ = cheerio.load(html);
  const host = new URL(pageUrl).hostname.replace(/^www\./, '');
  const brands = [host, host.split('.')[0] ?? '', ...(brand ? [brand] : [])].filter(Boolean);
  const out: SeedPrompt[] = [];
  const seen = new Set<string>();
  const add = (prompt: string, lbl: string, source: SeedSource) => {
    const p = clean(prompt);
    const key = p.toLowerCase();
    if (p.length < 12 || p.length > 300 || seen.has(key)) return;
    seen.add(key);
    out.push({ prompt: p, label: label(clean(lbl)), source });
  };

  const nodes = $('script[type="application/ld+json"]')
    .toArray()
    .flatMap((el) => jsonLdNodes($(el).text()));
  for (const n of nodes) {
    const types = typesOf(n);
    const name = typeof n.name === 'string' ? stripBrand(n.name, brands) : '';
    if (types.includes('Question') && name) add(name.endsWith('?') ? name : `${name}?`, name, 'faq');
    else if (types.includes('Product') && name)
      add(`What is the best ${name} and where can I buy it?`, name, 'product');
    else if (types.includes('Service') && name) add(`Who offers the best ${name}?`, name, 'service');
  }
  $('h1, h2, h3, dt, summary').each((_, el) => {
    const t = stripBrand($(el).text(), brands);
    if (/\?$/.test(t)) add(t, t, 'faq');
  });

  const title = stripBrand($('title').first().text(), brands);
  if (title)
    add(`What are the best options for ${title.replace(/[.!]$/, '').toLowerCase()}?`, title, 'title');
  const desc = stripBrand($('meta[name="description"]').attr('content') ?? '', brands);
  if (desc && desc.split(' ').length >= 4) {
    const first = desc.split(/(?<=[.!?])\s/)[0]!.replace(/[.!]$/, '');
    add(`Which companies can help with this: ${first.toLowerCase()}?`, first, 'description');
  }
  $('h1, h2').each((_, el) => {
    const t = stripBrand($(el).text(), brands);
    if (!t || /\?$/.test(t) || t.split(' ').length < 2 || t.split(' ').length > 10) return;
    add(`What should I know about ${t.replace(/[.!:]$/, '').toLowerCase()}?`, t, 'heading');
  });
  return out.slice(0, max);
}
