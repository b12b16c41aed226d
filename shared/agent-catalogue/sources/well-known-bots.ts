import { botToken } from '../unlisted.ts';
import { categoryFrom, type ListedAgent, operatorFrom, patternOf, tokenOfPattern } from './normalise.ts';

// arcjet's well-known-bots.json: [{ id, categories, pattern: { accepted, forbidden }, url,
// verification, instances: { accepted, rejected } }]. Entries tagged `ai` are AI agents; the rest
// are ordinary bots the classifier recognises by shape and are not catalogued (its `search-engine`
// tag also covers SEO crawlers, so classic search engines come from our own entries).

interface WellKnownBot {
  id: string;
  categories?: string[];
  pattern?: { accepted?: string[]; forbidden?: string[] };
  url?: string;
  instances?: { accepted?: string[] };
  aliases?: string[];
}

export function parseWellKnownBots(text: string, source = 'arcjet'): ListedAgent[] {
  const data = JSON.parse(text) as WellKnownBot[];
  if (!Array.isArray(data)) throw new Error('well-known-bots.json: expected an array of bots');
  const out: ListedAgent[] = [];
  for (const b of data) {
    const cats = b.categories ?? [];
    if (!cats.includes('ai')) continue;
    const accepted = b.pattern?.accepted ?? [];
    const pattern = patternOf(accepted);
    if (!pattern) continue;
    const examples = b.instances?.accepted ?? [];
    const token = tokenOfPattern(accepted[0] ?? '') ?? (examples[0] ? botToken(examples[0]) : null) ?? b.id;
    const { operator, platform } = operatorFrom(undefined, b.url);
    const purpose = cats.includes('search-engine') ? 'search' : 'training';
    out.push({
      token,
      aliases: [],
      operator,
      platform,
      purpose,
      ai: true,
      match: 'word',
      pattern,
      category: categoryFrom(cats.join(' '), purpose),
      source,
      examples,
    });
  }
  return out;
}
