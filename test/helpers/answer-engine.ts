import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback fake answer engine that speaks each vendor's wire format, written from the vendors'
// API references, so the official SDKs can be pointed at it by base URL:
//   OpenAI Responses API        POST {origin}/openai/v1/responses          (OPENAI_BASE_URL={origin}/openai/v1)
//   Anthropic Messages API      POST {origin}/anthropic/v1/messages        (ANTHROPIC_BASE_URL={origin}/anthropic)
//   Perplexity chat completions POST {origin}/perplexity/chat/completions  (PERPLEXITY_BASE_URL={origin}/perplexity)
//   Gemini generateContent      POST {origin}/gemini/v1beta/models/{m}:generateContent (GEMINI_BASE_URL={origin}/gemini)
//   OpenAI-compatible chat      POST {origin}/compat/v1/chat/completions   (GEO_OPENAI_COMPAT_BASE_URL={origin}/compat/v1)
// Gemini's grounding chunks point at {origin}/grounding-api-redirect/<id>, which answers 302 to
// the real source URL, as vertexaisearch.cloud.google.com does.
//
// What it answers is scripted per call: a test gives a function from (vendor, prompt, n-th call
// of that vendor) to a behaviour.

export type Vendor = 'openai' | 'anthropic' | 'perplexity' | 'gemini' | 'compat';

export type Behaviour =
  | { kind: 'answer'; text: string; cite: string[]; sources?: string[]; delayMs?: number }
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown }
  | { kind: 'hang' }
  | { kind: 'raw'; status?: number; contentType?: string; body: string };

export interface EngineRequest {
  vendor: Vendor;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  prompt: string;
}

export interface FakeEngine {
  origin: string;
  port: number;
  requests: EngineRequest[];
  redirects: string[];
  /** Most requests of one vendor in flight at once, per vendor. */
  maxInFlight: Map<Vendor, number>;
  env: Record<string, string>;
  script: (vendor: Vendor, prompt: string, n: number) => Behaviour;
  close(): Promise<void>;
}

const titleOf = (url: string) => new URL(url).hostname;

function promptOf(vendor: Vendor, body: Record<string, unknown>): string {
  switch (vendor) {
    case 'openai':
      return String(body.input ?? '');
    case 'anthropic':
    case 'perplexity':
    case 'compat': {
      const msgs = (body.messages ?? []) as { content: unknown }[];
      const c = msgs[msgs.length - 1]?.content;
      return typeof c === 'string' ? c : JSON.stringify(c);
    }
    case 'gemini': {
      const contents = (body.contents ?? []) as { parts?: { text?: string }[] }[];
      return contents[0]?.parts?.map((p) => p.text ?? '').join('') ?? '';
    }
  }
}

function vendorOf(method: string, pathname: string): Vendor | null {
  if (method !== 'POST') return null;
  if (pathname === '/openai/v1/responses') return 'openai';
  if (pathname === '/anthropic/v1/messages') return 'anthropic';
  if (pathname === '/perplexity/chat/completions') return 'perplexity';
  if (/^\/gemini\/v1beta\/models\/[^/]+:generateContent$/.test(pathname)) return 'gemini';
  if (pathname === '/compat/v1/chat/completions') return 'compat';
  return null;
}

const usage = { input: 21, output: 42 };

function openaiBody(model: string, b: Extract<Behaviour, { kind: 'answer' }>) {
  // Text with one marker per citation; each url_citation annotation spans its marker.
  let text = b.text;
  const annotations = b.cite.map((url, i) => {
    const marker = ` [${i + 1}]`;
    const start = text.length;
    text += marker;
    return { type: 'url_citation', start_index: start, end_index: text.length, url, title: titleOf(url) };
  });
  return {
    id: `resp_${randomBytes(6).toString('hex')}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model,
    output: [
      {
        type: 'web_search_call',
        id: `ws_${randomBytes(6).toString('hex')}`,
        status: 'completed',
        action: {
          type: 'search',
          query: 'q',
          sources: (b.sources ?? b.cite).map((url) => ({ type: 'url', url })),
        },
      },
      {
        type: 'message',
        id: `msg_${randomBytes(6).toString('hex')}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations, logprobs: [] }],
      },
    ],
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}

