import { z } from 'zod';
import { CitabilityScore } from '../tools/schema.ts';

// GEO for monitored sites (variant A). Resource fields as interface.md names them ("GEO check",
// "Citability score", "Visibility run", "Share of voice"), plus the evidence and uncertainty
// fields decisions.md and docs/geo.md describe.

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const SiteParams = z.object({ site_id: id.describe('Monitored site id') });
export const PromptParams = z.object({ id: id.describe('Prompt id') });
export const RunParams = z.object({ run_id: z.string().regex(/^gr_[A-Za-z0-9_-]{8,64}$/, 'not a run id') });

const waitSeconds = z.coerce
  .number()
  .int()
  .min(0)
  .max(120)
  .optional()
  .describe('Seconds to wait for the result before answering 202 (default GEO_WAIT_MS)');

export const CheckQuery = z.object({
  scan_id: z
    .string()
    .regex(/^sc_[A-Za-z0-9_-]{10,40}$/, 'not a scan id')
    .optional()
    .describe('Poll the check started earlier (from a 202 Location) instead of starting a fresh one'),
  wait: waitSeconds,
});
export const RunQuery = z.object({ wait: waitSeconds });

export const HistoryQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  per_page: z.coerce.number().int().min(1).max(50).default(10),
});

export const GeoSignal = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(['pass', 'warn', 'fail']),
    score: z.number().int(),
    maxScore: z.number().int(),
    detail: z.string(),
    fix: z.string().optional().describe('Present on non-passing signals'),
  })
  .meta({ id: 'GeoSignal' });

export const GeoCheck = z
  .object({
    url: z.string(),
    overallScore: z.number().int().min(0).max(85),
    maxScore: z.literal(85),
    grade: z.string(),
    summary: z.string(),
    signals: z.array(GeoSignal).length(6),
    checkId: z.number().int(),
    scanId: z.string().nullable().describe('The quick scan the check was computed from'),
    checkedAt: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'GeoCheck' });

export const GeoCitability = CitabilityScore.extend({ checkedAt: z.string() }).meta({ id: 'GeoCitability' });

export const CheckPending = z
  .object({
    scanId: z.string(),
    status: z.enum(['queued', 'running']),
    poll: z.string().describe('Where to poll for the result'),
  })
  .meta({ id: 'GeoCheckPending' });

const Interval = z
  .object({ low: z.number(), high: z.number(), level: z.literal(0.95) })
  .describe('95% Wilson score interval of citationRate')
  .meta({ id: 'WilsonInterval' });

const RunError = z.object({ code: z.string(), message: z.string() }).nullable();

