import { catalogueInUse } from '../../../shared/agent-catalogue/in-use.ts';
import { agentDataFreshness } from '../../../shared/agent-verification/sources-age.ts';
import { rdnsDomains } from '../../../shared/agent-verification/verify.ts';
import { type Access, defineRoute } from '../../route.ts';
import { AgentCatalogue } from './schema.ts';

// The agent catalogue the service classifies visits with (variant B).
const access: Access = { kind: 'key', variants: ['B'] };

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/agents',
    operationId: 'getAgentCatalogue',
    summary: 'The agent catalogue in use: every known agent with operator, purpose, verification and sources',
    tags: ['Agent traffic'],
    access,
    responses: { 200: { description: 'The catalogue', schema: AgentCatalogue } },
    async handler(ctx, _input, services) {
      const [catalogue, freshness] = await Promise.all([
        catalogueInUse(services.db, rdnsDomains),
        agentDataFreshness(services.db),
      ]);
      ctx.body = { ...catalogue, freshness };
    },
  }),
];
