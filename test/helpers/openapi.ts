import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Asserts that a response matches what /openapi.json documents for it: the same description a
// client generates code from, checked against real responses in every API test.

// biome-ignore lint/suspicious/noExplicitAny: documents and bodies are arbitrary JSON walked by path
type Json = Record<string, any>;

export class SpecChecker {
  private ajv = new Ajv2020({ strict: false, allErrors: true });
  private cache = new Map<string, ReturnType<Ajv2020['compile']>>();
  constructor(readonly spec: Json) {
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'spec', components: spec.components }, 'spec');
  }

  static async load(baseUrl: string): Promise<SpecChecker> {
    const res = await fetch(`${baseUrl}/openapi.json`);
    return new SpecChecker((await res.json()) as Json);
  }

  /** pathTemplate as documented, e.g. /api/v1/audit/{order_id}. */
  check(
    method: string,
    pathTemplate: string,
    res: { status: number; headers: Headers; body: unknown },
  ): void {
    const op = this.spec.paths?.[pathTemplate]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${pathTemplate} is not documented`);
    const response = op.responses[String(res.status)];
    assert.ok(response, `${method} ${pathTemplate} does not document status ${res.status}`);
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = response.content?.[contentType];
    assert.ok(
      media || !response.content,
      `${method} ${pathTemplate} ${res.status}: undocumented content type ${contentType}`,
    );
    if (!media?.schema) return;
    const key = `${method} ${pathTemplate} ${res.status} ${contentType}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const schema = JSON.parse(
        JSON.stringify(media.schema).replaceAll('"#/components/', '"spec#/components/'),
      );
      validate = this.ajv.compile(schema);
      this.cache.set(key, validate);
    }
    const ok = validate(res.body);
    assert.ok(
      ok,
      `${key} does not match its schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`,
    );
  }
}
