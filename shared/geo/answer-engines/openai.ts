import OpenAI from 'openai';
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

// OpenAI Responses API with the web_search tool. Cited URLs are the `url_citation` annotations
// of the output text (in text order); sources are `web_search_call.action.sources`, which the
// API returns only when asked through `include`.

const Annotation = z.looseObject({
  type: z.string(),
  url: z.string().optional(),
  title: z.string().nullish(),
  start_index: z.number().optional(),
});
const OutputItem = z.looseObject({
  type: z.string(),
  content: z
    .array(
      z.looseObject({
        type: z.string(),
        text: z.string().optional(),
        annotations: z.array(Annotation).optional(),
      }),
    )
    .optional(),
  action: z
    .looseObject({
      sources: z.array(z.looseObject({ url: z.string().optional(), title: z.string().nullish() })).nullish(),
    })
    .optional(),
});
export const ResponsesBody = z.looseObject({
  model: z.string(),
  output: z.array(OutputItem),
  usage: z
    .looseObject({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
    })
    .nullish(),
});

export function parseResponses(raw: unknown, provider: 'openai' = 'openai'): EngineAnswer {
  const parsed = ResponsesBody.safeParse(raw);
  if (!parsed.success) {
    throw new EngineError(
      'provider_malformed',
      `${provider} response does not match the Responses API: ${z.prettifyError(parsed.error)}`,
      provider,
    );
  }
  const body = parsed.data;
  const texts: string[] = [];
  const cited: { url: string; title?: string | null; at: number }[] = [];
  const sources: { url: string; title?: string | null }[] = [];
  let offset = 0;
  for (const item of body.output) {
    if (item.type === 'message') {
      for (const part of item.content ?? []) {
        if (part.type !== 'output_text' || typeof part.text !== 'string') continue;
        for (const a of part.annotations ?? []) {
          if (a.type === 'url_citation' && a.url)
            cited.push({ url: a.url, title: a.title, at: offset + (a.start_index ?? 0) });
        }
        texts.push(part.text);
        offset += part.text.length + 2;
      }
    } else if (item.type === 'web_search_call') {
      for (const s of item.action?.sources ?? []) if (s.url) sources.push({ url: s.url, title: s.title });
    }
  }
  if (texts.length === 0) {
    throw new EngineError(
      'provider_malformed',
      `${provider} response carries no output_text message`,
      provider,
    );
  }
  cited.sort((a, b) => a.at - b.at);
  return {
    text: texts.join('\n\n'),
    citations: orderCitations(cited),
    sources: dedupeSources(sources),
    usage: {
      inputTokens: num(body.usage?.input_tokens),
      outputTokens: num(body.usage?.output_tokens),
      totalTokens: num(body.usage?.total_tokens),
    },
    model: body.model,
  };
}

export function openaiEngine(opts: { apiKey: string; baseURL?: string; model: string }): AnswerEngine {
  const client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 0 });
  return {
    id: 'openai',
    model: opts.model,
    cites: true,
    async ask(prompt: string, { signal, timeoutMs }: AskOptions) {
      let raw: unknown;
      try {
        raw = await client.responses.create(
          {
            model: opts.model,
            input: prompt,
            tools: [{ type: 'web_search' }],
            include: ['web_search_call.action.sources'],
          },
          { signal, timeout: timeoutMs },
        );
      } catch (err) {
        throw toEngineError(err, 'openai');
      }
      return parseResponses(raw);
    },
  };
}
