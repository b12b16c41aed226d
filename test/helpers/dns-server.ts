import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

// A DNS server on loopback (UDP, the DNS wire format) for reverse-DNS verification: answers PTR
// and A questions from the records given (NXDOMAIN for others), or, given null, never answers
// (a resolver that times out). `address` is what AGENT_RDNS_SERVERS takes.

export interface DnsRecords {
  ptr: Record<string, string>;
  a: Record<string, string>;
}

export interface DnsServer {
  address: string;
  /** Questions received so far. */
  queries: number;
  close(): Promise<void>;
}

function encodeName(name: string): Buffer {
  return Buffer.concat([
    ...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
}

function answer(query: Buffer, records: DnsRecords): Buffer {
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
  if (qtype === 12 && records.ptr[qname]) rdata = encodeName(records.ptr[qname]!);
  if (qtype === 1 && records.a[qname]) rdata = Buffer.from(records.a[qname]!.split('.').map(Number));
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

export async function startDnsServer(records: DnsRecords | null): Promise<DnsServer> {
  const socket = dgram.createSocket('udp4');
  const server: DnsServer = {
    address: '',
    queries: 0,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
  socket.on('message', (msg, rinfo) => {
    server.queries++;
    if (records) socket.send(answer(msg, records), rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  server.address = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return server;
}
