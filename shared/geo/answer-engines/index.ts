import type { Config } from '../../config.ts';
import { createUrlPolicy } from '../../net/url-policy.ts';
import { anthropicEngine } from './anthropic.ts';
import type { AnswerEngine, ProviderId } from './engine.ts';
import { PROVIDER_IDS } from './engine.ts';
import { geminiEngine } from './gemini.ts';
import { openaiEngine } from './openai.ts';
import { openaiCompatibleEngine } from './openai-compatible.ts';
import { perplexityEngine } from './perplexity.ts';
import { resolveGroundingRedirect } from './resolve-redirect.ts';

// The answer engines this deployment has configured (environment only: docs/geo.md).

export interface ProviderStatus {
  id: ProviderId;
  available: boolean;
  model: string;
  cites: boolean;
}

type GeoConfig = Pick<
  Config,
  | 'OPENAI_API_KEY'
  | 'OPENAI_BASE_URL'
  | 'GEO_OPENAI_MODEL'
  | 'ANTHROPIC_API_KEY'
  | 'ANTHROPIC_BASE_URL'
  | 'GEO_ANTHROPIC_MODEL'
  | 'PERPLEXITY_API_KEY'
  | 'PERPLEXITY_BASE_URL'
  | 'GEO_PERPLEXITY_MODEL'
  | 'GEMINI_API_KEY'
  | 'GEMINI_BASE_URL'
  | 'GEO_GEMINI_MODEL'
  | 'GEO_OPENAI_COMPAT_BASE_URL'
  | 'GEO_OPENAI_COMPAT_API_KEY'
  | 'GEO_OPENAI_COMPAT_MODEL'
  | 'SCAN_ALLOW_HOSTS'
>;

export function providerStatus(config: GeoConfig): ProviderStatus[] {
  const on: Record<ProviderId, [boolean, string, boolean]> = {
    openai: [!!config.OPENAI_API_KEY, config.GEO_OPENAI_MODEL, true],
    anthropic: [!!config.ANTHROPIC_API_KEY, config.GEO_ANTHROPIC_MODEL, true],
    perplexity: [!!config.PERPLEXITY_API_KEY, config.GEO_PERPLEXITY_MODEL, true],
    gemini: [!!config.GEMINI_API_KEY, config.GEO_GEMINI_MODEL, true],
    openai_compatible: [!!config.GEO_OPENAI_COMPAT_BASE_URL, config.GEO_OPENAI_COMPAT_MODEL, false],
  };
  return PROVIDER_IDS.map((id) => ({ id, available: on[id][0], model: on[id][1], cites: on[id][2] }));
}

export const availableProviders = (config: GeoConfig): ProviderId[] =>
  providerStatus(config)
    .filter((p) => p.available)
    .map((p) => p.id);

export function createEngine(config: GeoConfig, id: ProviderId): AnswerEngine {
  switch (id) {
    case 'openai':
      return openaiEngine({
        apiKey: config.OPENAI_API_KEY!,
        baseURL: config.OPENAI_BASE_URL,
        model: config.GEO_OPENAI_MODEL,
      });
    case 'anthropic':
      return anthropicEngine({
        apiKey: config.ANTHROPIC_API_KEY!,
        baseURL: config.ANTHROPIC_BASE_URL,
        model: config.GEO_ANTHROPIC_MODEL,
      });
    case 'perplexity':
      return perplexityEngine({
        apiKey: config.PERPLEXITY_API_KEY!,
        baseURL: config.PERPLEXITY_BASE_URL,
        model: config.GEO_PERPLEXITY_MODEL,
      });
    case 'gemini': {
      const policy = createUrlPolicy(config.SCAN_ALLOW_HOSTS);
      return geminiEngine({
        apiKey: config.GEMINI_API_KEY!,
        baseUrl: config.GEMINI_BASE_URL,
        model: config.GEO_GEMINI_MODEL,
        resolveRedirect: (uri, signal) => resolveGroundingRedirect(uri, policy, signal),
      });
    }
    case 'openai_compatible':
      return openaiCompatibleEngine({
        apiKey: config.GEO_OPENAI_COMPAT_API_KEY,
        baseURL: config.GEO_OPENAI_COMPAT_BASE_URL!,
        model: config.GEO_OPENAI_COMPAT_MODEL,
      });
  }
}
