#!/usr/bin/env node
// `npm run schema:snapshot`: migrates a fresh database (an embedded Postgres in a temporary
// folder, or a new database on the server in DATABASE_URL) and writes its schema to
// sql/schema.snapshot.txt, which test/shared/db/schema-snapshot.test.ts compares with every
// freshly migrated database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { startEmbedded } = await import('../shared/db/embedded.ts');
const { ensureDatabase, dropDatabase } = await import('../shared/db/connect.ts');
const { migrate } = await import('../shared/db/migrate.ts');
const { schemaSnapshot, SNAPSHOT_FILE } = await import('../shared/db/schema-snapshot.ts');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let cluster;
let tmp;
let adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-snapshot-'));
  fs.chmodSync(tmp, 0o755); // the unprivileged postgres user must be able to enter it
  cluster = await startEmbedded({ dataDir: tmp, reuse: false });
  adminUrl = cluster.url('postgres');
}
const name = `sightline_snapshot_${process.pid}`;
const url = new URL(adminUrl);
url.pathname = `/${name}`;
try {
  await ensureDatabase(adminUrl, name);
  await migrate(url.toString());
  fs.writeFileSync(path.join(root, SNAPSHOT_FILE), await schemaSnapshot(url.toString()));
  console.log(`wrote ${SNAPSHOT_FILE}`);
} finally {
  await dropDatabase(adminUrl, name).catch(() => {});
  if (cluster) await cluster.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}
