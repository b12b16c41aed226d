import { z } from 'zod';
import { addPrompt, listPrompts } from '../../../shared/geo/prompts.ts';
import { presentPrompt } from '../../presenters/geo.ts';
import { PromptBody, PromptList, PromptRecord } from '../../routes/geo/schema.ts';
import { defineTool } from '../tool.ts';

export const listGeoPrompts = defineTool({
  name: 'list_geo_prompts',
  title: 'List your canonical GEO prompts',
  description:
    'The questions visibility and share-of-voice runs ask, with the plan quota (Growth 10, Agency 20). ' +
    'Same result as GET /api/v1/geo/prompts.',
  input: z.strictObject({}),
  output: PromptList,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, { services, principal }) {
    const { prompts, quota } = await listPrompts(services.db, principal.accountId);
    const body = { prompts: prompts.map(presentPrompt), quota, used: prompts.length };
    return { structured: body, text: `${body.used} of ${quota} prompts in use.` };
  },
});

export const addGeoPrompt = defineTool({
  name: 'add_geo_prompt',
  title: 'Add a canonical GEO prompt',
  description: 'Adds a question for visibility runs to ask. Same result as POST /api/v1/geo/prompts.',
  input: z.strictObject(PromptBody.shape),
  output: PromptRecord,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { services, principal }) {
    const body = presentPrompt(await addPrompt(services.db, principal.accountId, args));
    return { structured: body, text: `Prompt ${body.id} added: "${body.prompt}".` };
  },
});
