import { latestScans, listSites } from '../../../shared/agent-traffic/sites.ts';
import { presentRegisteredSite } from '../../presenters/agent-traffic.ts';
import { type Access, defineRoute } from '../../route.ts';
import { RegisteredSiteList } from './schema.ts';

// Registered sites and their agent traffic (variant B; every B tier). Sites are registered by an
// operator or the account console, not through this API (decisions.md). Another account's site
// answers 404 like a missing one.
const access: Access = { kind: 'key', variants: ['B'] };
const tags = ['Agent traffic'];

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/sites',
    operationId: 'listRegisteredSites',
    summary: 'Your registered sites with tracking ids, last-scan timestamps and overall scores',
    tags,
    access,
    responses: { 200: { description: 'Registered sites', schema: RegisteredSiteList } },
    async handler(ctx, _input, services) {
      const sites = await listSites(services.db, ctx.state.principal!.accountId);
      const scans = await latestScans(services.db, sites);
      ctx.body = { sites: sites.map((s) => presentRegisteredSite(s, scans.get(s.id))) };
    },
  }),
];
