import type { TextFileArtifact } from '../scan-engine/artifacts.ts';

// Reading the machine-readable files agents look for (/.well-known/*.json, /openapi.json): a
// file only counts when it is really there and parses; a soft 404 (an HTML page answering 200)
// is reported as missing rather than as a broken file.

export type MachineFile =
  | { state: 'missing'; reason: string }
  | { state: 'invalid'; reason: string }
  | { state: 'ok'; json: Record<string, unknown> | null; text: string };

export function readMachineFile(file: TextFileArtifact): MachineFile {
  if (file.status === null)
    return { state: 'missing', reason: `could not be fetched${file.error ? ` (${file.error})` : ''}` };
  if (file.status < 200 || file.status >= 300) return { state: 'missing', reason: `answers ${file.status}` };
  const text = file.body.trim();
  if (text === '') return { state: 'missing', reason: 'is empty' };
  if (/^<(?:!doctype|html|head|body)\b/i.test(text))
    return { state: 'missing', reason: 'answers with an HTML page' };
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      const json: unknown = JSON.parse(text);
      const obj =
        typeof json === 'object' && json !== null && !Array.isArray(json)
          ? (json as Record<string, unknown>)
          : null;
      if (!obj) return { state: 'invalid', reason: 'is JSON but not an object' };
      return { state: 'ok', json: obj, text };
    } catch (err) {
      return { state: 'invalid', reason: `is not valid JSON (${(err as Error).message})` };
    }
  }
  return { state: 'ok', json: null, text };
}

/** The file's path for messages ("/.well-known/mcp.json"). */
export function pathOf(file: TextFileArtifact): string {
  try {
    return new URL(file.url).pathname;
  } catch {
    return file.url;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
