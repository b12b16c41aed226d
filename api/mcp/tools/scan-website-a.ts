import { z } from 'zod';
import { presentA } from '../../routes/scans/index.ts';
import { ScanPending, ScanResultA } from '../../routes/scans/schema.ts';
import { defineTool } from '../tool.ts';
import { isPending, modeArg, pendingOutcome, scanFor, urlArg, weakest } from './scan-common.ts';

const gbp = (pence: number) => `£${(pence / 100).toFixed(2)}`;

export default defineTool({
  name: 'scan_website',
  title: 'Scan a website (7 dimensions)',
  description:
    'Scans a URL across SEO, speed, security, accessibility, mobile, content and conversion, and returns ' +
    'the overall score, a score per dimension with its issues and passes, and (if asked) the recommended ' +
    'audit bundle. Same result as GET /api/v1/scan. A scan that outlasts the wait returns its id and how ' +
    'to poll. Any tier.',
  input: z.strictObject({
    url: urlArg,
    include_recommendation: z
      .boolean()
      .optional()
      .describe('Add the audit bundle aimed at the weakest dimensions'),
    mode: modeArg,
  }),
  output: z.union([ScanResultA, ScanPending]),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(args, ctx) {
    const withRecommendation = args.include_recommendation ?? false;
    const scan = await scanFor(ctx, args.url, args.mode);
    if (isPending(scan)) return pendingOutcome('scan_website', scan, 'a', withRecommendation);
    const body = await presentA(ctx.services, scan, withRecommendation);
    const rec = 'recommendation' in body ? body.recommendation : undefined;
    return {
      structured: body,
      text:
        `${body.url}: overall ${body.overallScore}/100 (grade ${body.grade}, ${body.mode} scan). ` +
        `Weakest: ${weakest(body.dimensions)}.` +
        (rec ? ` Recommended: ${rec.name} (${gbp(rec.bundlePrice)}): ${rec.stripeLink}` : ''),
    };
  },
});
