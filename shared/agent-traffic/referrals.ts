// Human visits that arrive from answer engines count as AI referrals (not agent events): the
// referrer's host, or a utm_source naming the engine (ChatGPT adds utm_source=chatgpt.com).

const ENGINES: [RegExp, string][] = [
  [/(?:^|\.)(?:chatgpt\.com|chat\.openai\.com|openai\.com)$/, 'OpenAI'],
  [/(?:^|\.)perplexity\.ai$/, 'Perplexity'],
  [
    /(?:^|\.)(?:gemini\.google\.com|bard\.google\.com|aistudio\.google\.com|notebooklm\.google\.com)$/,
    'Google',
  ],
  [/(?:^|\.)claude\.ai$/, 'Anthropic'],
  [/(?:^|\.)(?:copilot\.microsoft\.com|copilot\.cloud\.microsoft)$/, 'Microsoft'],
  [/(?:^|\.)meta\.ai$/, 'Meta'],
  [/(?:^|\.)(?:chat\.deepseek\.com|deepseek\.com)$/, 'DeepSeek'],
  [/(?:^|\.)(?:chat\.mistral\.ai)$/, 'Mistral AI'],
  [/(?:^|\.)(?:grok\.com|x\.ai)$/, 'xAI'],
  [/(?:^|\.)you\.com$/, 'You.com'],
  [/(?:^|\.)phind\.com$/, 'Phind'],
  [/(?:^|\.)kagi\.com$/, 'Kagi'],
];

export interface Referral {
  platform: string;
  host: string;
}

/** The answer engine behind a host name (chatgpt.com -> OpenAI), or null. */
export function engine(host: string): string | null {
  const h = host.toLowerCase().replace(/^www\./, '');
  for (const [re, platform] of ENGINES) if (re.test(h)) return platform;
  return null;
}

/** The answer engine a human visit came from, by referrer or utm_source; null for anything else. */
export function aiReferral(referer: string | null | undefined, pathWithQuery: string): Referral | null {
  if (referer && referer !== '-') {
    try {
      const host = new URL(referer).hostname;
      const platform = engine(host);
      if (platform) return { platform, host: host.toLowerCase() };
    } catch {
      // not a URL: fall through to utm_source
    }
  }
  const q = pathWithQuery.indexOf('?');
  if (q >= 0) {
    const utm = new URLSearchParams(pathWithQuery.slice(q + 1)).get('utm_source');
    if (utm) {
      const platform = engine(utm);
      if (platform) return { platform, host: utm.toLowerCase() };
    }
  }
  return null;
}
