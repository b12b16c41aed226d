import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSnapshot } from '../../../shared/agent-catalogue/snapshot.ts';
import { CATEGORIES, categoryFrom } from '../../../shared/agent-catalogue/sources/normalise.ts';

// Every catalogue entry has one category of one vocabulary, whatever wording its list used.

describe('agent categories', () => {
  it('reads the category a list states in its own words', () => {
    const cases: [string, Parameters<typeof categoryFrom>[1], string][] = [
      ["Scrapes data to train OpenAI's products.", 'training', 'AI Data Scrapers'],
      ['Search result generation.', 'search', 'AI Search Crawlers'],
      ['Retrieves data to provide responses to user-initiated prompts.', 'browse', 'AI Assistants'],
      ['AI Agents', 'browse', 'AI Agents'],
      ['Autonomous coding agent', 'browse', 'AI Coding Agents'],
      ['Unclear at this time.', 'training', 'Undocumented AI Agents'],
      ['ai ai-crawler', 'training', 'AI Data Scrapers'],
      ['', 'search', 'AI Search Crawlers'],
      ['', 'browse', 'AI Assistants'],
      ['anything at all', 'search-engine', 'Search Engine Crawlers'],
    ];
    for (const [text, purpose, want] of cases) assert.equal(categoryFrom(text, purpose), want, text);
  });

  it('gives every entry of a built snapshot a category of the vocabulary', () => {
    const list = JSON.stringify({
      NewBot: { operator: 'Acme', function: 'Scrapes data.' },
      HelperBot: { operator: 'Acme', function: 'Acts on behalf of users' },
    });
    const snapshot = buildSnapshot([{ name: 'ai.robots.txt', text: list }], { date: '2026-11-28' });
    for (const a of snapshot.agents)
      assert.ok(CATEGORIES.includes(a.category as never), `${a.token}: ${a.category}`);
    const by = (t: string) => snapshot.agents.find((a) => a.token === t)?.category;
    assert.equal(by('NewBot'), 'AI Data Scrapers');
    assert.equal(by('HelperBot'), 'AI Assistants');
  });
});