const RunHeader = {
  runId: z.string(),
  kind: z.enum(['visibility', 'sov']),
  status: z.enum(['queued', 'running', 'done', 'failed', 'skipped']),
  trigger: z.enum(['api', 'schedule', 'mcp', 'console']),
  siteId: z.number().int(),
  providers: z.array(z.string()),
  runsPerPrompt: z.number().int(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  error: RunError.describe('Why a run failed or was skipped (e.g. budget_exhausted)'),
};

const Citation = z.object({ url: z.string(), title: z.string().nullable(), position: z.number().int() });
const Usage = z.object({
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  totalTokens: z.number().nullable(),
});

// The counts keep their plain meaning (decisions.md, GEO).
const TotalPrompts = z.number().int().describe('Prompts in the run (= results.length)');
const CitedCount = z.number().int().describe('Prompts cited in at least one answer');
const Answers = z
  .number()
  .int()
  .describe(
    'Answers of the engines that cite: prompts x runsPerPrompt x citing providers, less failed calls',
  );
const CitedAnswers = z.number().int().describe('Answers that cite the site');
const CitationRate = z.number().describe('citedAnswers / answers: the share of answers that cite the site');

export const VisibilityRun = z
  .object({
    ...RunHeader,
    url: z.string(),
    platform: z.string().describe('The provider, or "all" when the run asked several'),
    citedCount: CitedCount,
    totalPrompts: TotalPrompts,
    answers: Answers,
    citedAnswers: CitedAnswers,
    citationRate: CitationRate,
    interval: Interval,
    promptCount: z.number().int(),
    mentionCount: z.number().int().describe('Answers naming the site (domain or label) in their text'),
    change: z
      .object({
        previousRunId: z.string(),
        previousCitationRate: z.number(),
        delta: z.number(),
        label: z.enum(['noise', 'up', 'down']).describe('noise: the previous rate lies inside this interval'),
      })
      .nullable(),
    platforms: z.array(
      z.object({
        platform: z.string(),
        model: z.string().nullable(),
        cites: z.boolean().describe('false: the engine cannot cite (mentions only)'),
        status: z.enum(['ok', 'failed']).nullable(),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
        citedCount: CitedCount,
        totalPrompts: TotalPrompts,
        answers: Answers,
        citedAnswers: CitedAnswers,
        citationRate: z.number(),
        interval: Interval,
        mentionCount: z.number().int(),
      }),
    ),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
    results: z.array(
      z.object({
        promptId: z.number().int(),
        label: z.string(),
        prompt: z.string(),
        cited: z.boolean().describe('Cited in at least one of its answers'),
        citedRuns: z.number().int(),
        runs: z.number().int(),
        citationRate: z.number(),
        mentioned: z.boolean(),
        firstCitationPosition: z.number().int().nullable(),
        answers: z.array(
          z.object({
            platform: z.string(),
            model: z.string(),
            iteration: z.number().int(),
            cited: z.boolean(),
            mentioned: z.boolean(),
            citationPosition: z.number().int().nullable(),
            answer: z.string(),
            citations: z.array(Citation),
            sources: z.array(z.object({ url: z.string(), title: z.string().nullable() })),
            usage: Usage,
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'VisibilityRun' });

const SiteRate = {
  url: z.string(),
  label: z.string(),
  citationRate: z.number(),
  interval: Interval,
  citedCount: CitedCount,
  totalPrompts: TotalPrompts,
  answers: Answers,
  citedAnswers: CitedAnswers,
};

export const ShareOfVoice = z
  .object({
    ...RunHeader,
    ownSite: z.object({
      ...SiteRate,
      geoGrade: z.string().nullable().describe('Grade of the latest GEO check'),
    }),
    competitors: z.array(z.object(SiteRate)),
    yourRank: z.number().int(),
    gapToLeader: z.number(),
    promptBreakdown: z.array(
      z.object({
        promptId: z.number().int(),
        label: z.string(),
        prompt: z.string(),
        results: z.array(
          z.object({
            url: z.string(),
            label: z.string(),
            isOwn: z.boolean(),
            cited: z.boolean(),
            citedRuns: z.number().int(),
            runs: z.number().int(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'ShareOfVoice' });

export const RunPending = z
  .object({
    runId: z.string(),
    kind: z.enum(['visibility', 'sov']),
    status: z.enum(['queued', 'running']),
    poll: z.string(),
  })
  .meta({ id: 'GeoRunPending' });

export const GeoLatest = z
  .object({
    siteId: z.number().int(),
    url: z.string(),
    check: GeoCheck.nullable(),
    citability: GeoCitability.nullable(),
    visibility: z
      .object({
        runId: z.string(),
        finishedAt: z.string().nullable(),
        platform: z.string(),
        citedCount: CitedCount,
        totalPrompts: TotalPrompts,
        answers: Answers,
        citedAnswers: CitedAnswers,
        citationRate: z.number(),
        interval: Interval,
        change: VisibilityRun.shape.change,
      })
      .nullable(),
    shareOfVoice: z
      .object({
        runId: z.string(),
        finishedAt: z.string().nullable(),
        ownCitationRate: z.number(),
        yourRank: z.number().int(),
        gapToLeader: z.number(),
      })
      .nullable(),
  })
  .meta({ id: 'GeoLatest' });

export const GeoHistory = z
  .object({
    siteId: z.number().int(),
    page: z.number().int(),
    perPage: z.number().int(),
    total: z.number().int(),
    items: z.array(
      z.union([
        z.object({ type: z.literal('check'), at: z.string(), check: GeoCheck, citability: CitabilityScore }),
        z.object({ type: z.literal('visibility'), at: z.string(), run: VisibilityRun }),
        z.object({ type: z.literal('sov'), at: z.string(), run: ShareOfVoice }),
      ]),
    ),
  })
  .meta({ id: 'GeoHistory' });

export const PromptBody = z.object({
  prompt: z.string().trim().min(1).max(1000).describe('The question asked of answer engines'),
  label: z.string().trim().min(1).max(200).describe('Short name shown in results'),
});

export const PromptRecord = z
  .object({ id: z.number().int(), prompt: z.string(), label: z.string(), createdAt: z.string() })
  .meta({ id: 'GeoPrompt' });

export const PromptList = z
  .object({ prompts: z.array(PromptRecord), quota: z.number().int(), used: z.number().int() })
  .meta({ id: 'GeoPromptList' });

export const SeedPrompts = z
  .object({
    siteId: z.number().int(),
    url: z.string(),
    prompts: z.array(
      z.object({
        prompt: z.string(),
        label: z.string(),
        source: z.enum(['title', 'heading', 'product', 'service', 'faq', 'description']),
      }),
    ),
  })
  .meta({ id: 'GeoSeedPrompts' });

export const locationHeader = { Location: { description: 'Where to poll', schema: { type: 'string' } } };
