import { assessCrawlerAccess } from '../../../geo-scoring/crawler-access.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-robots-access',
    title: 'robots.txt lets AI answer engines in',
    failureTitle: 'robots.txt blocks AI answer engines',
    description:
      'Search and browse agents (OAI-SearchBot, ChatGPT-User, PerplexityBot, Claude-SearchBot) must be allowed for a page to be cited. Blocking training crawlers is a legitimate choice; an explicit Allow for answer agents is the clearest signal.',
    requiredArtifacts: ['RobotsTxt'],
    optionalArtifacts: ['Page'],
  },
  run({ RobotsTxt, Page }) {
    // The scanned page's own path when known, else the site root.
    const access = assessCrawlerAccess(RobotsTxt, Page?.finalUrl ?? new URL('/', RobotsTxt.url).href);
    const answer = access.agents.filter((a) => a.answer);
    const blocked = answer.filter((a) => !a.robotsAllowed).map((a) => a.token);
    const explicit = answer.filter((a) => a.robotsAllowed && a.via === 'explicit').length;
    const trainingBlocked = access.agents.filter((a) => !a.answer && !a.robotsAllowed).map((a) => a.token);
    const evidence = {
      robotsStatus: access.robotsStatus,
      blockedAnswerAgents: blocked,
      explicitlyAllowed: explicit,
      trainingBlocked,
      fix: blocked.length > 0 ? `Add "User-agent: ${blocked[0]}" with "Allow: /" to robots.txt` : undefined,
    };
    if (access.robotsStatus === null || access.robotsStatus >= 500) {
      return fail(
        `robots.txt is unreachable (${access.robotsStatus ?? 'no answer'}), which crawlers read as "disallow all"`,
        evidence,
      );
    }
    if (blocked.length === 0) {
      return pass(
        `All ${answer.length} answer agents allowed${explicit > 0 ? ` (${explicit} explicitly)` : ''}${trainingBlocked.length ? `; ${trainingBlocked.length} training crawlers blocked` : ''}`,
        evidence,
      );
    }
    const msg = `robots.txt blocks ${blocked.length} of ${answer.length} answer agents: ${blocked.join(', ')}`;
    return blocked.length * 2 > answer.length ? fail(msg, evidence) : warn(msg, access.score, evidence);
  },
});