function anthropicBody(model: string, b: Extract<Behaviour, { kind: 'answer' }>) {
  const toolId = `srvtoolu_${randomBytes(6).toString('hex')}`;
  return {
    id: `msg_${randomBytes(6).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      { type: 'server_tool_use', id: toolId, name: 'web_search', input: { query: 'q' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: toolId,
        content: (b.sources ?? b.cite).map((url) => ({
          type: 'web_search_result',
          url,
          title: titleOf(url),
          encrypted_content: 'enc',
          page_age: null,
        })),
      },
      { type: 'text', text: b.text, citations: null },
      ...b.cite.map((url) => ({
        type: 'text',
        text: ` (source: ${titleOf(url)})`,
        citations: [
          {
            type: 'web_search_result_location',
            url,
            title: titleOf(url),
            encrypted_index: 'idx',
            cited_text: b.text.slice(0, 40),
          },
        ],
      })),
    ],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: { web_search_requests: 1 },
    },
  };
}

function perplexityBody(model: string, b: Extract<Behaviour, { kind: 'answer' }>) {
  const text = b.text + b.cite.map((_, i) => `[${i + 1}]`).join('');
  return {
    id: randomBytes(8).toString('hex'),
    model,
    created: Math.floor(Date.now() / 1000),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        message: { role: 'assistant', content: text },
        delta: { role: 'assistant', content: '' },
      },
    ],
    citations: b.cite,
    search_results: (b.sources ?? b.cite).map((url) => ({ title: titleOf(url), url, date: null })),
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      search_context_size: 'low',
      cost: { input_tokens_cost: 0, output_tokens_cost: 0, request_cost: 0.005, total_cost: 0.005 },
    },
  };
}

function geminiBody(
  model: string,
  b: Extract<Behaviour, { kind: 'answer' }>,
  redirect: (url: string) => string,
) {
  const chunks = (b.sources ?? b.cite).map((url) => ({ web: { uri: redirect(url), title: titleOf(url) } }));
  const all = b.sources ?? b.cite;
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: b.text }] },
        finishReason: 'STOP',
        index: 0,
        groundingMetadata: {
          webSearchQueries: ['q'],
          searchEntryPoint: { renderedContent: '<div></div>' },
          groundingChunks: chunks,
          groundingSupports: b.cite.map((url) => ({
            segment: { startIndex: 0, endIndex: Math.min(10, b.text.length), text: b.text.slice(0, 10) },
            groundingChunkIndices: [all.indexOf(url)],
            confidenceScores: [0.9],
          })),
        },
      },
    ],
    usageMetadata: {
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
    modelVersion: model,
    responseId: randomBytes(8).toString('hex'),
  };
}

function compatBody(model: string, b: Extract<Behaviour, { kind: 'answer' }>) {
  return {
    id: `chatcmpl-${randomBytes(6).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: b.text } }],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

