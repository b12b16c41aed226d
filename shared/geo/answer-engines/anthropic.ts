import Anthropic from '@anthropic-ai/sdk';
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

// Anthropic Messages API with the server-side web_search tool. Cited URLs are the
// `web_search_result_location` citations on text blocks (in text order); sources are the
// `web_search_result` items of the `web_search_tool_result` blocks.

const Block = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  citations: z
    .array(z.looseObject({ type: z.string(), url: z.string().optional(), title: z.string().nullish() }))
    .nullish(),
  content: z.unknown().optional(),
});
export const MessageBody = z.looseObject({
  model: z.string(),
  content: z.array(Block),
  usage: z.looseObject({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
});
const SearchResults = z.array(
  z.looseObject({ type: z.string(), url: z.string(), title: z.string().nullish() }),
);

export function parseMessage(raw: unknown): EngineAnswer {
  const parsed = MessageBody.safeParse(raw);
  if (!parsed.success) {
    throw new EngineError(
      'provider_malformed',
      `anthropic response does not match the Messages API: ${z.prettifyError(parsed.error)}`,
      'anthropic',
    );
  }
  const body = parsed.data;
  const texts: string[] = [];
  const cited: { url: string; title?: string | null }[] = [];
  const sources: { url: string; title?: string | null }[] = [];
  for (const block of body.content) {
    if (block.type === 'text' && typeof block.text === 'string') {
      texts.push(block.text);
      for (const c of block.citations ?? []) {
        if (c.type === 'web_search_result_location' && c.url) cited.push({ url: c.url, title: c.title });
      }
    } else if (block.type === 'web_search_tool_result') {
      const results = SearchResults.safeParse(block.content);
      if (results.success) for (const r of results.data) if (r.type === 'web_search_result') sources.push(r);
    }
  }
  if (texts.length === 0) {
    throw new EngineError('provider_malformed', 'anthropic response carries no text block', 'anthropic');
  }
  const input = num(body.usage?.input_tokens);
  const output = num(body.usage?.output_tokens);
  return {
    text: texts.join(''),
    citations: orderCitations(cited),
    sources: dedupeSources(sources),
    usage: {
      inputTokens: input,
      outputTokens: output,
      totalTokens: input !== null && output !== null ? input + output : null,
    },
    model: body.model,
  };
}

export function anthropicEngine(opts: {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxTokens?: number;
}): AnswerEngine {
  const client = new Anthropic({ apiKey: opts.apiKey, baseURL: opts.baseURL, maxRetries: 0 });
  return {
    id: 'anthropic',
    model: opts.model,
    cites: true,
    async ask(prompt: string, { signal, timeoutMs }: AskOptions) {
      let raw: unknown;
      try {
        raw = await client.messages.create(
          {
            model: opts.model,
            max_tokens: opts.maxTokens ?? 2048,
            messages: [{ role: 'user', content: prompt }],
            tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
          },
          { signal, timeout: timeoutMs },
        );
      } catch (err) {
        throw toEngineError(err, 'anthropic');
      }
      return parseMessage(raw);
    },
  };
}
