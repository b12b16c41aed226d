import type { AgentInfo, AgentPurpose } from '../catalogue.ts';
import { OPERATORS, operatorOfBrand, operatorOfHost } from '../operators.ts';

// Shared steps of the list parsers: an operator's name and platform from what a list says about
// it, and the purpose a list's category or description states.

/** An entry parsed from a public list, with where it came from. */
export interface ListedAgent extends AgentInfo {
  /** Finer grouping as the list words it (AI data scraper, AI assistant, ...). */
  category: string;
  /** The list the facts came from (`ai.robots.txt`, `arcjet`, `crawler-user-agents`). */
  source: string;
  /** Example user agents the list gives. */
  examples: string[];
  /** The operator's page about the agent, when the list links one. */
  url?: string;
}

const hostOf = (url: string | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
};

/** Operator and platform from a list's operator text and/or its link; Unknown/Other when neither says. */
export function operatorFrom(text: string | undefined, url?: string): { operator: string; platform: string } {
  const viaHost = operatorOfHost(hostOf(url) ?? '');
  if (viaHost) return { operator: viaHost.operator, platform: viaHost.platform };
  // "Ai2, a non-profit AI research institute", "Meta/Facebook": the name is the first part.
  const name = (text ?? '').split(/[,(]/)[0]?.trim() ?? '';
  if (!name || /^(?:unclear|unknown|n\/a|https?:)/i.test(name))
    return { operator: 'Unknown', platform: 'Other' };
  const parts = [name, ...name.split('/')];
  const known =
    parts.map(operatorOfBrand).find(Boolean) ??
    OPERATORS.find((o) => parts.some((p) => o.operator.toLowerCase() === p.trim().toLowerCase())) ??
    OPERATORS.find((o) => name.toLowerCase().startsWith(`${o.operator.toLowerCase()} `));
  return known ? { operator: known.operator, platform: known.platform } : { operator: name, platform: name };
}

/** The purpose a category or description states. */
export function purposeFrom(text: string): AgentPurpose {
  if (/search/i.test(text)) return 'search';
  if (/assistant|\bagents?\b|user|fetch|on behalf|coding/i.test(text)) return 'browse';
  return 'training';
}

/**
 * The catalogue's category vocabulary (Dark Visitors' and ai.robots.txt's words): every entry gets
 * one of these, whatever wording its list used ("Scrapes data to train ...", "ai-crawler", tags).
 */
export const CATEGORIES = [
  'AI Data Scrapers',
  'AI Search Crawlers',
  'AI Assistants',
  'AI Agents',
  'AI Coding Agents',
  'Undocumented AI Agents',
  'Search Engine Crawlers',
] as const;
export type AgentCategory = (typeof CATEGORIES)[number];

const BY_PURPOSE: Record<AgentPurpose, AgentCategory> = {
  training: 'AI Data Scrapers',
  search: 'AI Search Crawlers',
  browse: 'AI Assistants',
  'search-engine': 'Search Engine Crawlers',
};

/** The category a list's wording states, else the one the agent's purpose implies. */
export function categoryFrom(text: string, purpose: AgentPurpose): AgentCategory {
  if (purpose === 'search-engine') return 'Search Engine Crawlers';
  if (/\bcod(?:e|ing)\b|copilot/i.test(text)) return 'AI Coding Agents';
  if (/undocumented|unclear|unknown/i.test(text)) return 'Undocumented AI Agents';
  if (/assistant|user[- ]initiated|on behalf|prompts?\b/i.test(text)) return 'AI Assistants';
  if (/\bagents?\b/i.test(text)) return 'AI Agents';
  if (/search/i.test(text)) return 'AI Search Crawlers';
  if (/scrap|train|\bllms?\b|language model|machine learning|dataset|data/i.test(text))
    return 'AI Data Scrapers';
  return BY_PURPOSE[purpose];
}

/** A list's regular expressions as one case-insensitive pattern, or undefined when one is invalid. */
export function patternOf(sources: readonly string[]): RegExp | undefined {
  if (sources.length === 0) return undefined;
  try {
    return new RegExp(sources.map((s) => `(?:${s})`).join('|'), 'i');
  } catch {
    return undefined;
  }
}

/** A readable token for a pattern: its literal text when it has no regex syntax beyond escapes. */
export function tokenOfPattern(pattern: string): string | null {
  const plain = pattern
    .replace(/^\^|\$$/g, '')
    .replace(/(?:\\\/|\\s|\/)$/, '')
    .replace(/\\([/.\-\s])/g, '$1');
  return /^[\w .-]+$/.test(plain) && plain.trim() ? plain.trim() : null;
}