export async function startFakeEngine(
  script: FakeEngine['script'] = () => ({ kind: 'answer', text: 'No idea.', cite: [] }),
): Promise<FakeEngine> {
  const requests: EngineRequest[] = [];
  const redirects: string[] = [];
  const targets = new Map<string, string>();
  const counts = new Map<Vendor, number>();
  const inFlight = new Map<Vendor, number>();
  let origin = '';
  const redirect = (url: string) => {
    const id = randomBytes(9).toString('base64url');
    targets.set(id, url);
    return `${origin}/grounding-api-redirect/${id}`;
  };
  const engine: FakeEngine = {
    origin: '',
    port: 0,
    requests,
    redirects,
    maxInFlight: new Map(),
    env: {},
    script,
    close: async () => {},
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname.startsWith('/grounding-api-redirect/')) {
      redirects.push(url.pathname);
      const target = targets.get(url.pathname.split('/').pop()!);
      if (!target) return void res.writeHead(404).end();
      res.writeHead(302, { location: target, 'content-type': 'text/html' });
      return void res.end('<a>moved</a>');
    }
    const vendor = vendorOf(req.method ?? 'GET', url.pathname);
    if (!vendor)
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return void res.writeHead(400).end('{"error":"bad json"}');
    }
    const prompt = promptOf(vendor, body);
    requests.push({ vendor, path: url.pathname, headers: req.headers, body, prompt });
    const n = (counts.get(vendor) ?? 0) + 1;
    counts.set(vendor, n);
    const model =
      vendor === 'gemini'
        ? decodeURIComponent(url.pathname.split('/models/')[1]!.split(':')[0]!)
        : String(body.model ?? 'model');
    const b = engine.script(vendor, prompt, n);
    if (b.kind === 'hang') return; // never answers; closed with the server
    if (b.kind === 'answer' && b.delayMs) {
      inFlight.set(vendor, (inFlight.get(vendor) ?? 0) + 1);
      engine.maxInFlight.set(vendor, Math.max(engine.maxInFlight.get(vendor) ?? 0, inFlight.get(vendor)!));
      await new Promise((r) => setTimeout(r, b.delayMs));
      inFlight.set(vendor, inFlight.get(vendor)! - 1);
    }
    if (b.kind === 'raw') {
      res.writeHead(b.status ?? 200, { 'content-type': b.contentType ?? 'application/json' });
      return void res.end(b.body);
    }
    if (b.kind === 'status') {
      res.writeHead(b.status, {
        'content-type': 'application/json',
        ...(b.retryAfter !== undefined ? { 'retry-after': b.retryAfter } : {}),
      });
      const error =
        vendor === 'anthropic'
          ? {
              type: 'error',
              error: { type: b.status === 429 ? 'rate_limit_error' : 'api_error', message: 'scripted' },
            }
          : vendor === 'gemini'
            ? {
                error: {
                  code: b.status,
                  message: 'scripted',
                  status: b.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL',
                },
              }
            : {
                error: {
                  message: 'scripted',
                  type: b.status === 429 ? 'rate_limit_exceeded' : 'server_error',
                },
              };
      return void res.end(JSON.stringify(b.body ?? error));
    }
    const out =
      vendor === 'openai'
        ? openaiBody(model, b)
        : vendor === 'anthropic'
          ? anthropicBody(model, b)
          : vendor === 'perplexity'
            ? perplexityBody(model, b)
            : vendor === 'gemini'
              ? geminiBody(model, b, redirect)
              : compatBody(model, b);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(out));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  engine.origin = origin;
  engine.port = port;
  engine.env = {
    OPENAI_API_KEY: 'sk-test-openai',
    OPENAI_BASE_URL: `${origin}/openai/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: `${origin}/anthropic`,
    PERPLEXITY_API_KEY: 'pplx-test',
    PERPLEXITY_BASE_URL: `${origin}/perplexity`,
    GEMINI_API_KEY: 'gemini-test',
    GEMINI_BASE_URL: `${origin}/gemini`,
    GEO_OPENAI_COMPAT_BASE_URL: `${origin}/compat/v1`,
  };
  engine.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return engine;
}

/** Only the named vendors' variables (so the others stay unconfigured). */
export function engineEnv(engine: FakeEngine, ...vendors: Vendor[]): Record<string, string> {
  const keys: Record<Vendor, string[]> = {
    openai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
    anthropic: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
    perplexity: ['PERPLEXITY_API_KEY', 'PERPLEXITY_BASE_URL'],
    gemini: ['GEMINI_API_KEY', 'GEMINI_BASE_URL'],
    compat: ['GEO_OPENAI_COMPAT_BASE_URL'],
  };
  return Object.fromEntries(vendors.flatMap((v) => keys[v].map((k) => [k, engine.env[k]!])));
}
