import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import { type Kysely, sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { toJsonb } from '../db/json.ts';
import type {
  GeoAnswersTable,
  GeoPrompt,
  GeoRun,
  GeoRunKind,
  GeoRunSite,
  GeoRunTrigger,
} from '../db/tables/geo.ts';
import { AppError, badRequest, notFound, unavailable } from '../errors.ts';
import { notify } from '../jobs/events.ts';
import { addJob } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { getSite } from '../monitoring/sites.ts';
import type { Services } from '../services.ts';
import { requireGeoPlan } from './access.ts';
import { askWithRetry, limiterFor } from './answer-engines/ask.ts';
import {
  type AnswerEngine,
  type EngineAnswer,
  EngineError,
  type ProviderId,
} from './answer-engines/engine.ts';
import { availableProviders, createEngine } from './answer-engines/index.ts';
import { GEO_RUN_ATTEMPTS, GEO_RUN_PRIORITY, GEO_RUN_TASK, geoRunJobKey, geoRunTopic } from './jobs.ts';
import { accountPrompts } from './prompts.ts';

// Visibility and share-of-voice runs. A run is a row plus a job, written in one transaction; the
// job asks every prompt of the account GEO_RUNS_PER_PROMPT times per configured provider, under
// per-provider concurrency caps, retries and the run's deadline, and writes all answers with the
// run's outcome in ONE transaction: a run has all of its evidence or none of it. A provider that
// fails (after its retries) loses its answers for this run, and says why in the run's summary;
// the run fails when every provider did.

export const newRunId = () => `gr_${randomBytes(12).toString('base64url')}`;

export function noEngines(): AppError {
  return unavailable(
    'answer_engine_unavailable',
    'No answer engine is configured on this server (set OPENAI_API_KEY, ANTHROPIC_API_KEY, PERPLEXITY_API_KEY, GEMINI_API_KEY or GEO_OPENAI_COMPAT_BASE_URL); see GET /api/v1/status.',
  );
}

/** The sites a run judges: the site itself, and for share of voice the account's competitors. */
async function runSites(
  db: Kysely<Database>,
  accountId: string,
  siteId: number,
  kind: GeoRunKind,
): Promise<GeoRunSite[]> {
  const site = await getSite(db, accountId, siteId);
  const own: GeoRunSite = { id: Number(site.id), url: site.url, label: site.label, isOwn: true };
  if (kind === 'visibility') return [own];
  if (site.site_type !== 'own') {
    throw badRequest(`Site ${siteId} is a competitor; share of voice takes one of your own sites.`, [
      { field: 'params.site_id', message: 'not an own site' },
    ]);
  }
  const competitors = await db
    .selectFrom('monitored_sites')
    .select(['id', 'url', 'label'])
    .where('account_id', '=', accountId)
    .where('site_type', '=', 'competitor')
    .orderBy('id')
    .execute();
  return [own, ...competitors.map((c) => ({ id: Number(c.id), url: c.url, label: c.label, isOwn: false }))];
}

/** Joins a queued/running run of the same site and kind, or creates one with its job. */
export async function requestRun(
  services: Services,
  accountId: string,
  siteId: number,
  kind: GeoRunKind,
  trigger: GeoRunTrigger,
): Promise<GeoRun> {
  await requireGeoPlan(services.db, accountId);
  const sites = await runSites(services.db, accountId, siteId, kind);
  const providers = availableProviders(services.config);
  if (providers.length === 0) throw noEngines();
  const prompts = await accountPrompts(services.db, accountId);
  if (prompts.length === 0) {
    throw new AppError(
      409,
      'no_prompts',
      'No prompts',
      'The account has no canonical prompts yet: add some with POST /api/v1/geo/prompts (GET .../seed-prompts suggests them from the site).',
    );
  }
  return services.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`geo_run:${siteId}:${kind}`}, 12))`.execute(
      trx,
    );
    // A run whose job died for good (attempts used up) would otherwise be joined forever: past
    // three deadlines it is marked failed, and a new one starts.
    const staleSecs = Math.ceil((3 * services.config.GEO_RUN_DEADLINE_MS) / 1000);
    await trx
      .updateTable('geo_runs')
      .set({
        status: 'failed',
        error: toJsonb({
          code: 'run_abandoned',
          message: 'The run did not finish within its deadline.',
        }),
        finished_at: sql<Date>`now()`,
      })
      .where('site_id', '=', String(siteId))
      .where('kind', '=', kind)
      .where('status', 'in', ['queued', 'running'])
      .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${staleSecs})`)
      .execute();
    const running = await trx
      .selectFrom('geo_runs')
      .selectAll()
      .where('site_id', '=', String(siteId))
      .where('kind', '=', kind)
      .where('status', 'in', ['queued', 'running'])
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (running) return running;
    const run = await trx
      .insertInto('geo_runs')
      .values({
        id: newRunId(),
        account_id: accountId,
        site_id: String(siteId),
        kind,
        trigger,
        providers,
        runs_per_prompt: services.config.GEO_RUNS_PER_PROMPT,
        sites: toJsonb(sites),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await addJob(
      trx,
      GEO_RUN_TASK,
      { runId: run.id },
      {
        jobKey: geoRunJobKey(run.id),
        maxAttempts: GEO_RUN_ATTEMPTS,
        priority: trigger === 'schedule' ? GEO_RUN_PRIORITY : 0,
      },
    );
    return run;
  });
}

