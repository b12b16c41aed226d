// A tiny HTML builder for server-rendered pages: interpolations are escaped unless they are
// markup made by this builder, so user data (labels, URLs, messages) can never inject markup.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | null | undefined | false | Part[];

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(p: Part): string {
  if (p === null || p === undefined || p === false) return '';
  if (Array.isArray(p)) return p.map(render).join('');
  if (p instanceof Html) return p.value;
  return escapeHtml(String(p));
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((p, i) => {
    out += render(p) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Markup that is already safe (constants of this module's callers, never user data). */
export const raw = (s: string) => new Html(s);
