import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { AGENTS, type IpRangeSourceId } from '../../shared/agent-catalogue/catalogue.ts';
import {
  IP_RANGE_SOURCES,
  loadAgentIpRanges,
  parseIpRangeFile,
} from '../../shared/agent-verification/ip-ranges.ts';

// Vendor-published crawler ranges: an agent's user agent from inside its vendor's ranges is
// verified, from anywhere else unverified.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'ai-ip-ranges');

/** The first catalogue agent verified by each source. */
const agentFor = (source: IpRangeSourceId) => AGENTS.find((a) => a.ipRanges === source)?.token as string;

/** First and last address of a prefix, both inside it. */
function ends(cidr: string): string[] {
  const [addr, bits] = ipaddr.parseCIDR(cidr);
  const first = addr.toByteArray();
  const last = [...first];
  for (let i = 0; i < first.length * 8; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (i < bits) continue;
    first[byte] = (first[byte] as number) & ~mask;
    last[byte] = (last[byte] as number) | mask;
  }
  return [ipaddr.fromByteArray(first).toString(), ipaddr.fromByteArray(last).toString()];
}

describe('AI crawler IP ranges corpus', { skip: !existsSync(DIR) && `corpus not found at ${DIR}` }, () => {
  const ranges = () => loadAgentIpRanges(DIR);

  it("loads every vendor source from the vendors' own formats", () => {
    const r = ranges();
    assert.deepEqual(r.loadedSources().sort(), (Object.keys(IP_RANGE_SOURCES) as IpRangeSourceId[]).sort());
    assert.equal(r.rangeCount('anthropic'), 38);
    assert.equal(r.rangeCount('bing'), 28);
    assert.equal(r.rangeCount('perplexity-bot') + r.rangeCount('perplexity-user'), 12);
    assert.ok(r.rangeCount('perplexity-user') > 0);
  });

  it("an agent from inside any of its vendor's prefixes is verified", () => {
    const r = ranges();
    for (const [source, def] of Object.entries(IP_RANGE_SOURCES) as [
      IpRangeSourceId,
      (typeof IP_RANGE_SOURCES)[IpRangeSourceId],
    ][]) {
      const fileName = def.files.map((f) => path.join(DIR, def.vendor, f)).find((f) => existsSync(f));
      assert.ok(fileName, `${source} file`);
      const prefixes = parseIpRangeFile(readFileSync(fileName, 'utf8'), def.service).map(
        ([a, bits]) => `${a.toString()}/${bits}`,
      );
      assert.ok(prefixes.length > 0, source);
      const token = agentFor(source);
      for (const cidr of prefixes) {
        for (const ip of ends(cidr))
          assert.equal(r.verify(token, ip), 'verified', `${token} from ${ip} (${cidr})`);
      }
    }
  });

  it("the same user agent from outside its vendor's ranges is unverified", () => {
    const r = ranges();
    const outside = ['192.0.2.1', '2001:db8::1', '127.0.0.1'];
    for (const source of Object.keys(IP_RANGE_SOURCES) as IpRangeSourceId[]) {
      for (const ip of outside) assert.equal(r.verify(agentFor(source), ip), 'unverified', `${source} ${ip}`);
    }
    // Another vendor's crawler address claiming to be GPTBot, ClaudeBot or bingbot.
    assert.equal(r.verify('GPTBot', '216.73.216.1'), 'unverified'); // Anthropic's range
    assert.equal(r.verify('ClaudeBot', '20.171.206.1'), 'unverified'); // OpenAI's GPTBot range
    assert.equal(r.verify('PerplexityBot', '216.73.216.1'), 'unverified');
    // Agents whose vendors publish no ranges cannot be verified either way.
    assert.equal(r.verify('Bytespider', '216.73.216.1'), 'unknown');
  });
});
