import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// A real HTTP(S) server on 127.0.0.1 (random port) for tests: serves a static folder and/or
// custom routes, and records every request it receives.

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

export interface FixtureHit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface FixtureServer {
  url: string; // origin + '/'
  origin: string; // http://127.0.0.1:<port>, or https:// when started with `tls`
  port: number;
  hits: FixtureHit[];
  close(): Promise<void>;
}

export interface FixtureServerOptions {
  root?: string; // folder served as the web root
  routes?: Record<string, RouteHandler>; // exact pathname -> handler; checked before the folder
  host?: string; // default 127.0.0.1 (any 127.0.0.0/8 address works on Linux)
  tls?: { key: string; cert: string }; // serve https (see selfSignedCert)
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.pdf': 'application/pdf',
};

export async function startFixtureServer(opts: FixtureServerOptions = {}): Promise<FixtureServer> {
  const hits: FixtureHit[] = [];
  const root = opts.root ? path.resolve(opts.root) : null;
  const handler: http.RequestListener = async (req, res) => {
    hits.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
    try {
      const route = opts.routes?.[pathname];
      if (route) return void (await route(req, res));
      if (root) return void (await serveFile(root, pathname, req, res));
      notFound(res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    }
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `${opts.tls ? 'https' : 'http'}://${host}:${port}`;
  return {
    url: `${origin}/`,
    origin,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route answering a small HTML page after `ms`: scans of it are mid-flight for a while. */
export const slowPage =
  (title: string, ms: number): RouteHandler =>
  (_req, res) => {
    setTimeout(() => {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>Hi</h1></body></html>`,
        );
    }, ms);
  };

function notFound(res: http.ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('Not found');
}

async function serveFile(
  root: string,
  pathname: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  let file = path.join(root, decodeURIComponent(pathname));
  // Never serve outside the root.
  if (file !== root && !file.startsWith(root + path.sep)) return notFound(res);
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    file = path.join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return notFound(res);
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': info.size,
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

/** A throwaway self-signed certificate for 127.0.0.1 and localhost (needs the openssl CLI). */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sl-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2']
        .concat(['-keyout', key, '-out', cert, '-subj', '/CN=localhost'])
        .concat(['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
