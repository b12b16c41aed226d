import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AGENTS } from '../../../shared/agent-catalogue/catalogue.ts';
import {
  AgentIpRanges,
  IP_RANGE_SOURCES,
  loadAgentIpRanges,
  parseIpRangeFile,
} from '../../../shared/agent-verification/ip-ranges.ts';

// Vendor formats with documentation addresses (RFC 5737 / RFC 3849), written here for the test.
const GOOGLE_STYLE = JSON.stringify({
  creationTime: '2025-01-01T00:00:00Z',
  prefixes: [{ ipv4Prefix: '192.0.2.0/25' }, { ipv6Prefix: '2001:db8:10::/48' }],
});
const TAGGED_ARRAY = JSON.stringify([
  { ip_address: '198.51.100.8/29', service: 'perplexitybot' },
  { ip_address: '198.51.100.64/30', service: 'perplexity-user' },
]);
const NETSET =
  '# bing ranges\ncreate bing_v4 hash:net family inet hashsize 4096\nadd bing_v4 203.0.113.0/26\n203.0.113.128/27\n';

describe('parseIpRangeFile', () => {
  it('reads the prefixes JSON that Google, OpenAI and Bing publish', () => {
    assert.deepEqual(
      parseIpRangeFile(GOOGLE_STYLE).map(([a, bits]) => `${a.toString()}/${bits}`),
      ['192.0.2.0/25', '2001:db8:10::/48'],
    );
  });
  it('keeps only the requested service from a tagged list', () => {
    assert.deepEqual(
      parseIpRangeFile(TAGGED_ARRAY, 'perplexity-user').map(([a, bits]) => `${a.toString()}/${bits}`),
      ['198.51.100.64/30'],
    );
  });
  it('reads plain and ipset text lists, ignoring comments and set options', () => {
    assert.deepEqual(
      parseIpRangeFile(NETSET).map(([a, bits]) => `${a.toString()}/${bits}`),
      ['203.0.113.0/26', '203.0.113.128/27'],
    );
  });
  it('treats a bare address as a single host', () => {
    assert.deepEqual(
      parseIpRangeFile('192.0.2.7\n').map(([, bits]) => bits),
      [32],
    );
  });
});

describe('AgentIpRanges.verify', () => {
  let dir: string;
  let ranges: AgentIpRanges;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-ranges-'));
    fs.mkdirSync(path.join(dir, 'openai'));
    fs.writeFileSync(path.join(dir, 'openai', 'gptbot.json'), GOOGLE_STYLE);
    fs.writeFileSync(path.join(dir, 'perplexitybot_ips.json'), TAGGED_ARRAY); // flat layout works too
    fs.mkdirSync(path.join(dir, 'bing'));
    fs.writeFileSync(path.join(dir, 'bing', 'bingbot.netset'), NETSET);
    fs.mkdirSync(path.join(dir, 'anthropic'));
    fs.writeFileSync(path.join(dir, 'anthropic', 'anthropic.json'), '{ not json');
    ranges = loadAgentIpRanges(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the sources it finds and skips malformed files', () => {
    assert.deepEqual(ranges.loadedSources().sort(), [
      'bing',
      'openai-gptbot',
      'perplexity-bot',
      'perplexity-user',
    ]);
    assert.equal(ranges.rangeCount('openai-gptbot'), 2);
  });

  const table: [string, string, string][] = [
    ['GPTBot', '192.0.2.10', 'verified'],
    ['GPTBot', '::ffff:192.0.2.10', 'verified'],
    ['GPTBot', '2001:db8:10::1', 'verified'],
    ['GPTBot', '192.0.2.200', 'unverified'],
    ['GPTBot', '2001:db8:11::1', 'unverified'],
    ['gptbot', '192.0.2.10', 'verified'],
    ['PerplexityBot', '198.51.100.9', 'verified'],
    ['PerplexityBot', '198.51.100.65', 'unverified'], // a Perplexity-User address, not PerplexityBot's
    ['Perplexity-User', '198.51.100.65', 'verified'],
    ['bingbot', '203.0.113.130', 'verified'],
    ['bingbot', '203.0.113.100', 'unverified'],
    ['ClaudeBot', '192.0.2.10', 'unknown'], // its file did not parse
    ['OAI-SearchBot', '192.0.2.10', 'unknown'], // no file given
    ['Bytespider', '192.0.2.10', 'unknown'], // publishes no ranges
    ['NoSuchBot', '192.0.2.10', 'unknown'],
    ['GPTBot', 'not-an-ip', 'unknown'],
  ];
  for (const [agent, ip, expected] of table) {
    it(`${agent} from ${ip} is ${expected}`, () => {
      assert.equal(ranges.verify(agent, ip), expected);
    });
  }

  it('without a ranges directory nothing is called unverified', () => {
    assert.equal(new AgentIpRanges(new Map()).verify('GPTBot', '192.0.2.10'), 'unknown');
  });

  it('every range source named in the catalogue is defined', () => {
    for (const a of AGENTS)
      if (a.ipRanges) assert.ok(IP_RANGE_SOURCES[a.ipRanges], `${a.token} -> ${a.ipRanges}`);
  });
});
