import type { GeoAnswer, GeoRun, GeoRunSite, StoredCitation } from '../db/tables/geo.ts';
import { citesSite, firstCitation, mentionsSite, type SiteIdentity, siteIdentity } from './citations.ts';
import { changeLabel, type Interval, round4, wilson } from './stats.ts';

// Visibility and share of voice, computed from a run's stored answers (docs/geo.md). The names
// keep their plain meaning (decisions.md, GEO): `totalPrompts` = prompts in the run (=
// results.length), `citedCount` = prompts cited in at least one answer; every answer of a
// provider that cites is one trial, counted in `answers` and `citedAnswers`, and citationRate =
// citedAnswers / answers with a 95% Wilson interval. Providers that cannot cite
// (OpenAI-compatible servers) add mentions only.

interface ProviderSummary {
  provider: string;
  model: string;
  cites: boolean;
  status: 'ok' | 'failed';
  answers: number;
  retries: number;
  error?: { code: string; message: string };
}

const identities = new Map<string, SiteIdentity | null>();
function identity(url: string): SiteIdentity | null {
  if (!identities.has(url)) identities.set(url, siteIdentity(url));
  return identities.get(url) ?? null;
}

function providerSummaries(run: GeoRun): ProviderSummary[] {
  return ((run.summary as { providers?: ProviderSummary[] } | null)?.providers ?? []) as ProviderSummary[];
}

function citingProviders(run: GeoRun): Set<string> {
  const list = providerSummaries(run);
  // Before a run finishes there is no summary: every provider but the compatible one cites.
  if (list.length === 0) return new Set(run.providers.filter((p) => p !== 'openai_compatible'));
  return new Set(list.filter((p) => p.cites).map((p) => p.provider));
}

interface Judged {
  answer: GeoAnswer;
  cites: boolean;
  cited: boolean;
  mentioned: boolean;
  position: number | null;
}

function judge(run: GeoRun, answers: GeoAnswer[], site: GeoRunSite): Judged[] {
  const id = identity(site.url);
  const citing = citingProviders(run);
  return answers.map((answer) => {
    const citations = answer.citations as StoredCitation[];
    const cites = citing.has(answer.provider);
    const position = id && cites ? firstCitation(id, citations) : null;
    return {
      answer,
      cites,
      cited: position !== null,
      mentioned: id ? mentionsSite(id, site.label, answer.answer) : false,
      position,
    };
  });
}

export interface RateSummary {
  /** Prompts cited in at least one answer. */
  citedCount: number;
  /** Prompts asked. */
  totalPrompts: number;
  /** Answers of providers that cite (the trials), and those that cite the site. */
  answers: number;
  citedAnswers: number;
  /** citedAnswers / answers. */
  citationRate: number;
  interval: Interval;
}

function rate(judged: Judged[]): RateSummary {
  const trials = judged.filter((j) => j.cites);
  const cited = trials.filter((j) => j.cited);
  return {
    citedCount: new Set(cited.map((j) => j.answer.prompt_id)).size,
    totalPrompts: new Set(judged.map((j) => j.answer.prompt_id)).size,
    answers: trials.length,
    citedAnswers: cited.length,
    citationRate: trials.length ? round4(cited.length / trials.length) : 0,
    interval: wilson(cited.length, trials.length),
  };
}

/** The run's rate for one site (share of voice uses this for every site). */
export function siteRate(run: GeoRun, answers: GeoAnswer[], site: GeoRunSite): RateSummary {
  return rate(judge(run, answers, site));
}

const ownSite = (run: GeoRun) =>
  (run.sites as GeoRunSite[]).find((s) => s.isOwn) ?? (run.sites as GeoRunSite[])[0]!;

export function runHeader(run: GeoRun) {
  return {
    runId: run.id,
    kind: run.kind,
    status: run.status,
    trigger: run.trigger,
    siteId: Number(run.site_id),
    providers: run.providers,
    runsPerPrompt: run.runs_per_prompt,
    createdAt: run.created_at.toISOString(),
    finishedAt: run.finished_at?.toISOString() ?? null,
    error: run.error ?? null,
  };
}

