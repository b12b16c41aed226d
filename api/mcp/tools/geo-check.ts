import { z } from 'zod';
import { checkSite } from '../../../shared/geo/site-checks.ts';
import { checkView } from '../../../shared/geo/views.ts';
import { CheckPending, GeoCheck } from '../../routes/geo/schema.ts';
import { defineTool } from '../tool.ts';
import { mcpWait, siteIdArg } from './geo-common.ts';

export default defineTool({
  name: 'geo_check',
  title: 'GEO check of a monitored site (6 signals, 85 points)',
  description:
    'Runs a fresh GEO check of one of your monitored sites: AI crawler access, llms.txt, schema, citability, ' +
    'IndexNow and HTTPS, each with its score, status and a fix. Same result as GET /api/v1/geo/sites/{site_id}/check. ' +
    'Needs an active Growth or Agency plan.',
  input: z.strictObject({ site_id: siteIdArg }),
  output: z.union([GeoCheck, CheckPending]),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run({ site_id }, ctx) {
    const out = await checkSite(ctx.services, ctx.principal.accountId, site_id, {
      fresh: true,
      waitMs: mcpWait(ctx),
    });
    if (out.kind === 'pending') {
      const poll = `/api/v1/geo/sites/${site_id}/check?scan_id=${out.scan.id}`;
      return {
        structured: { scanId: out.scan.id, status: out.scan.status, poll },
        text: `The check's scan ${out.scan.id} is still ${out.scan.status}; GET ${poll} with the same Authorization header in a few seconds.`,
      };
    }
    const body = checkView(out.row) as unknown as {
      url: string;
      overallScore: number;
      grade: string;
      signals: { id: string; score: number; maxScore: number; status: string }[];
    };
    const weak = body.signals
      .filter((s) => s.status !== 'pass')
      .map((s) => `${s.id} ${s.score}/${s.maxScore}`)
      .join(', ');
    return {
      structured: body,
      text: `${body.url}: GEO ${body.overallScore}/85 (grade ${body.grade}).${weak ? ` Not passing: ${weak}.` : ' All six signals pass.'}`,
    };
  },
});
