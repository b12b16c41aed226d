import { parseCrawlerUserAgents } from './crawler-user-agents.ts';
import type { ListedAgent } from './normalise.ts';
import { parseRobotsJson } from './robots-json.ts';
import { parseWellKnownBots } from './well-known-bots.ts';

export type { ListedAgent } from './normalise.ts';

/** The public list formats the catalogue reads. */
export type ListFormat = 'robots-json' | 'well-known-bots' | 'crawler-user-agents';

/** Which format a list is in, from its shape. */
export function detectFormat(text: string): ListFormat {
  const data = JSON.parse(text) as unknown;
  const isObject = (v: unknown) => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
  // robots.json: every value describes the agent its key names.
  if (isObject(data) && Object.values(data as object).every(isObject)) return 'robots-json';
  if (Array.isArray(data) && data.length > 0 && data[0] && typeof data[0] === 'object') {
    const first = data[0] as Record<string, unknown>;
    if ('categories' in first || 'id' in first) return 'well-known-bots';
    if (typeof first.pattern === 'string') return 'crawler-user-agents';
  }
  throw new Error(
    'not a known agent list: expected robots.json, well-known-bots.json or crawler-user-agents JSON',
  );
}

/** The agents of a list in any of the known formats. */
export function parseList(text: string, source?: string): ListedAgent[] {
  switch (detectFormat(text)) {
    case 'robots-json':
      return parseRobotsJson(text, source);
    case 'well-known-bots':
      return parseWellKnownBots(text, source);
    case 'crawler-user-agents':
      return parseCrawlerUserAgents(text, source);
  }
}
