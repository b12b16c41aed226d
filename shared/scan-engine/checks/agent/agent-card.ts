import { nonEmptyString, pathOf, readMachineFile } from '../../../geo-scoring/machine-files.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-card',
    title: 'Publishes an agent card',
    failureTitle: 'No agent card (/.well-known/agent.json)',
    description:
      'An agent card describes what your service can do for other agents (name, endpoint, skills), as in the Agent2Agent protocol. Publish /.well-known/agent.json.',
    requiredArtifacts: ['WellKnown'],
  },
  run({ WellKnown }) {
    const file = WellKnown.agent;
    const read = readMachineFile(file);
    const path = pathOf(file);
    if (read.state !== 'ok') return fail(`${path} ${read.reason}`, { url: file.url });
    if (!read.json) return fail(`${path} is not JSON`, { url: file.url });
    const j = read.json;
    const name = nonEmptyString(j.name) ? j.name : null;
    const reachable =
      nonEmptyString(j.url) ||
      nonEmptyString(j.endpoint) ||
      Array.isArray(j.endpoints) ||
      nonEmptyString(j.mcp);
    const describes =
      Array.isArray(j.skills) ||
      Array.isArray(j.capabilities) ||
      typeof j.capabilities === 'object' ||
      nonEmptyString(j.description);
    const evidence = { url: file.url, name, reachable, describes };
    if (name && reachable && describes) return pass(`Agent card for "${name}"`, evidence);
    const gaps = [
      !name && 'a name',
      !reachable && 'an endpoint URL',
      !describes && 'skills or a description',
    ].filter(Boolean);
    return warn(`${path} lacks ${gaps.join(', ')}`, 0.5, evidence);
  },
});
