import { firewalledAgents, refusal } from '../../../geo-scoring/crawler-access.ts';
import { defineCheck, fail, notApplicable, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-firewall-access',
    title: 'Server answers AI agents like other visitors',
    failureTitle: 'A firewall or CDN refuses AI agents',
    description:
      'Bot protection often answers AI user agents with 403 or a challenge although robots.txt allows them. Allowlist the verified AI crawlers in your WAF or CDN bot settings.',
    requiredArtifacts: ['AgentFetches'],
  },
  run({ AgentFetches }) {
    const base = AgentFetches.baselineStatus;
    if (base === null || base < 200 || base >= 400) {
      return notApplicable(
        `The page itself answers ${base ?? 'nothing'}, so agent access cannot be compared`,
      );
    }
    if (AgentFetches.fetches.length === 0) return notApplicable('No agent fetches were made');
    const refused = firewalledAgents(AgentFetches);
    const evidence = {
      baselineStatus: base,
      refused: refused.map((f) => ({ agent: f.agent, status: f.status })),
      fix:
        refused.length > 0
          ? `Allowlist ${refused.map((f) => f.agent).join(', ')} in the firewall or CDN bot rules`
          : undefined,
    };
    const total = AgentFetches.fetches.length;
    if (refused.length === 0) return pass(`All ${total} AI agents get the page (baseline ${base})`, evidence);
    const list = refused.map((f) => `${f.agent} (${refusal(f.status, f.error)})`).join(', ');
    const msg = `${refused.length} of ${total} AI agents refused while the page answers ${base}: ${list}`;
    return refused.length === total ? fail(msg, evidence) : warn(msg, 1 - refused.length / total, evidence);
  },
});
