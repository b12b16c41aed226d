import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClassifier } from '../../../shared/agent-catalogue/classify.ts';
import { agentsOfEntries } from '../../../shared/agent-catalogue/snapshot.ts';
import { type CatalogueEntry, checkLocalToken } from '../../../shared/agent-catalogue/store.ts';

// The database's rows as the pure classifier reads them (no database here): local entries are
// ours and win, list patterns stay behind spellings, a broken stored pattern is left out.

const entry = (over: Partial<CatalogueEntry>): CatalogueEntry => ({
  token: 'X',
  aliases: [],
  operator: 'Op',
  platform: 'Op',
  purpose: 'training',
  category: '',
  ai: true,
  match: 'word',
  verification: {},
  sources: ['ai.robots.txt'],
  origin: 'synced',
  added: '2026-11-28',
  updatedAt: '2026-11-28T00:00:00.000Z',
  ...over,
});

describe('catalogue entries for the classifier', () => {
  it('local entries come first and win; list patterns never name a plain browser', () => {
    const agents = agentsOfEntries([
      entry({
        token: 'KiwiBot',
        platform: 'Kiwi Local',
        purpose: 'search',
        origin: 'local',
        sources: ['local'],
      }),
      entry({ token: 'KiwiBot', platform: 'Kiwi Listed' }),
      entry({ token: 'BrowserWord', pattern: 'Safari' }),
      entry({ token: 'Broken', pattern: '(unclosed' }),
    ]);
    assert.equal(agents[0]!.listed, false);
    assert.equal(agents[1]!.listed, true);
    assert.equal(agents[3]!.pattern, undefined, 'an invalid stored pattern is dropped, not thrown');
    const classify = createClassifier(agents);
    assert.equal(classify('Mozilla/5.0 (compatible; KiwiBot/1.0)').platform, 'Kiwi Local');
    const safari =
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
    assert.equal(classify(safari).agent, undefined);
    assert.equal(classify('Broken/1.0').agent, 'Broken', 'its spelling still matches');
  });

  it('a local token must be 3 to 120 characters and no part of a browser user agent', () => {
    assert.equal(checkLocalToken('KiwiBot'), null);
    assert.match(checkLocalToken('AI') ?? '', /3 to 120/);
    for (const t of ['Mozilla', 'Chrome', 'safari', 'Gecko', 'Mobile', 'like', 'Android', 'Firefox', 'Edg'])
      assert.match(checkLocalToken(t) ?? '', /ordinary browsers/, t);
  });
});
