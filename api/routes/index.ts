import type { RouteDef } from '../route.ts';
import account from './account/index.ts';
import agents from './agents/index.ts';
import audits from './audits/index.ts';
import benchmarks from './benchmarks/index.ts';
import checkout from './checkout/index.ts';
import collect from './collect/index.ts';
import docs from './docs/index.ts';
import geo from './geo/index.ts';
import mcp from './mcp/index.ts';
import meta from './meta/index.ts';
import monitor from './monitor/index.ts';
import products from './products/index.ts';
import scans from './scans/index.ts';
import bSites from './site-citability/index.ts';
import sites from './sites/index.ts';
import status from './status/index.ts';
import statusPage from './status-page/index.ts';
import stripeWebhook from './stripe-webhook/index.ts';
import tools from './tools/index.ts';
import webhooks from './webhooks/index.ts';

// Every endpoint, one module per resource.
export const routes: RouteDef[] = [
  ...status,
  ...products,
  ...account,
  ...scans,
  ...audits,
  ...tools,
  ...mcp,
  ...monitor,
  ...sites,
  ...bSites,
  ...webhooks,
  ...collect,
  ...agents,
  ...benchmarks,
  ...geo,
  ...statusPage,
  ...meta,
  ...docs,
  ...checkout,
  ...stripeWebhook,
];
