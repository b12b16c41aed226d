import { isObject, pathOf, readMachineFile } from '../../../geo-scoring/machine-files.ts';
import { defineCheck, fail, pass } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-openapi',
    title: 'Publishes an OpenAPI description',
    failureTitle: 'No OpenAPI description found',
    description:
      'An OpenAPI document lets agents call your service instead of scraping it. Serve it at /openapi.json or link it with <link rel="service-desc">.',
    requiredArtifacts: ['WellKnown'],
  },
  run({ WellKnown }) {
    const file = WellKnown.openapi;
    const path = pathOf(file);
    const read = readMachineFile(file);
    if (read.state !== 'ok') return fail(`OpenAPI description ${path} ${read.reason}`, { url: file.url });
    if (read.json) {
      const version = read.json.openapi ?? read.json.swagger;
      const paths = isObject(read.json.paths) ? Object.keys(read.json.paths).length : 0;
      if (typeof version !== 'string')
        return fail(`${path} is JSON but declares no "openapi" version`, { url: file.url });
      return pass(`OpenAPI ${version} description with ${paths} paths at ${path}`, {
        url: file.url,
        version,
        paths,
      });
    }
    // YAML: recognised by its version line and paths map rather than parsed in full.
    const version = /^(?:openapi|swagger):\s*["']?([\d.]+)/m.exec(read.text)?.[1];
    if (version && /^paths:/m.test(read.text))
      return pass(`OpenAPI ${version} description (YAML) at ${path}`, { url: file.url, version });
    return fail(`${path} is not an OpenAPI document`, { url: file.url });
  },
});
