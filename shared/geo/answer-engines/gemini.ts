import { GoogleGenAI } from '@google/genai';
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

// Google Gemini with Google Search grounding. Cited URLs come from
// `groundingMetadata.groundingChunks[].web.uri`, restricted to the chunks the answer's
// `groundingSupports` point at (all chunks when there are no supports). Those URIs are redirects
// (vertexaisearch.cloud.google.com/grounding-api-redirect/...): each is resolved, without being
// followed further, through the safe fetcher (the resolver handed in) before any domain matching.
// When a redirect cannot be resolved, the chunk's `title` (Gemini puts the source's domain there)
// stands in, and when that is no host name either the chunk is kept as the redirect itself.

const Chunk = z.looseObject({
  web: z.looseObject({ uri: z.string().optional(), title: z.string().nullish() }).optional(),
});
export const GenerateBody = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z
          .looseObject({ parts: z.array(z.looseObject({ text: z.string().optional() })).optional() })
          .optional(),
        groundingMetadata: z
          .looseObject({
            groundingChunks: z.array(Chunk).nullish(),
            groundingSupports: z
              .array(z.looseObject({ groundingChunkIndices: z.array(z.number()).nullish() }))
              .nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().nullish(),
      candidatesTokenCount: z.number().nullish(),
      totalTokenCount: z.number().nullish(),
    })
    .nullish(),
  modelVersion: z.string().nullish(),
});

export type RedirectResolver = (uri: string, signal: AbortSignal) => Promise<string | null>;

export const isGroundingRedirect = (uri: string) => {
  try {
    const u = new URL(uri);
    return u.pathname.includes('/grounding-api-redirect/');
  } catch {
    return false;
  }
};

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export async function parseGenerate(
  raw: unknown,
  model: string,
  resolve: RedirectResolver,
  signal: AbortSignal,
): Promise<EngineAnswer> {
  const parsed = GenerateBody.safeParse(raw);
  if (!parsed.success) {
    throw new EngineError(
      'provider_malformed',
      `gemini response does not match generateContent: ${z.prettifyError(parsed.error)}`,
      'gemini',
    );
  }
  const cand = parsed.data.candidates[0]!;
  const text = (cand.content?.parts ?? []).map((p) => p.text ?? '').join('');
  if (!text) throw new EngineError('provider_malformed', 'gemini response has no text part', 'gemini');
  const chunks = cand.groundingMetadata?.groundingChunks ?? [];
  const supports = cand.groundingMetadata?.groundingSupports ?? [];
  const citedIdx: number[] = [];
  for (const s of supports)
    for (const i of s.groundingChunkIndices ?? []) if (!citedIdx.includes(i)) citedIdx.push(i);
  const order = supports.length > 0 ? citedIdx : chunks.map((_, i) => i);

  const resolved = await Promise.all(
    chunks.map(async (c) => {
      const uri = c.web?.uri;
      if (!uri) return null;
      const title = c.web?.title ?? null;
      if (!isGroundingRedirect(uri)) return { url: uri, title };
      const target = await resolve(uri, signal).catch(() => null);
      if (target) return { url: target, title };
      if (title && HOSTNAME.test(title)) return { url: `https://${title.toLowerCase()}/`, title };
      return { url: uri, title };
    }),
  );
  const cited = order.map((i) => resolved[i]).filter((x): x is { url: string; title: string | null } => !!x);
  const u = parsed.data.usageMetadata;
  return {
    text,
    citations: orderCitations(cited),
    sources: dedupeSources(resolved.filter((x): x is { url: string; title: string | null } => !!x)),
    usage: {
      inputTokens: num(u?.promptTokenCount),
      outputTokens: num(u?.candidatesTokenCount),
      totalTokens: num(u?.totalTokenCount),
    },
    model: parsed.data.modelVersion ?? model,
  };
}

export function geminiEngine(opts: {
  apiKey: string;
  baseUrl?: string;
  model: string;
  resolveRedirect: RedirectResolver;
}): AnswerEngine {
  return {
    id: 'gemini',
    model: opts.model,
    cites: true,
    async ask(prompt: string, { signal, timeoutMs }: AskOptions) {
      // A client per call, whose fetch remembers this call's Retry-After: the SDK's ApiError
      // carries the status but not the headers.
      let retryAfter: string | undefined;
      const ai = new GoogleGenAI({
        apiKey: opts.apiKey,
        httpOptions: {
          ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
          apiVersion: 'v1beta',
          timeout: timeoutMs,
          retryOptions: { attempts: 1 },
          fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
            const res = await fetch(input, init);
            retryAfter = res.headers.get('retry-after') ?? undefined;
            return res;
          },
        },
      });
      let raw: unknown;
      try {
        raw = await ai.models.generateContent({
          model: opts.model,
          contents: prompt,
          config: { tools: [{ googleSearch: {} }], abortSignal: signal },
        });
      } catch (err) {
        throw toEngineError(err, 'gemini', retryAfter);
      }
      return parseGenerate(raw, opts.model, opts.resolveRedirect, signal);
    },
  };
}
