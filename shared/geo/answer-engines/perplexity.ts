import Perplexity from '@perplexity-ai/perplexity_ai';
import { z } from 'zod';
import {
  type AnswerEngine,
  type AskOptions,
  dedupeSources,
  type EngineAnswer,
  EngineError,
  num,
  orderCitations,
  toEngineError,
} from './engine.ts';

// Perplexity Sonar through Perplexity's official SDK (chat completions). Cited URLs are the
// `citations` array (the [n] markers of the answer point into it); where an answer carries only
// `search_results` (the newer field), those are the cited list. Sources are `search_results`.

const Content = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);
export const CompletionBody = z.looseObject({
  model: z.string(),
  choices: z.array(z.looseObject({ message: z.looseObject({ content: Content.nullish() }) })).min(1),
  citations: z.array(z.string()).nullish(),
  search_results: z.array(z.looseObject({ url: z.string(), title: z.string().nullish() })).nullish(),
  usage: z
    .looseObject({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
    })
    .nullish(),
});

export function parseSonar(raw: unknown): EngineAnswer {
  const parsed = CompletionBody.safeParse(raw);
  if (!parsed.success) {
    throw new EngineError(
      'provider_malformed',
      `perplexity response does not match chat completions: ${z.prettifyError(parsed.error)}`,
      'perplexity',
    );
  }
  const body = parsed.data;
  const content = body.choices[0]?.message.content;
  const text = typeof content === 'string' ? content : (content ?? []).map((c) => c.text ?? '').join('');
  if (!text)
    throw new EngineError('provider_malformed', 'perplexity response has an empty message', 'perplexity');
  const results = body.search_results ?? [];
  const titles = new Map(results.map((r) => [r.url, r.title]));
  const cited = body.citations?.length
    ? body.citations.map((url) => ({ url, title: titles.get(url) ?? null }))
    : results;
  return {
    text,
    citations: orderCitations(cited),
    sources: dedupeSources(results),
    usage: {
      inputTokens: num(body.usage?.prompt_tokens),
      outputTokens: num(body.usage?.completion_tokens),
      totalTokens: num(body.usage?.total_tokens),
    },
    model: body.model,
  };
}

export function perplexityEngine(opts: { apiKey: string; baseURL?: string; model: string }): AnswerEngine {
  const client = new Perplexity({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 0 });
  return {
    id: 'perplexity',
    model: opts.model,
    cites: true,
    async ask(prompt: string, { signal, timeoutMs }: AskOptions) {
      let raw: unknown;
      try {
        raw = await client.chat.completions.create(
          { model: opts.model, messages: [{ role: 'user', content: prompt }] },
          { signal, timeout: timeoutMs },
        );
      } catch (err) {
        throw toEngineError(err, 'perplexity');
      }
      return parseSonar(raw);
    },
  };
}
