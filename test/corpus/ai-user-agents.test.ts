import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findAgent } from '../../shared/agent-catalogue/catalogue.ts';
import { classifyUserAgent } from '../../shared/agent-catalogue/classify.ts';
import { assessCrawlerAccess, JUDGED_AGENTS } from '../../shared/geo-scoring/crawler-access.ts';

// Real user agents: isbot's crawler and browser lists, monperrus' crawler patterns, arcjet's
// well-known bots, and the ai.robots.txt catalogue of AI agents with their operators.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'ai-user-agents');

/** The list items of isbot's YAML files (keys are names, items are user agents). */
function yamlItems(file: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s+- (.*)$/.exec(line);
    if (!m?.[1]) continue;
    const v = m[1];
    if (v.startsWith('"')) out.push(JSON.parse(v) as string);
    else if (v.startsWith("'")) out.push(v.slice(1, -1).replace(/''/g, "'"));
    else out.push(v);
  }
  return out;
}

const readJson = <T>(rel: string): T => JSON.parse(readFileSync(path.join(DIR, rel), 'utf8')) as T;
const share = (hits: number, total: number) => `${hits}/${total} (${((100 * hits) / total).toFixed(1)}%)`;
const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

describe('AI user-agent corpus', { skip: !existsSync(DIR) && `corpus not found at ${DIR}` }, () => {
  it('isbot crawlers: at least 80% are recognised as bots', () => {
    const crawlers = yamlItems(path.join(DIR, 'isbot/crawlers.yml'));
    assert.ok(crawlers.length > 600);
    const hits = crawlers.filter((ua) => classifyUserAgent(ua).isBot).length;
    assert.ok(hits / crawlers.length >= 0.8, `bots recognised: ${share(hits, crawlers.length)}`);
  });

  it('isbot browsers: at least 99% are neither bots nor AI agents', () => {
    const browsers = yamlItems(path.join(DIR, 'isbot/browsers.yml'));
    assert.equal(browsers.length, 555);
    const wrong = browsers.filter((ua) => {
      const c = classifyUserAgent(ua);
      return c.isBot || c.isAi;
    });
    const ok = browsers.length - wrong.length;
    assert.ok(
      ok / browsers.length >= 0.99,
      `browsers passed: ${share(ok, browsers.length)}; wrong: ${wrong.join(' || ')}`,
    );
  });

  it('crawler-user-agents instances: at least 90% are recognised as bots', () => {
    const patterns = readJson<{ instances?: string[] }[]>('crawler-user-agents/crawler-user-agents.json');
    const instances = patterns.flatMap((p) => p.instances ?? []);
    const hits = instances.filter((ua) => classifyUserAgent(ua).isBot).length;
    assert.ok(hits / instances.length >= 0.9, `bots recognised: ${share(hits, instances.length)}`);
  });

  it('arcjet well-known bots: 95% of instances are bots, 75% of those tagged ai are AI agents', () => {
    const bots = readJson<{ id: string; categories: string[]; instances?: { accepted?: string[] } }[]>(
      'arcjet-well-known-bots/well-known-bots.json',
    );
    let total = 0;
    let bot = 0;
    let aiTotal = 0;
    let ai = 0;
    for (const b of bots) {
      for (const ua of b.instances?.accepted ?? []) {
        const c = classifyUserAgent(ua);
        total++;
        if (c.isBot) bot++;
        if (b.categories.includes('ai')) {
          aiTotal++;
          if (c.isAi) ai++;
        }
      }
    }
    assert.ok(bot / total >= 0.95, `bots: ${share(bot, total)}`);
    assert.ok(ai / aiTotal >= 0.75, `ai: ${share(ai, aiTotal)}`);
  });

  describe('ai.robots.txt agents', () => {
    const robots = () =>
      readJson<Record<string, { operator: string; function: string }>>('ai.robots.txt/robots.json');

    it('every agent is in the catalogue and classified as AI, by token and in a full user agent', () => {
      const missing: string[] = [];
      for (const token of Object.keys(robots())) {
        const entry = findAgent(token);
        if (!entry) {
          missing.push(token);
          continue;
        }
        for (const ua of [token, `Mozilla/5.0 (compatible; ${token}/1.0; +https://bots.example/info)`]) {
          const c = classifyUserAgent(ua);
          assert.equal(c.isAi, true, `${ua} is AI`);
          assert.equal(c.agent, entry.token, `${ua} is ${entry.token}`);
          assert.equal(c.platform, entry.platform);
          assert.equal(c.type, entry.purpose);
        }
      }
      assert.deepEqual(missing, []);
    });

    it('operators match wherever the list names one', () => {
      const mismatched: string[] = [];
      let checked = 0;
      for (const [token, info] of Object.entries(robots())) {
        const theirs = norm(info.operator);
        if (/^(?:unclear|unknown)/i.test(info.operator.trim())) continue;
        const ours = norm(findAgent(token)?.operator ?? '');
        checked++;
        if (!ours || !(theirs.includes(ours) || ours.includes(theirs)))
          mismatched.push(`${token}: ${info.operator} vs ${ours}`);
      }
      assert.ok(checked > 100);
      assert.deepEqual(mismatched, []);
    });

    it('the list robots.txt blocks every judged agent, answer engines included', () => {
      const body = readFileSync(path.join(DIR, 'ai.robots.txt/robots.txt'), 'utf8');
      const access = assessCrawlerAccess(
        { url: 'https://example.com/robots.txt', status: 200, contentType: 'text/plain', body },
        'https://example.com/any/page',
      );
      const listed = new Set(Object.keys(robots()).map((t) => t.toLowerCase()));
      const judged = access.agents.filter((a) => listed.has(a.token.toLowerCase()));
      assert.ok(judged.length >= JUDGED_AGENTS.length - 1, `${judged.length} judged agents are on the list`);
      for (const a of judged) {
        assert.equal(a.robotsAllowed, false, `${a.token} allowed`);
        assert.equal(a.via, 'explicit');
      }
    });
  });
});
