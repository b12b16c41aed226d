import { type AgentInfo, type AgentPurpose, findAgent, isAnswerAgent } from '../agent-catalogue/catalogue.ts';
import type { AgentFetchesArtifact, RobotsTxtArtifact } from '../scan-engine/artifacts.ts';
import { evaluate, parseRobotsTxt } from '../scan-engine/parsers/robots-txt.ts';

// Whether the AI agents that matter can reach a page, judged one agent at a time. Answer engines
// (search and browse agents) decide whether the site can be cited at all; training crawlers only
// decide whether its text goes into future models, so blocking them is a legitimate choice that
// costs little. An explicit `Allow` for an agent is a deliberate signal and counts more than
// falling under `*`.

/** The agents judged: the major answer engines, then the major training crawlers. */
export const JUDGED_AGENTS = [
  'OAI-SearchBot',
  'ChatGPT-User',
  'Claude-SearchBot',
  'Claude-User',
  'PerplexityBot',
  'Perplexity-User',
  'Applebot',
  'Amazonbot',
  'DuckAssistBot',
  'MistralAI-User',
  'meta-externalfetcher',
  'GPTBot',
  'ClaudeBot',
  'Google-Extended',
  'Applebot-Extended',
  'CCBot',
  'meta-externalagent',
  'Bytespider',
] as const;

// Points per agent (0..1) and each agent's weight in the total.
export const ACCESS_POINTS = {
  answer: { explicit: 1, implicit: 0.9, blocked: 0 },
  training: { explicit: 1, implicit: 0.9, blocked: 0.85 },
  /** robots.txt allows the agent but the server refuses it: never intended, so worth nothing. */
  firewalled: 0,
} as const;
export const ANSWER_WEIGHT = 4;
export const TRAINING_WEIGHT = 1;

export type RobotsVia = 'explicit' | 'wildcard' | 'none' | 'unreachable';

export interface AgentAccess {
  token: string;
  operator: string;
  purpose: AgentPurpose;
  answer: boolean;
  robotsAllowed: boolean;
  via: RobotsVia;
  /** blocked: the page answered this agent with an error although it answers our baseline. */
  firewall: 'ok' | 'blocked' | 'unknown';
  fetchStatus: number | null;
  points: number;
}

export interface CrawlerAccess {
  agents: AgentAccess[];
  score: number; // 0..1, weighted
  robotsStatus: number | null;
}

// Statuses a bot filter or WAF answers with when it refuses a client.
const REFUSED = new Set([401, 403, 406, 429, 451, 503]);

type Fetch = AgentFetchesArtifact['fetches'][number];

// A 200 with a small fraction of what the browser baseline got is a challenge page, not the
// content. Artifacts stored before the baseline size was recorded fall back to the largest agent
// response.
const CHALLENGE_SHARE = 0.25;
const CHALLENGE_MIN_PAGE = 2000;

/** Whether the server refused this fetch although it serves our baseline; null when unknowable. */
function refused(f: Fetch, all: AgentFetchesArtifact): boolean | null {
  const base = all.baselineStatus;
  if (base === null || base < 200 || base >= 400) return null;
  if (f.status === null) return f.error ? true : null;
  if (REFUSED.has(f.status)) return true;
  const largest =
    all.baselineBytes ??
    Math.max(0, ...all.fetches.map((x) => (x.status !== null && x.status < 300 ? (x.bytes ?? 0) : 0)));
  return f.bytes !== null && largest >= CHALLENGE_MIN_PAGE && f.bytes < CHALLENGE_SHARE * largest;
}

function firewallState(
  agent: AgentInfo,
  fetches: AgentFetchesArtifact | undefined,
): { state: AgentAccess['firewall']; status: number | null } {
  const fetch = fetches?.fetches.find((f) => findAgent(f.agent)?.token === agent.token);
  if (!fetches || !fetch) return { state: 'unknown', status: null };
  const r = refused(fetch, fetches);
  return { state: r === null ? 'unknown' : r ? 'blocked' : 'ok', status: fetch.status };
}

export function assessCrawlerAccess(
  robots: RobotsTxtArtifact,
  pageUrl: string,
  fetches?: AgentFetchesArtifact,
): CrawlerAccess {
  // RFC 9309 2.3.1.3-4: an unreachable robots.txt (5xx or no answer) means "disallow all",
  // a missing one (4xx) means "allow all".
  const unreachable = robots.status === null || robots.status >= 500;
  const parsed =
    robots.status !== null && robots.status >= 200 && robots.status < 300
      ? parseRobotsTxt(robots.body)
      : null;
  const agents: AgentAccess[] = [];
  for (const token of JUDGED_AGENTS) {
    const agent = findAgent(token);
    if (!agent) continue;
    const answer = isAnswerAgent(agent);
    let robotsAllowed = true;
    let via: RobotsVia = 'none';
    if (unreachable) {
      robotsAllowed = false;
      via = 'unreachable';
    } else if (parsed) {
      const d = evaluate(parsed, agent.token, pageUrl);
      robotsAllowed = d.allowed;
      via = d.via;
    }
    const fw = firewallState(agent, fetches);
    const table = answer ? ACCESS_POINTS.answer : ACCESS_POINTS.training;
    const points = !robotsAllowed
      ? table.blocked
      : fw.state === 'blocked'
        ? ACCESS_POINTS.firewalled
        : via === 'explicit'
          ? table.explicit
          : table.implicit;
    agents.push({
      token: agent.token,
      operator: agent.operator,
      purpose: agent.purpose,
      answer,
      robotsAllowed,
      via,
      firewall: fw.state,
      fetchStatus: fw.status,
      points,
    });
  }
  let sum = 0;
  let weights = 0;
  for (const a of agents) {
    const w = a.answer ? ANSWER_WEIGHT : TRAINING_WEIGHT;
    sum += w * a.points;
    weights += w;
  }
  return { agents, score: weights > 0 ? sum / weights : 0, robotsStatus: robots.status };
}

/** Agents a page refuses (error status or challenge page) although it serves our baseline request. */
export function firewalledAgents(fetches: AgentFetchesArtifact): Fetch[] {
  return fetches.fetches.filter((f) => refused(f, fetches) === true);
}

/** How a refusal reads in a message: the status, "challenge page" for a small 2xx, or the error. */
export function refusal(status: number | null, error?: string): string {
  if (status === null) return error ?? 'no answer';
  return status < 300 ? 'challenge page' : String(status);
}
