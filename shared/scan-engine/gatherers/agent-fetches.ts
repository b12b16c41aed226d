import { safeFetch } from '../../net/safe-fetch.ts';
import { BROWSER_USER_AGENT } from '../../net/user-agent.ts';
import type { AgentFetchesArtifact } from '../artifacts.ts';
import { errorText } from './fetch-text.ts';
import type { GatherContext } from './types.ts';

// The page fetched as AI agents see it. A firewall or CDN that answers bots 403 (or a challenge
// page) while robots.txt allows them shows up as a status or size gap against the baseline.

/** The agents we impersonate, with the user agent strings their operators document. */
export const AI_AGENTS: readonly { agent: string; userAgent: string }[] = [
  {
    agent: 'GPTBot',
    userAgent:
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)',
  },
  {
    agent: 'ChatGPT-User',
    userAgent:
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  },
  {
    agent: 'OAI-SearchBot',
    userAgent:
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  },
  {
    agent: 'ClaudeBot',
    userAgent:
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  },
  {
    agent: 'PerplexityBot',
    userAgent:
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  },
  { agent: 'CCBot', userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)' },
];

const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export async function gatherAgentFetches(ctx: GatherContext, target: URL): Promise<AgentFetchesArtifact> {
  const fetchAs = async (userAgent: string) => {
    try {
      const res = await safeFetch(target, {
        policy: ctx.policy,
        slots: ctx.slots,
        userAgent,
        signal: ctx.signal,
        headers: { accept: HTML_ACCEPT },
        timeoutMs: 8_000,
        maxBytes: 2 * 1024 * 1024,
        insecureTls: true,
      });
      return { status: res.status, bytes: res.bytes.decoded };
    } catch (err) {
      return { status: null, bytes: null, error: errorText(err) };
    }
  };
  const [baseline, ...agents] = await Promise.all([
    fetchAs(BROWSER_USER_AGENT),
    ...AI_AGENTS.map((a) => fetchAs(a.userAgent)),
  ]);
  return {
    baselineStatus: baseline!.status,
    baselineBytes: baseline!.bytes,
    fetches: AI_AGENTS.map((a, i) => ({ agent: a.agent, userAgent: a.userAgent, ...agents[i]! })),
  };
}
