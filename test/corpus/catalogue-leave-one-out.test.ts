import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createClassifier } from '../../shared/agent-catalogue/classify.ts';
import { type ListedAgent, parseList } from '../../shared/agent-catalogue/sources/index.ts';
import { tokenOfPattern } from '../../shared/agent-catalogue/sources/normalise.ts';

// Leave one list out: the catalogue built from the OTHER public lists (plus the operator registry
// and the general rules, but none of our hand-written entries, which were written from all the
// lists) must recognise the left-out list's AI agents. This is how we know the classifier
// generalises to agents nobody listed for it.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'ai-user-agents');
const LISTS = {
  'ai.robots.txt': 'ai.robots.txt/robots.json',
  arcjet: 'arcjet-well-known-bots/well-known-bots.json',
  'crawler-user-agents': 'crawler-user-agents/crawler-user-agents.json',
} as const;
type ListName = keyof typeof LISTS;

// Floors a little under what the corpora give today, so a regression fails. The issue's goal is
// 90% detected and 85% platform right for every list. ai.robots.txt and arcjet cannot reach it:
// 25 of ai.robots.txt's user agents and 15 of arcjet's are bots another list calls not AI (the
// printed bound), and the rest of the misses say nothing about AI or their operator.
const FLOORS: Record<ListName, { detected: number; platform: number }> = {
  'ai.robots.txt': { detected: 70, platform: 60 },
  arcjet: { detected: 80, platform: 92 },
  'crawler-user-agents': { detected: 91, platform: 94 },
};

const load = (name: ListName) => parseList(readFileSync(path.join(DIR, LISTS[name]), 'utf8'), name);

/** The user agents a list gives for an agent, or a plain one built from its token. */
function userAgentsOf(a: ListedAgent): string[] {
  if (a.examples.length > 0) return a.examples;
  const token = a.pattern ? tokenOfPattern(a.pattern.source.replace(/^\(\?:|\)$/g, '')) : a.token;
  // A bot names its operator's page when its list gives one, as real crawlers do.
  return token ? [`Mozilla/5.0 (compatible; ${token}/1.0${a.url ? `; +${a.url}` : ''})`] : [];
}

interface RawEntry {
  categories?: string[];
  tags?: string[];
  pattern?: string | { accepted?: string[] };
  instances?: string[] | { accepted?: string[] };
}
/** The entries a list does not call AI (ai.robots.txt lists only AI agents). */
function nonAiEntries(name: ListName): RawEntry[] {
  if (name === 'ai.robots.txt') return [];
  const data = JSON.parse(readFileSync(path.join(DIR, LISTS[name]), 'utf8')) as RawEntry[];
  return data.filter((e) => !(e.categories ?? e.tags ?? []).some((t) => t === 'ai' || t === 'ai-crawler'));
}
/** Example user agents of the bots a list does not call AI. */
const nonAiUserAgents = (name: ListName): string[] =>
  nonAiEntries(name).flatMap((e) =>
    Array.isArray(e.instances) ? e.instances : (e.instances?.accepted ?? []),
  );
/** Patterns of the bots a list does not call AI. */
const nonAiPatterns = (name: ListName): RegExp[] =>
  nonAiEntries(name).flatMap((e) =>
    (typeof e.pattern === 'string' ? [e.pattern] : (e.pattern?.accepted ?? [])).map(
      (p) => new RegExp(p, 'i'),
    ),
  );

/**
 * Why a user agent was missed. `disputed`: another list names the bot and calls it not AI, so a
 * classifier that agrees with that list cannot count it. `bare`: it names no site and has no AI
 * word. `site`: it names a site that says nothing of AI (by name or as a registered AI operator).
 */
function whyMissed(
  ua: string,
  token: string,
  otherListsNonAi: readonly RegExp[],
): 'disputed' | 'bare' | 'site' {
  if (otherListsNonAi.some((re) => re.test(ua) || re.test(token))) return 'disputed';
  return /https?:\/\/|@/.test(ua) ? 'site' : 'bare';
}

const norm = (s: string | null) => (s ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
/** Platforms are the same when one name contains the other ("Meta" and "Meta/Facebook"). */
const same = (a: string | null, b: string) =>
  norm(a) !== '' && (norm(a).includes(norm(b)) || norm(b).includes(norm(a)));
const pct = (n: number, d: number) => (d === 0 ? 100 : (100 * n) / d);

describe('catalogue: leave one list out', { skip: !existsSync(DIR) && `corpus not found at ${DIR}` }, () => {
  for (const left of Object.keys(LISTS) as ListName[]) {
    it(`${left} left out`, () => {
      const others = (Object.keys(LISTS) as ListName[]).filter((n) => n !== left).flatMap(load);
      const classify = createClassifier(others);
      let total = 0;
      let detected = 0;
      let platformRight = 0;
      let named = 0;
      const missed: string[] = [];
      const otherListsNonAi = (Object.keys(LISTS) as ListName[])
        .filter((n) => n !== left)
        .flatMap(nonAiPatterns);
      const why = { disputed: 0, bare: 0, site: 0 };
      const wrongPlatform: string[] = [];
      for (const agent of load(left).filter((a) => a.ai)) {
        for (const ua of userAgentsOf(agent)) {
          total++;
          const c = classify(ua);
          if (c.isAi) detected++;
          else {
            const reason = whyMissed(ua, agent.token, otherListsNonAi);
            why[reason]++;
            missed.push(`${ua} [${reason}]`);
          }
          if (agent.platform === 'Other') continue; // the list names no operator to compare with
          named++;
          if (c.isAi && same(c.platform, agent.platform)) platformRight++;
          else wrongPlatform.push(`${ua} -> ${c.platform} (list: ${agent.platform})`);
        }
      }
      // Guard rail: the left-out list's non-AI bots must stay non-AI (only general rules can err).
      const nonAi = nonAiUserAgents(left);
      const falseAi = nonAi.filter((ua) => classify(ua).isAi);
      const d = pct(detected, total);
      const p = pct(platformRight, named);
      // The most any classifier can detect while it agrees with the other lists: every miss but
      // the disputed ones. Below the issue's 90%, the goal needs the left-out list itself.
      const bound = pct(total - why.disputed, total);
      console.log(
        `leave-one-out ${left}: ${detected}/${total} AI user agents detected (${d.toFixed(1)}%), platform right ${platformRight}/${named} named (${p.toFixed(1)}%); non-AI bots called AI ${falseAi.length}/${nonAi.length}\n  missed: ${why.disputed} another list calls non-AI, ${why.bare} name no site and no AI word, ${why.site} name a site that says nothing of AI; bound without the disputed ${bound.toFixed(1)}%`,
      );
      if (process.env.VERBOSE_CORPUS)
        console.log(
          `missed:\n${missed.join('\n')}\nwrong platform:\n${wrongPlatform.join('\n')}\nnon-AI called AI:\n${falseAi.join('\n')}`,
        );
      assert.ok(total > 20, `${left} gives AI agents to test`);
      assert.ok(d >= FLOORS[left].detected, `${left}: detected ${d.toFixed(1)}%`);
      assert.ok(p >= FLOORS[left].platform, `${left}: platform right ${p.toFixed(1)}%`);
    });
  }
});
