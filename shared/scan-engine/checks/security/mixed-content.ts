import { defineCheck, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { upgradesInsecureRequests } from '../../security/csp.ts';
import { securityResult } from '../../security/result.ts';

// Where markup loads subresources, and whether browsers treat them as active (can change the
// page: blocked outright when insecure) or passive (images, media).
const ACTIVE: [selector: string, attribute: string][] = [
  ['script[src]', 'src'],
  ['link[rel~="stylesheet" i][href]', 'href'],
  ['link[rel="preload" i][href], link[rel="modulepreload" i][href]', 'href'],
  ['iframe[src]', 'src'],
  ['frame[src]', 'src'],
  ['object[data]', 'data'],
  ['embed[src]', 'src'],
  ['form[action]', 'action'],
];
const PASSIVE: [selector: string, attribute: string][] = [
  ['img[src]', 'src'],
  ['audio[src]', 'src'],
  ['video[src]', 'src'],
  ['video[poster]', 'poster'],
  ['source[src]', 'src'],
  ['track[src]', 'src'],
  ['input[type="image" i][src]', 'src'],
];
const SRCSET = 'img[srcset], source[srcset]';

export default defineCheck({
  meta: {
    id: 'mixed-content',
    title: 'The HTTPS page loads nothing over plain HTTP',
    failureTitle: 'The HTTPS page loads resources over plain HTTP (mixed content)',
    description:
      'An http:// script, style or frame on an HTTPS page can be rewritten in transit (browsers block them, breaking the page); http:// images leak what is viewed. Load everything over https://, or send upgrade-insecure-requests.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Resources'],
  },
  run({ Page, Resources }) {
    if (!Page.finalUrl.startsWith('https:')) return notApplicable('The page is not served over HTTPS');
    const $ = loadDocument(Page.html);
    const base = resolve($('base[href]').attr('href') ?? '', Page.finalUrl) ?? Page.finalUrl;
    const active = new Set<string>();
    const passive = new Set<string>();
    const collect = (list: [string, string][], into: Set<string>) => {
      for (const [selector, attribute] of list) {
        $(selector).each((_, el) => {
          const url = resolve($(el).attr(attribute) ?? '', base);
          if (url?.startsWith('http:')) into.add(url);
        });
      }
    };
    collect(ACTIVE, active);
    collect(PASSIVE, passive);
    $(SRCSET).each((_, el) => {
      for (const candidate of ($(el).attr('srcset') ?? '').split(',')) {
        const url = resolve(candidate.trim().split(/\s+/)[0] ?? '', base);
        if (url?.startsWith('http:')) passive.add(url);
      }
    });
    for (const r of Resources?.entries ?? []) {
      if (!r.url.startsWith('http:')) continue;
      (r.type === 'image' ? passive : active).add(r.url);
    }
    const evidence = { active: [...active].slice(0, 20), passive: [...passive].slice(0, 20) };
    if (active.size === 0 && passive.size === 0) return securityResult('mixed-content-none');
    if (upgradesInsecureRequests(Page)) {
      return securityResult('mixed-content-upgraded', undefined, evidence);
    }
    const examples = [...(active.size > 0 ? active : passive)].slice(0, 3).join(', ');
    return securityResult(
      active.size > 0 ? 'mixed-content-active' : 'mixed-content-passive',
      examples,
      evidence,
    );
  },
});

function resolve(value: string, base: string): string | null {
  const v = value.trim();
  if (!v || v.startsWith('data:') || v.startsWith('javascript:')) return null;
  try {
    return new URL(v, base).href;
  } catch {
    return null;
  }
}
