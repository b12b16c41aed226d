import { z } from 'zod';
import { presentCitability } from '../../presenters/scan.ts';
import { ScanPending } from '../../routes/scans/schema.ts';
import { CitabilityScore } from '../../routes/tools/schema.ts';
import { defineTool } from '../tool.ts';
import { isPending, pendingOutcome, scanFor, urlArg } from './scan-common.ts';

/** The tool's one-line answer: the summary already opens with the score and grade; say it once. */
export const citabilityText = (body: { url: string; summary: string }) => `${body.url}: ${body.summary}`;

export default defineTool({
  name: 'get_citability_score',
  title: 'Citability score of a page',
  description:
    'How citable a page is for AI answer engines: the overall score (0-100) and grade, five weighted ' +
    'dimensions (answer blocks, self-containment, structure, statistics, uniqueness) and recommendations. ' +
    'Same result as POST /api/tools/citability; rides on a quick scan.',
  input: z.strictObject({ url: urlArg }),
  output: z.union([CitabilityScore, ScanPending]),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(args, ctx) {
    const scan = await scanFor(ctx, args.url, 'quick');
    if (isPending(scan)) return pendingOutcome('get_citability_score', scan, 'citability');
    const body = presentCitability(scan);
    return {
      structured: body,
      text: citabilityText(body),
    };
  },
});
