import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { agentIpRanges } from '../../../shared/agent-verification/ip-data.ts';
import {
  RdnsVerifier,
  rdnsDomains,
  settleRdns,
  type Verifier,
  verifyVisit,
} from '../../../shared/agent-verification/verify.ts';
import { NonceCache } from '../../../shared/agent-verification/web-bot-auth.ts';
import { startDnsServer } from '../../helpers/dns-server.ts';

// Forward-confirmed reverse DNS against a real DNS server on loopback (UDP, the DNS wire format):
// PTR into a vendor's documented domain plus an A record back to the same address is `rdns`; a
// name outside the domain, a PTR whose A record points elsewhere, or no PTR at all is a mismatch.

const PTR: Record<string, string> = {
  '11.2.0.192.in-addr.arpa': 'crawl-192-0-2-11.googlebot.com',
  '10.2.0.192.in-addr.arpa': 'fake.googlebot.com',
  '13.2.0.192.in-addr.arpa': 'host.example.net',
  '14.2.0.192.in-addr.arpa': '14.applebot.apple.com',
};
const A: Record<string, string> = {
  'crawl-192-0-2-11.googlebot.com': '192.0.2.11',
  'fake.googlebot.com': '192.0.2.99',
  'host.example.net': '192.0.2.13',
  '14.applebot.apple.com': '192.0.2.14',
};

function encodeName(name: string): Buffer {
  return Buffer.concat([
    ...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
}

function answer(query: Buffer): Buffer {
  let i = 12;
  const labels: string[] = [];
  while (query[i]! > 0) {
    labels.push(query.subarray(i + 1, i + 1 + query[i]!).toString());
    i += query[i]! + 1;
  }
  const qname = labels.join('.').toLowerCase();
  const qtype = query.readUInt16BE(i + 1);
  const question = query.subarray(12, i + 5);
  let rdata: Buffer | null = null;
  if (qtype === 12 && PTR[qname]) rdata = encodeName(PTR[qname]!);
  if (qtype === 1 && A[qname]) rdata = Buffer.from(A[qname]!.split('.').map(Number));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(rdata ? 0x8180 : 0x8183, 2); // response, RD+RA; rcode 3 = NXDOMAIN
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(rdata ? 1 : 0, 6);
  if (!rdata) return Buffer.concat([header, question]);
  const rr = Buffer.alloc(12);
  rr.writeUInt16BE(0xc00c, 0);
  rr.writeUInt16BE(qtype, 2);
  rr.writeUInt16BE(1, 4);
  rr.writeUInt32BE(60, 6);
  rr.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([header, question, rr, rdata]);
}

let server: dgram.Socket;
let address: string;
before(async () => {
  server = dgram.createSocket('udp4');
  server.on('message', (msg, rinfo) => server.send(answer(msg), rinfo.port, rinfo.address));
  await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

describe('forward-confirmed reverse DNS', () => {
  it('confirms a PTR in the vendor domain whose A record returns to the address', async () => {
    const r = new RdnsVerifier({ timeoutMs: 1000, servers: [address] });
    assert.equal(await r.check('192.0.2.11', ['.googlebot.com', '.google.com']), 'confirmed');
    assert.equal(await r.check('192.0.2.10', ['.googlebot.com']), 'mismatch', 'A record points elsewhere');
    assert.equal(await r.check('192.0.2.13', ['.googlebot.com']), 'mismatch', 'outside the vendor domain');
    assert.equal(await r.check('192.0.2.12', ['.googlebot.com']), 'mismatch', 'no PTR record');
  });

  it('an unreachable resolver tells nothing (unknown), never spoofed on its own', async () => {
    const r = new RdnsVerifier({ timeoutMs: 100, servers: ['127.0.0.1:9'] });
    assert.equal(await r.check('192.0.2.11', ['.googlebot.com']), 'unknown');
  });

  it('verifyVisit: pending where only reverse DNS can tell; settleRdns gives its verdict', async () => {
    const v: Verifier = {
      ranges: agentIpRanges(),
      rdns: new RdnsVerifier({ timeoutMs: 1000, servers: [address] }),
      resolveKey: null,
      nonces: new NonceCache(),
    };
    const verdict = async (agent: string, platform: string, ip: string) => {
      const quick = await verifyVisit(v, { agent, platform, ip, signed: null });
      if (quick !== 'pending') return quick;
      return settleRdns(await v.rdns!.check(ip, rdnsDomains(agent, platform)!));
    };
    assert.equal(
      await verifyVisit(v, { agent: 'Applebot', platform: 'Apple', ip: '192.0.2.14', signed: null }),
      'pending',
    );
    assert.equal(await verdict('Applebot', 'Apple', '192.0.2.14'), 'rdns');
    assert.equal(await verdict('Applebot', 'Apple', '192.0.2.13'), 'spoofed');
    assert.equal(await verdict('Googlebot', 'Google', '192.0.2.11'), 'rdns');
    assert.equal(await verdict('Googlebot', 'Google', '192.0.2.10'), 'spoofed');
    assert.equal(await verdict('Googlebot', 'Google', '66.249.66.1'), 'ip');
    assert.equal(await verdict('CCBot', 'Common Crawl', '192.0.2.13'), 'none');
    // Without reverse DNS, an address outside the ranges is spoofed by the ranges alone.
    const offline = { ...v, rdns: null };
    assert.equal(
      await verifyVisit(offline, { agent: 'Googlebot', platform: 'Google', ip: '192.0.2.11', signed: null }),
      'spoofed',
    );
  });

  it('a resolver that never answers is unverified, and is asked again next time (no cached failure)', async () => {
    const silent = await startDnsServer(null);
    try {
      const r = new RdnsVerifier({ timeoutMs: 100, servers: [silent.address] });
      assert.equal(settleRdns(await r.check('192.0.2.11', ['.googlebot.com'])), 'unverified');
      const asked = silent.queries;
      assert.equal(await r.check('192.0.2.11', ['.googlebot.com']), 'unknown');
      assert.ok(silent.queries > asked, 'the failure was served from the cache');
    } finally {
      await silent.close();
    }
  });
});
