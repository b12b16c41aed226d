import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbiddenReason, parseAllowlist, parseIp } from '../../../shared/net/address-policy.ts';

const forbidden: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'linkLocal'],
  ['169.254.169.254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.255', 'carrierGradeNat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'], // benchmarking
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'ipv4Mapped'],
  ['::ffff:8.8.8.8', 'ipv4Mapped'],
  ['::7f00:1', 'ipv4Compatible'], // ::127.0.0.1 as the URL parser writes it
  ['::ffff:0:a00:1', 'rfc6145'],
  ['64:ff9b::7f00:1', 'nat64:loopback'],
  ['64:ff9b::a9fe:a9fe', 'nat64:metadata'],
  ['64:ff9b:1::1', 'nat64Local'],
  ['2002:7f00:1::1', '6to4:loopback'],
  ['2002:c0a8:101::1', '6to4:private'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo:loopback'], // client 127.0.0.1, bit-inverted
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['fd00:ec2::254', 'metadata'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'discard'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1', // just outside 172.16/12
  '100.128.0.1', // just outside 100.64/10
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
];

describe('forbiddenReason', () => {
  for (const [ip, reason] of forbidden) {
    it(`refuses ${ip} (${reason})`, () => {
      const parsed = parseIp(ip);
      assert.ok(parsed, `${ip} parses`);
      assert.equal(forbiddenReason(parsed), reason);
    });
  }
  for (const ip of allowed) {
    it(`allows public ${ip}`, () => assert.equal(forbiddenReason(parseIp(ip)!), null));
  }
});

describe('parseIp', () => {
  it('accepts bracketed IPv6 and dotted IPv4 only', () => {
    assert.equal(parseIp('[::1]')?.kind(), 'ipv6');
    assert.equal(parseIp('10.0.0.1')?.kind(), 'ipv4');
    // Legacy IPv4 forms are the URL parser's job; as literals here they are not addresses.
    assert.equal(parseIp('127.1'), null);
    assert.equal(parseIp('example.com'), null);
  });
});

describe('parseAllowlist', () => {
  const ip = (s: string) => parseIp(s)!;

  it('is closed when empty', () => {
    const list = parseAllowlist('');
    assert.equal(list.empty, true);
    assert.equal(list.matches('127.0.0.1', 80, ip('127.0.0.1')), false);
  });

  it('matches hostnames (any port), case- and root-dot-insensitive', () => {
    const list = parseAllowlist(' Localhost , fixtures.test ');
    assert.equal(list.matches('localhost', 8080, ip('127.0.0.1')), true);
    assert.equal(list.matches('LOCALHOST.', 1, null), true);
    assert.equal(list.matches('fixtures.test', 443, ip('10.0.0.1')), true);
    assert.equal(list.matches('other.test', 443, ip('127.0.0.1')), false);
  });

  it('matches host:port pairs only on that port', () => {
    const list = parseAllowlist('127.0.0.1:8080,[::1]:9090,localhost:3000');
    assert.equal(list.matches('127.0.0.1', 8080, ip('127.0.0.1')), true);
    assert.equal(list.matches('127.0.0.1', 8081, ip('127.0.0.1')), false);
    assert.equal(list.matches('[::1]', 9090, ip('::1')), true);
    assert.equal(list.matches('[::1]', 8080, ip('::1')), false);
    assert.equal(list.matches('localhost', 3000, ip('127.0.0.1')), true);
    assert.equal(list.matches('localhost', 3001, ip('127.0.0.1')), false);
  });

  it('matches CIDRs and single addresses against the resolved address', () => {
    const list = parseAllowlist('10.0.0.0/8,fd00::/8,127.0.0.2');
    assert.equal(list.matches('internal.test', 80, ip('10.9.8.7')), true);
    assert.equal(list.matches('x', 80, ip('fd00::5')), true);
    assert.equal(list.matches('x', 80, ip('127.0.0.2')), true);
    assert.equal(list.matches('x', 80, ip('127.0.0.1')), false);
    // An IPv4-mapped answer counts as its IPv4 address.
    assert.equal(list.matches('x', 80, ip('::ffff:10.1.1.1')), true);
    assert.equal(list.matches('x', 80, null), false);
  });

  it('rejects malformed entries', () => {
    for (const bad of ['10.0.0.0/33', 'host:99999', 'host:abc', 'bad host', 'a/b', 'http://x']) {
      assert.throws(() => parseAllowlist(bad), /SCAN_ALLOW_HOSTS/, bad);
    }
  });
});
