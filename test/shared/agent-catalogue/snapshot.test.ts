import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENTS, type AgentInfo } from '../../../shared/agent-catalogue/catalogue.ts';
import { CATALOGUE_IN_USE, createClassifier } from '../../../shared/agent-catalogue/classify.ts';
import { buildSnapshot, OWN_SOURCE, readSnapshot } from '../../../shared/agent-catalogue/snapshot.ts';

// The shipped snapshot: public lists merged under our own entries, with provenance and dates.
// Small lists in each format stand in for the real ones (the corpus tests use those).

const robotsJson = JSON.stringify({
  GPTBot: { operator: '[OpenAI](https://openai.com)', function: 'AI Data Scrapers' },
  Zeebot: { operator: 'Unclear at this time.', function: 'AI Search Crawlers' },
});
const wellKnown = JSON.stringify([
  {
    id: 'quokka',
    categories: ['ai'],
    pattern: { accepted: ['Quokka-Fetch\\/'], forbidden: [] },
    url: 'https://quokka.example.org/bot',
    instances: { accepted: ['Quokka-Fetch/2.0 (+https://quokka.example.org/bot)'] },
  },
  {
    id: 'plain',
    categories: ['monitor'],
    pattern: { accepted: ['PlainMonitor'] },
    instances: { accepted: [] },
  },
]);
const crawlerUserAgents = JSON.stringify([
  { pattern: 'Zeebot', tags: ['ai-crawler'], instances: ['Zeebot/1.0'] },
  { pattern: 'SeoThing', tags: ['seo'], instances: [] },
]);
const lists = [
  { name: 'ai.robots.txt', text: robotsJson },
  { name: 'arcjet', text: wellKnown },
  { name: 'crawler-user-agents', text: crawlerUserAgents },
];

describe('catalogue snapshot', () => {
  it('merges lists under our own entries, keeping every source', () => {
    const s = buildSnapshot(lists, { date: '2026-11-01' });
    const gpt = s.agents.find((a) => a.token === 'GPTBot');
    assert.deepEqual(gpt?.sources, [OWN_SOURCE, 'ai.robots.txt']);
    assert.equal(gpt?.category, 'AI Data Scrapers', 'a list fills a category ours lacks');
    assert.equal(gpt?.verification.ipRanges, 'openai-gptbot', 'our verification method stays');
    const zee = s.agents.find((a) => a.token === 'Zeebot');
    assert.deepEqual(zee?.sources, ['ai.robots.txt', 'crawler-user-agents'], 'one entry per token');
    assert.equal(zee?.purpose, 'search');
    const quokka = s.agents.find((a) => a.token === 'Quokka-Fetch');
    assert.equal(quokka?.ai, true);
    assert.ok(quokka?.pattern);
    assert.equal(
      s.agents.some((a) => /plain|seothing/i.test(a.token)),
      false,
      'non-AI bots are not catalogued',
    );
    assert.deepEqual(
      s.sources.map((x) => [x.name, x.agents]),
      [
        ['ai.robots.txt', 2],
        ['arcjet', 1],
        ['crawler-user-agents', 1],
      ],
    );
    assert.equal(s.agents.length, AGENTS.length + 2);
  });

  it('keeps the date an entry was first added across rebuilds', () => {
    const first = buildSnapshot(lists, { date: '2026-11-01' });
    const second = buildSnapshot(lists, { date: '2026-12-01', previous: first });
    assert.equal(second.agents.find((a) => a.token === 'Zeebot')?.added, '2026-11-01');
    const grown = buildSnapshot(
      [
        ...lists,
        { name: 'extra', text: JSON.stringify({ Newbot: { operator: 'Acme', function: 'AI Assistants' } }) },
      ],
      { date: '2026-12-01', previous: first },
    );
    assert.equal(grown.agents.find((a) => a.token === 'Newbot')?.added, '2026-12-01');
    assert.equal(grown.agents.find((a) => a.token === 'Newbot')?.purpose, 'browse');
  });

  it('refuses a file in no known format', () => {
    assert.throws(
      () => buildSnapshot([{ name: 'x', text: '[1,2]' }], { date: '2026-11-01' }),
      /not a known agent list/,
    );
  });

  it('the shipped snapshot holds every own entry and adds the lists’ others to the catalogue in use', () => {
    const shipped = readSnapshot();
    const own = new Set(shipped.agents.filter((a) => a.sources.includes(OWN_SOURCE)).map((a) => a.token));
    for (const a of AGENTS) assert.ok(own.has(a.token), `${a.token} is in the snapshot: rebuild it`);
    const listed = shipped.agents.filter((a) => !a.sources.includes(OWN_SOURCE));
    assert.ok(listed.length > 0);
    assert.equal(CATALOGUE_IN_USE.length, AGENTS.length + listed.length);
    for (const a of listed) assert.ok(a.sources.length > 0 && /^\d{4}-\d{2}-\d{2}$/.test(a.added), a.token);
  });

  it('a list pattern never makes a plain browser string an agent', () => {
    const listed = {
      ...(AGENTS[0] as AgentInfo),
      token: 'Wombatix',
      aliases: [],
      pattern: /Wombatix/i,
      listed: true,
    };
    const classify = createClassifier([listed]);
    const browser =
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; Wombatix) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36';
    assert.equal(classify(browser).agent, undefined);
    assert.equal(classify(browser).isBot, false);
    assert.equal(classify('Wombatix/1.0 (+https://wombatix.example)').agent, 'Wombatix');
    assert.equal(
      createClassifier([{ ...listed, listed: false }])(browser).agent,
      'Wombatix',
      'our own entries apply',
    );
  });
});
