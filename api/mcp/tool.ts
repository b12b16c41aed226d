import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Principal } from '../../shared/accounts/auth.ts';
import type { ApiTier } from '../../shared/db/tables/accounts.ts';
import type { Services } from '../../shared/services.ts';

// One MCP tool: zod schemas for its arguments and its structured result (the same schemas the
// REST endpoint documents, so the two cannot drift), the tiers that may call it, and `run`,
// which goes through the same services and presenters as the REST handler.

export interface ToolContext {
  services: Services;
  principal: Principal;
}

export interface ToolOutcome {
  /** The REST response body (an object: MCP structured content cannot be an array). */
  structured: object;
  /** A short human summary for the model. */
  text: string;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodType;
  /** Tiers allowed to call; every tier of the variant when absent. */
  tiers?: ApiTier[];
  annotations: ToolAnnotations;
  run: (args: z.output<I>, ctx: ToolContext) => Promise<ToolOutcome>;
}

export function defineTool<I extends z.ZodObject>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

type Json = Record<string, unknown>;

/**
 * JSON Schema (draft-07, as the SDK's own server emits and its client validates) with
 * `type: "object"` at the root, which MCP requires: a named schema comes back from zod as a
 * root $ref into `definitions`, so that definition is lifted to the root.
 */
function objectSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...js } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  }) as Json;
  const ref = typeof js.$ref === 'string' ? /^#\/definitions\/(.+)$/.exec(js.$ref)?.[1] : undefined;
  if (ref) {
    const { [ref]: root, ...rest } = (js.definitions ?? {}) as Record<string, Json>;
    return { ...root, ...(Object.keys(rest).length ? { definitions: rest } : {}) };
  }
  return js.type === 'object' ? js : { type: 'object', ...js };
}

const listings = new WeakMap<ToolDef, Tool>();

/** The tools/list entry of a tool, converted once per process. */
export function listing(def: ToolDef): Tool {
  let tool = listings.get(def);
  if (!tool) {
    tool = {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: objectSchema(def.input, 'input') as Tool['inputSchema'],
      outputSchema: objectSchema(def.output, 'output') as Tool['outputSchema'],
      annotations: { title: def.title, ...def.annotations },
    };
    listings.set(def, tool);
  }
  return tool;
}
