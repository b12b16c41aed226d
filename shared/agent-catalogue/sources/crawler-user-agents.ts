import { botToken } from '../unlisted.ts';
import {
  categoryFrom,
  type ListedAgent,
  operatorFrom,
  patternOf,
  purposeFrom,
  tokenOfPattern,
} from './normalise.ts';

// monperrus/crawler-user-agents' JSON: [{ pattern, url, instances, description, tags }]. Entries
// tagged `ai-crawler` are AI agents; the rest are ordinary bots and are not catalogued.

interface CrawlerPattern {
  pattern: string;
  url?: string;
  instances?: string[];
  description?: string;
  tags?: string[];
}

export function parseCrawlerUserAgents(text: string, source = 'crawler-user-agents'): ListedAgent[] {
  const data = JSON.parse(text) as CrawlerPattern[];
  if (!Array.isArray(data)) throw new Error('crawler-user-agents.json: expected an array of patterns');
  const out: ListedAgent[] = [];
  for (const p of data) {
    if (!p.tags?.includes('ai-crawler') || typeof p.pattern !== 'string') continue;
    const pattern = patternOf([p.pattern]);
    if (!pattern) continue;
    const examples = p.instances ?? [];
    const token = tokenOfPattern(p.pattern) ?? (examples[0] ? botToken(examples[0]) : null) ?? p.pattern;
    const { operator, platform } = operatorFrom(undefined, p.url);
    const purpose = p.tags.includes('search-engine') ? 'search' : purposeFrom(p.description ?? '');
    out.push({
      token,
      aliases: [],
      operator,
      platform,
      purpose,
      ai: true,
      match: 'word',
      pattern,
      category: categoryFrom(`${p.description ?? ''} ${p.tags.join(' ')}`, purpose),
      source,
      examples,
    });
  }
  return out;
}