export async function getRun(db: Kysely<Database>, id: string): Promise<GeoRun | undefined> {
  return db.selectFrom('geo_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export const isFinished = (run: GeoRun) =>
  run.status === 'done' || run.status === 'failed' || run.status === 'skipped';

export async function awaitRun(services: Services, run: GeoRun, waitMs: number): Promise<GeoRun> {
  if (isFinished(run) || waitMs <= 0) return run;
  const finished = await services.events.waitFor(
    geoRunTopic(run.id),
    async () => {
      const r = await getRun(services.db, run.id);
      return r && isFinished(r) ? r : undefined;
    },
    waitMs,
  );
  return finished ?? (await getRun(services.db, run.id)) ?? run;
}

/** A run of this account (404 for anyone else's). */
export async function getAccountRun(services: Services, accountId: string, id: string): Promise<GeoRun> {
  await requireGeoPlan(services.db, accountId);
  const run = await getRun(services.db, id);
  if (!run || run.account_id !== accountId) throw notFound(`No GEO run ${id} on this account.`);
  return run;
}

export async function latestRun(
  db: Kysely<Database>,
  siteId: string,
  kind: GeoRunKind,
  statuses: GeoRun['status'][] = ['done', 'failed', 'skipped'],
): Promise<GeoRun | undefined> {
  return db
    .selectFrom('geo_runs')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('kind', '=', kind)
    .where('status', 'in', statuses)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function runAnswers(db: Kysely<Database>, runId: string) {
  return db
    .selectFrom('geo_answers')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('prompt_id')
    .orderBy('provider')
    .orderBy('iteration')
    .execute();
}

// ---- the job ---------------------------------------------------------------------------------

export interface RunDeps {
  db: Kysely<Database>;
  config: Config;
  log: Logger;
  /** Aborted on worker shutdown: the run is left for the job's retry. */
  signal: AbortSignal;
  /** Tests inject engines; by default the configured providers. */
  engines?: (id: ProviderId) => AnswerEngine;
}

/** Reserves the run's provider calls against the monthly budget once; false when it would overshoot. */
async function reserveBudget(
  db: Kysely<Database>,
  config: Config,
  run: GeoRun,
  calls: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('geo_runs')
      .select('calls_reserved')
      .where('id', '=', run.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (row.calls_reserved !== null) return true;
    const { rows } = await sql<{ calls: number }>`
      insert into geo_call_usage as u (account_id, month, calls)
      select ${run.account_id}::bigint, date_trunc('month', now() at time zone 'utc')::date, ${calls}::int
       where ${calls}::int <= ${config.GEO_MONTHLY_CALL_BUDGET}::int
      on conflict (account_id, month) do update set calls = u.calls + excluded.calls
       where u.calls + excluded.calls <= ${config.GEO_MONTHLY_CALL_BUDGET}::int
      returning calls`.execute(trx);
    if (rows.length === 0) return false;
    // The month charged, for the refund when the run finishes (possibly in the next month).
    await trx
      .updateTable('geo_runs')
      .set({
        calls_reserved: calls,
        calls_month: sql<string>`date_trunc('month', now() at time zone 'utc')::date`,
      })
      .where('id', '=', run.id)
      .execute();
    return true;
  });
}

/**
 * Gives back the calls a run reserved but did not make (a provider that failed early stops
 * asking; the reservation assumed every call), counted over every attempt of the run
 * (geo_runs.calls_made: a retry after a crash does not forget the calls the first attempt sent).
 * Once per run: calls_refunded is set in the same statement that returns the calls, so a re-run
 * of the finishing step refunds nothing. Returns the calls given back.
 */
export async function refundUnmadeCalls(db: Kysely<Database>, runId: string): Promise<number> {
  const { rows } = await sql<{ refunded: number }>`
    with r as (
      update geo_runs
         set calls_refunded = greatest(calls_reserved - calls_made, 0)
       where id = ${runId} and calls_reserved is not null and calls_refunded is null
      returning account_id, calls_refunded,
                coalesce(calls_month, date_trunc('month', created_at at time zone 'utc')::date) as month
    ), u as (
      update geo_call_usage g
         set calls = greatest(g.calls - r.calls_refunded, 0)
        from r
       where g.account_id = r.account_id and g.month = r.month and r.calls_refunded > 0
      returning 1
    )
    select calls_refunded as refunded from r`.execute(db);
  return rows[0]?.refunded ?? 0;
}

export async function monthlyCallsUsed(db: Kysely<Database>, accountId: string): Promise<number> {
  const { rows } = await sql<{ calls: number }>`
    select calls from geo_call_usage
     where account_id = ${accountId}::bigint and month = date_trunc('month', now() at time zone 'utc')::date`.execute(
    db,
  );
  return rows[0]?.calls ?? 0;
}

async function finish(
  db: Kysely<Database>,
  runId: string,
  values: {
    status: 'done' | 'failed' | 'skipped';
    error?: { code: string; message: string } | null;
    summary?: Record<string, unknown>;
    answers?: Insertable<GeoAnswersTable>[];
  },
) {
  await db.transaction().execute(async (trx) => {
    // A retried job replaces whatever an interrupted attempt could not have written (nothing:
    // answers are only ever written here), so this delete is a guard, not a cleanup.
    await trx.deleteFrom('geo_answers').where('run_id', '=', runId).execute();
    if (values.answers?.length) await trx.insertInto('geo_answers').values(values.answers).execute();
    await trx
      .updateTable('geo_runs')
      .set({
        status: values.status,
        error: toJsonb(values.error ?? null),
        summary: toJsonb(values.summary ?? null),
        finished_at: sql<Date>`now()`,
      })
      .where('id', '=', runId)
      .execute();
    await refundUnmadeCalls(trx, runId);
    await notify(trx, geoRunTopic(runId));
  });
}

interface ProviderOutcome {
  provider: ProviderId;
  model: string;
  cites: boolean;
  ok: boolean;
  error?: { code: string; message: string };
  answers: { prompt: GeoPrompt; iteration: number; answer: EngineAnswer }[];
  retries: number;
  /** Calls sent to the provider (each counted once, however often it was retried). */
  calls: number;
}

/**
 * Counts the run's provider calls in geo_runs.calls_made as they go out (one statement each: a
 * call takes seconds), so the count survives a crash of this attempt.
 */
function callCounter(db: Kysely<Database>, runId: string, log: Logger) {
  const writes: Promise<unknown>[] = [];
  return {
    count: () => {
      writes.push(
        db
          .updateTable('geo_runs')
          .set({ calls_made: sql<number>`calls_made + 1` })
          .where('id', '=', runId)
          .execute()
          .catch((err) => log.warn({ runId, err }, 'geo run call not counted')),
      );
    },
    settled: () => Promise.all(writes),
  };
}

async function runProvider(
  engine: AnswerEngine,
  prompts: GeoPrompt[],
  runsPerPrompt: number,
  deps: RunDeps,
  deadline: number,
  signal: AbortSignal,
  onCall: () => void,
): Promise<ProviderOutcome> {
  const limit = limiterFor(engine.id, deps.config.GEO_PROVIDER_CONCURRENCY);
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const out: ProviderOutcome = {
    provider: engine.id,
    model: engine.model,
    cites: engine.cites,
    ok: true,
    answers: [],
    retries: 0,
    calls: 0,
  };
  const tasks = prompts.flatMap((prompt) =>
    Array.from({ length: runsPerPrompt }, (_, i) =>
      limit(async () => {
        if (both.aborted) return;
        try {
          const answer = await askWithRetry(engine, prompt.prompt, {
            maxRetries: deps.config.GEO_MAX_RETRIES,
            baseMs: deps.config.GEO_RETRY_BASE_MS,
            timeoutMs: deps.config.GEO_CALL_TIMEOUT_MS,
            signal: both,
            deadline,
            onRequest: (attempt) => {
              if (attempt === 0) {
                out.calls++;
                onCall();
              }
            },
            onRetry: (err, waitMs, attempt) => {
              out.retries++;
              deps.log.info(
                { provider: engine.id, code: err.code, waitMs: Math.round(waitMs), attempt },
                'geo provider call retried',
              );
            },
          });
          out.answers.push({ prompt, iteration: i + 1, answer });
        } catch (err) {
          // Inside the limiter, so the abort lands before the next queued call takes the slot.
          if (!out.ok) return;
          out.ok = false;
          const e =
            err instanceof EngineError
              ? err
              : new EngineError('provider_error', (err as Error).message, engine.id);
          out.error = { code: e.code, message: e.message };
          stop.abort(e); // this provider's remaining calls are pointless: its answers are discarded
        }
      }),
    ),
  );
  await Promise.all(tasks);
  if (!out.ok) out.answers = [];
  return out;
}

/** The geo_run job. Idempotent: a finished run is left alone; an interrupted one starts over. */
export async function executeRun(deps: RunDeps, runId: string): Promise<void> {
  const { db, config, log } = deps;
  const run = await getRun(db, runId);
  if (!run) return log.warn({ runId }, 'geo run row is gone; nothing to do');
  if (isFinished(run)) return;
  await db
    .updateTable('geo_runs')
    .set({ status: 'running', started_at: sql<Date>`now()` })
    .where('id', '=', runId)
    .execute();

  const prompts = await accountPrompts(db, run.account_id);
  if (prompts.length === 0) {
    // An earlier attempt may have reserved (and called) before the prompts were deleted.
    return finish(db, runId, {
      status: 'skipped',
      error: { code: 'no_prompts', message: 'The account has no canonical prompts.' },
    });
  }
  const calls = prompts.length * run.runs_per_prompt * run.providers.length;
  if (!(await reserveBudget(db, config, run, calls))) {
    const used = await monthlyCallsUsed(db, run.account_id);
    return finish(db, runId, {
      status: 'skipped',
      error: {
        code: 'budget_exhausted',
        message: `This run needs ${calls} answer-engine calls and the account has used ${used} of its ${config.GEO_MONTHLY_CALL_BUDGET} for this month (GEO_MONTHLY_CALL_BUDGET); runs resume next month.`,
      },
    });
  }

  const deadline = Date.now() + config.GEO_RUN_DEADLINE_MS;
  const runSignal = AbortSignal.any([deps.signal, AbortSignal.timeout(config.GEO_RUN_DEADLINE_MS)]);
  const make = deps.engines ?? ((id: ProviderId) => createEngine(config, id));
  const counter = callCounter(db, runId, log);
  const outcomes = await Promise.all(
    (run.providers as ProviderId[]).map((id) =>
      runProvider(make(id), prompts, run.runs_per_prompt, deps, deadline, runSignal, counter.count),
    ),
  );
  await counter.settled();
  if (deps.signal.aborted) throw new Error('worker shutting down; the geo run is left for its retry');

  const callsMade = outcomes.reduce((sum, o) => sum + o.calls, 0);
  const summary = {
    calls,
    callsMade,
    providers: outcomes.map((o) => ({
      provider: o.provider,
      model: o.model,
      cites: o.cites,
      status: o.ok ? 'ok' : 'failed',
      answers: o.answers.length,
      retries: o.retries,
      ...(o.error ? { error: o.error } : {}),
    })),
  };
  const ok = outcomes.filter((o) => o.ok);
  if (ok.length === 0) {
    const first = outcomes[0]?.error ?? { code: 'provider_error', message: 'no provider answered' };
    await finish(db, runId, { status: 'failed', error: first, summary });
    log.warn({ runId, error: first }, 'geo run failed');
    return;
  }
  const answers = ok.flatMap((o) =>
    o.answers.map((a) => ({
      run_id: runId,
      prompt_id: a.prompt.id,
      prompt: a.prompt.prompt,
      label: a.prompt.label,
      provider: o.provider,
      model: a.answer.model,
      iteration: a.iteration,
      answer: a.answer.text,
      citations: toJsonb(a.answer.citations),
      sources: toJsonb(a.answer.sources),
      usage: toJsonb(a.answer.usage),
    })),
  );
  await finish(db, runId, { status: 'done', summary, answers });
  log.info({ runId, kind: run.kind, answers: answers.length }, 'geo run done');
}
