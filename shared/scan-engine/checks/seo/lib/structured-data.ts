import type { CheerioAPI } from 'cheerio';
import { perDocument } from '../../../computed/document.ts';

// JSON-LD blocks of a page, parsed once per document (shared by every check: read-only): every node with an @type (top level, @graph
// members and nested values) flattened into one list.

export type JsonLdNode = Record<string, unknown> & { '@type'?: unknown };

export interface StructuredData {
  blocks: number;
  errors: string[]; // one per block that does not parse
  /** Top-level objects without an @context (their @type then means nothing to a consumer). */
  missingContext: number;
  nodes: JsonLdNode[];
  types: string[]; // distinct @type values, in order of appearance
  /** itemtype values of microdata (schema.org URLs reduced to the type name). */
  microdataTypes: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function collect(value: unknown, out: JsonLdNode[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collect(v, out);
    return;
  }
  if (!isObject(value)) return;
  if ('@type' in value) out.push(value);
  for (const [k, v] of Object.entries(value)) if (k !== '@context') collect(v, out);
}

export function typesOf(node: JsonLdNode): string[] {
  const t = node['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.replace(/^https?:\/\/schema\.org\//, ''));
}

export const structuredData = ($: CheerioAPI): StructuredData => perDocument($, readStructuredData);

function readStructuredData($: CheerioAPI): StructuredData {
  const errors: string[] = [];
  const nodes: JsonLdNode[] = [];
  let blocks = 0;
  let missingContext = 0;
  $('script[type="application/ld+json" i]').each((i, el) => {
    blocks++;
    const text = $(el).text().trim();
    try {
      const parsed: unknown = JSON.parse(text);
      for (const top of Array.isArray(parsed) ? parsed : [parsed]) {
        if (!isObject(top) || !('@context' in top)) missingContext++;
      }
      collect(parsed, nodes);
    } catch (err) {
      errors.push(`JSON-LD block ${i + 1} does not parse: ${(err as Error).message}`);
    }
  });
  const types = [...new Set(nodes.flatMap(typesOf))];
  const microdataTypes = [
    ...new Set(
      $('[itemtype]')
        .map((_, el) => (el.attribs.itemtype ?? '').split(/\s+/))
        .get()
        .filter(Boolean)
        .map((t: string) => t.replace(/^https?:\/\/schema\.org\//, '')),
    ),
  ];
  return { blocks, errors, missingContext, nodes, types, microdataTypes };
}

/** Whether the page declares any of these schema.org types (JSON-LD or microdata). */
export function hasType(data: StructuredData, names: readonly string[]): boolean {
  return [...data.types, ...data.microdataTypes].some((t) => names.includes(t));
}
