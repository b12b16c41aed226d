import { categoryFrom, type ListedAgent, operatorFrom, purposeFrom } from './normalise.ts';

// ai.robots.txt's robots.json: { token: { operator, respect, function, frequency, description } }.
// Every entry is an AI agent; `operator` is text or a markdown link, `function` its category.

interface RobotsJsonEntry {
  operator?: string;
  function?: string;
  description?: string;
}

const LINK = /\[([^\]]+)\]\(([^)]+)\)/;

export function parseRobotsJson(text: string, source = 'ai.robots.txt'): ListedAgent[] {
  const data = JSON.parse(text) as Record<string, RobotsJsonEntry>;
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new Error('robots.json: expected an object of agents');
  return Object.entries(data).map(([token, e]) => {
    const link = LINK.exec(e.operator ?? '');
    const { operator, platform } = operatorFrom(link?.[1] ?? e.operator, link?.[2]);
    const wording = e.function ?? '';
    const purpose = purposeFrom(wording);
    return {
      token,
      aliases: [],
      operator,
      platform,
      purpose,
      ai: true,
      match: 'word',
      category: categoryFrom(wording, purpose),
      source,
      examples: [],
      ...(link?.[2] ? { url: link[2] } : {}),
    };
  });
}
