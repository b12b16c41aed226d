// Bytes to text the way a browser would pick the encoding: BOM, then the Content-Type charset,
// then (for HTML) a <meta charset> in the first 1024 bytes, else UTF-8.
export function decodeText(body: Buffer, contentType: string | null): string {
  let label: string | undefined;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = 'utf-8';
  else if (body[0] === 0xff && body[1] === 0xfe) label = 'utf-16le';
  else if (body[0] === 0xfe && body[1] === 0xff) label = 'utf-16be';
  label ??= /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (!label && /html/i.test(contentType ?? 'html')) {
    const head = body.subarray(0, 1024).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8'); // unknown label: UTF-8 is the web's default
  }
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(body) : decoder.decode(body);
}

// Node 20's TextDecoder decodes windows-1252 (which every "latin1"/"iso-8859-1" label means on
// the web) as ISO-8859-1, losing € and curly quotes in 0x80-0x9F. Map that block by hand.
const W1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8DŽ\x8F\x90‘’“”•–—˜™š›œ\x9DžŸ';

function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\x80-\x9f]/g, (c) => W1252_HIGH[c.charCodeAt(0) - 0x80]!);
}
