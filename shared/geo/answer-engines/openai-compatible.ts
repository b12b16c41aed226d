import OpenAI from 'openai';
import { z } from 'zod';
import { type AnswerEngine, type AskOptions, EngineError, num, toEngineError } from './engine.ts';

// Any OpenAI-compatible chat-completions server (ollama, llama.cpp server, vLLM) by base URL,
// through the OpenAI SDK. These models answer from their weights with no web search, so they
// cite nothing: the provider reports mentions only (`cites: false`), and its answers never count
// towards a citation rate.

export const ChatBody = z.looseObject({
  model: z.string(),
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullish() }) })).min(1),
  usage: z
    .looseObject({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
    })
    .nullish(),
});

export function openaiCompatibleEngine(opts: {
  apiKey?: string;
  baseURL: string;
  model: string;
}): AnswerEngine {
  // Local servers take any key; the SDK insists on one.
  const client = new OpenAI({ apiKey: opts.apiKey || 'not-needed', baseURL: opts.baseURL, maxRetries: 0 });
  return {
    id: 'openai_compatible',
    model: opts.model,
    cites: false,
    async ask(prompt: string, { signal, timeoutMs }: AskOptions) {
      let raw: unknown;
      try {
        raw = await client.chat.completions.create(
          { model: opts.model, messages: [{ role: 'user', content: prompt }] },
          { signal, timeout: timeoutMs },
        );
      } catch (err) {
        throw toEngineError(err, 'openai_compatible');
      }
      const parsed = ChatBody.safeParse(raw);
      const text = parsed.success ? parsed.data.choices[0]?.message.content : undefined;
      if (!parsed.success || !text) {
        throw new EngineError(
          'provider_malformed',
          'openai_compatible response has no assistant message',
          'openai_compatible',
        );
      }
      const u = parsed.data.usage;
      return {
        text,
        citations: [],
        sources: [],
        usage: {
          inputTokens: num(u?.prompt_tokens),
          outputTokens: num(u?.completion_tokens),
          totalTokens: num(u?.total_tokens),
        },
        model: parsed.data.model,
      };
    },
  };
}
