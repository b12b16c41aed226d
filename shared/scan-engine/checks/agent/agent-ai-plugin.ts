import { isObject, nonEmptyString, pathOf, readMachineFile } from '../../../geo-scoring/machine-files.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-ai-plugin',
    title: 'Publishes an AI plugin manifest',
    failureTitle: 'No AI plugin manifest (/.well-known/ai-plugin.json)',
    description:
      "The ai-plugin.json manifest (name_for_model, description_for_model, api.url) is still read by several agent frameworks to find a site's API. Publish it alongside your OpenAPI document.",
    requiredArtifacts: ['WellKnown'],
  },
  run({ WellKnown }) {
    const file = WellKnown.aiPlugin;
    const read = readMachineFile(file);
    const path = pathOf(file);
    if (read.state !== 'ok') return fail(`${path} ${read.reason}`, { url: file.url });
    if (!read.json) return fail(`${path} is not JSON`, { url: file.url });
    const j = read.json;
    const apiUrl = isObject(j.api) && nonEmptyString(j.api.url) ? j.api.url : null;
    const evidence = { url: file.url, nameForModel: j.name_for_model ?? null, apiUrl };
    if (nonEmptyString(j.name_for_model) && nonEmptyString(j.description_for_model) && apiUrl) {
      return pass(`AI plugin manifest for "${j.name_for_model}" pointing at ${apiUrl}`, evidence);
    }
    return warn(`${path} lacks name_for_model, description_for_model or api.url`, 0.5, evidence);
  },
});
