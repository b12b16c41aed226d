import { type CheckResult, defineCheck } from '../../scan-engine/check.ts';
import { assessCrawlerAccess, refusal } from '../crawler-access.ts';

export default defineCheck({
  meta: {
    id: 'geo-ai-crawler-access',
    title: 'AI answer engines can crawl and fetch the site',
    failureTitle: 'AI answer engines are blocked',
    description:
      'Each AI agent is judged on its own: blocking search and browse agents removes the site from AI answers, blocking training crawlers is a legitimate choice that costs little, and a firewall refusing agents that robots.txt allows is always a mistake.',
    requiredArtifacts: ['RobotsTxt'],
    optionalArtifacts: ['Page', 'AgentFetches'],
  },
  run({ RobotsTxt, Page, AgentFetches }): CheckResult {
    const access = assessCrawlerAccess(
      RobotsTxt,
      Page?.finalUrl ?? new URL('/', RobotsTxt.url).href,
      AgentFetches,
    );
    const answer = access.agents.filter((a) => a.answer);
    const robotsBlocked = answer.filter((a) => !a.robotsAllowed).map((a) => a.token);
    const firewalled = access.agents.filter((a) => a.robotsAllowed && a.firewall === 'blocked');
    const trainingBlocked = access.agents.filter((a) => !a.answer && !a.robotsAllowed).map((a) => a.token);
    const explicit = answer.filter((a) => a.robotsAllowed && a.via === 'explicit').length;

    const parts: string[] = [];
    if (robotsBlocked.length) parts.push(`robots.txt blocks answer agents ${robotsBlocked.join(', ')}`);
    if (firewalled.length) {
      parts.push(
        `the server refuses ${firewalled.map((a) => `${a.token} (${refusal(a.fetchStatus)})`).join(', ')} although robots.txt allows them`,
      );
    }
    const open = answer.length - robotsBlocked.length - firewalled.filter((a) => a.answer).length;
    parts.push(
      `${open} of ${answer.length} answer agents can reach the page${explicit ? ` (${explicit} explicitly allowed)` : ''}`,
    );
    if (trainingBlocked.length)
      parts.push(`training crawlers blocked by choice: ${trainingBlocked.join(', ')}`);
    const message = parts.join('; ');

    let fix: string | undefined;
    if (RobotsTxt.status === null || RobotsTxt.status >= 500) {
      fix = 'Make /robots.txt answer 200 (or 404): an erroring robots.txt tells crawlers to stay away';
    } else if (firewalled.length) {
      fix = `Allowlist ${firewalled.map((a) => a.token).join(', ')} in the firewall or CDN bot rules (verify them by their published IP ranges)`;
    } else if (robotsBlocked.length) {
      fix = `Allow the answer agents in robots.txt, e.g. "User-agent: ${robotsBlocked[0]}" followed by "Allow: /"`;
    } else if (explicit < answer.length) {
      fix =
        'Name the answer agents (OAI-SearchBot, ChatGPT-User, PerplexityBot, Claude-SearchBot) with an explicit Allow in robots.txt';
    }
    const evidence = { agents: access.agents, fix };
    const refused = answer.length - open;
    const outcome = refused === 0 ? 'pass' : refused * 2 > answer.length ? 'fail' : 'warn';
    return { outcome, score: access.score, message, evidence };
  },
});
