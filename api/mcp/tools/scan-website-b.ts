import { z } from 'zod';
import { agentCorrelation } from '../../../shared/agent-traffic/correlation.ts';
import { presentScanB } from '../../presenters/scan.ts';
import { ScanPending, ScanResultB } from '../../routes/scans/schema.ts';
import { defineTool } from '../tool.ts';
import { isPending, modeArg, pendingOutcome, scanFor, urlArg, weakest } from './scan-common.ts';

export default defineTool({
  name: 'scan_website',
  title: 'Scan a website for agent readability (5 dimensions)',
  description:
    'Scans a URL for agent readability: structure, citability, discoverability, agent interface and ' +
    'transactability (weighted into the overall score and grade), plus the agent_correlation research ' +
    'signal. Same result as POST /api/public/scan. A scan that outlasts the wait returns its id and how to poll.',
  input: z.strictObject({ url: urlArg, mode: modeArg }),
  output: z.union([ScanResultB, ScanPending]),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(args, ctx) {
    const scan = await scanFor(ctx, args.url, args.mode);
    if (isPending(scan)) return pendingOutcome('scan_website', scan, 'b');
    const body = presentScanB(scan, {
      agentCorrelation: await agentCorrelation(ctx.services.db, scan.url, {
        accountId: ctx.principal.accountId,
      }),
    });
    return {
      structured: body,
      text:
        `${body.url}: agent readability ${body.overallScore}/100 (grade ${body.grade}, methodology ` +
        `${body.methodologyVersion}). Weakest: ${weakest(body.dimensions)}.`,
    };
  },
});
