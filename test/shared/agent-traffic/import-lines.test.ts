import assert from 'node:assert/strict';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import { lineChunks } from '../../../shared/agent-traffic/import.ts';

// `sightline logs import` splits lines itself (lineChunks) instead of through readline: the same
// lines as readline with crlfDelay Infinity, whatever the line ends and wherever chunks are cut.

const cases = [
  'a\nb',
  'a\r\nb\r\n',
  'a\rb\r',
  'a\n\nb\n',
  '',
  '\n',
  '\r\n',
  'x\r',
  '\r\r\n\n',
  'é\nü\r\nz€',
  'a\r\r\nb',
  '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326\n'.repeat(50),
];

const readlineLines = async (parts: Buffer[]) => {
  const out: string[] = [];
  for await (const l of readline.createInterface({
    input: Readable.from(parts, { objectMode: false }),
    crlfDelay: Number.POSITIVE_INFINITY,
  }))
    out.push(l);
  return out;
};
const ourLines = async (parts: Buffer[]) => {
  const out: string[] = [];
  for await (const chunk of lineChunks(Readable.from(parts, { objectMode: false }))) out.push(...chunk);
  return out;
};

it('splits lines exactly as readline does, for chunks cut anywhere', async () => {
  for (const text of cases) {
    const buf = Buffer.from(text);
    for (const size of [1, 2, 3, 7, 1 << 20]) {
      const parts: Buffer[] = [];
      for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
      assert.deepEqual(
        await ourLines(parts),
        await readlineLines(parts),
        `${JSON.stringify(text)} in ${size}-byte chunks`,
      );
    }
  }
});