/** Visibility run (interface.md) with the evidence: every answer, its citations and usage. */
export function visibilityView(
  run: GeoRun,
  answers: GeoAnswer[],
  previous?: { run: GeoRun; answers: GeoAnswer[] },
) {
  const site = ownSite(run);
  const judged = judge(run, answers, site);
  const overall = rate(judged);
  const summaries = providerSummaries(run);
  const platforms = (summaries.length ? summaries.map((s) => s.provider) : run.providers).map((p) => {
    const s = summaries.find((x) => x.provider === p);
    const mine = judged.filter((j) => j.answer.provider === p);
    return {
      platform: p,
      model: s?.model ?? null,
      cites: s?.cites ?? p !== 'openai_compatible',
      status: s?.status ?? null,
      ...(s?.error ? { error: s.error } : {}),
      ...rate(mine),
      mentionCount: mine.filter((j) => j.mentioned).length,
    };
  });
  const byPrompt = new Map<string, Judged[]>();
  for (const j of judged) {
    const list = byPrompt.get(j.answer.prompt_id) ?? [];
    list.push(j);
    byPrompt.set(j.answer.prompt_id, list);
  }
  const results = [...byPrompt.values()].map((list) => {
    const first = list[0]!.answer;
    const r = rate(list);
    const positions = list.map((j) => j.position).filter((p): p is number => p !== null);
    return {
      promptId: Number(first.prompt_id),
      label: first.label,
      prompt: first.prompt,
      cited: r.citedAnswers > 0,
      citedRuns: r.citedAnswers,
      runs: r.answers,
      citationRate: r.citationRate,
      mentioned: list.some((j) => j.mentioned),
      firstCitationPosition: positions.length ? Math.min(...positions) : null,
      answers: list.map((j) => ({
        platform: j.answer.provider,
        model: j.answer.model,
        iteration: j.answer.iteration,
        cited: j.cited,
        mentioned: j.mentioned,
        citationPosition: j.position,
        answer: j.answer.answer,
        citations: j.answer.citations,
        sources: j.answer.sources,
        usage: j.answer.usage,
      })),
    };
  });
  let change = null;
  if (previous && run.status === 'done') {
    const prev = rate(judge(previous.run, previous.answers, ownSite(previous.run)));
    if (prev.answers > 0 && overall.answers > 0) {
      change = {
        previousRunId: previous.run.id,
        previousCitationRate: prev.citationRate,
        delta: round4(overall.citationRate - prev.citationRate),
        label: changeLabel(overall.citationRate, overall.interval, prev.citationRate),
      };
    }
  }
  const usage = answers.reduce(
    (acc, a) => {
      const u = a.usage as { inputTokens: number | null; outputTokens: number | null };
      return {
        inputTokens: acc.inputTokens + (u.inputTokens ?? 0),
        outputTokens: acc.outputTokens + (u.outputTokens ?? 0),
      };
    },
    { inputTokens: 0, outputTokens: 0 },
  );
  return {
    ...runHeader(run),
    url: site.url,
    platform: platforms.length === 1 ? platforms[0]!.platform : 'all',
    ...overall,
    promptCount: byPrompt.size,
    mentionCount: judged.filter((j) => j.mentioned).length,
    change,
    platforms,
    usage,
    results,
  };
}

/** Share of voice (interface.md) over the run's own site and competitors, from one set of answers. */
export function shareOfVoiceView(run: GeoRun, answers: GeoAnswer[], geoGrade: string | null) {
  const sites = run.sites as GeoRunSite[];
  const own = ownSite(run);
  const rates = sites.map((s) => ({ site: s, ...siteRate(run, answers, s) }));
  const ownRate = rates.find((r) => r.site.isOwn)!;
  const competitors = rates.filter((r) => !r.site.isOwn);
  const yourRank = 1 + rates.filter((r) => r.citationRate > ownRate.citationRate).length;
  const leader = Math.max(...rates.map((r) => r.citationRate));
  const citing = citingProviders(run);
  const promptIds = [...new Set(answers.map((a) => a.prompt_id))];
  const promptBreakdown = promptIds.map((pid) => {
    const list = answers.filter((a) => a.prompt_id === pid && citing.has(a.provider));
    const first = answers.find((a) => a.prompt_id === pid)!;
    return {
      promptId: Number(pid),
      label: first.label,
      prompt: first.prompt,
      results: sites.map((s) => {
        const id = identity(s.url);
        const cited = id
          ? list.filter((a) => (a.citations as StoredCitation[]).some((c) => citesSite(id, c.url))).length
          : 0;
        return {
          url: s.url,
          label: s.label,
          isOwn: s.isOwn,
          cited: cited > 0,
          citedRuns: cited,
          runs: list.length,
        };
      }),
    };
  });
  return {
    ...runHeader(run),
    ownSite: {
      url: own.url,
      label: own.label,
      citationRate: ownRate.citationRate,
      interval: ownRate.interval,
      citedCount: ownRate.citedCount,
      totalPrompts: ownRate.totalPrompts,
      answers: ownRate.answers,
      citedAnswers: ownRate.citedAnswers,
      geoGrade,
    },
    competitors: competitors
      .map((c) => ({
        url: c.site.url,
        label: c.site.label,
        citationRate: c.citationRate,
        interval: c.interval,
        citedCount: c.citedCount,
        totalPrompts: c.totalPrompts,
        answers: c.answers,
        citedAnswers: c.citedAnswers,
      }))
      .sort((a, b) => b.citationRate - a.citationRate),
    yourRank,
    gapToLeader: round4(Math.max(0, leader - ownRate.citationRate)),
    promptBreakdown,
  };
}
