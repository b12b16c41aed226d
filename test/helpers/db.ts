import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropDatabase } from '../../shared/db/connect.ts';

// A fresh database per test file, cloned from the migrated template that scripts/run-tests.mjs made.
export interface TestDatabase {
  url: string;
  name: string;
  drop: () => Promise<void>;
}

export function testAdminUrl(): string {
  const url = process.env.SIGHTLINE_TEST_ADMIN_URL;
  if (!url)
    throw new Error('run the tests through `npm test` (scripts/run-tests.mjs), which provides a database');
  return url;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = testAdminUrl();
  const template = process.env.SIGHTLINE_TEST_TEMPLATE!;
  const name = `sightline_t_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    // CREATE DATABASE ... TEMPLATE needs the template to have no other sessions; retry briefly.
    for (let i = 0; ; i++) {
      try {
        await c.query(`create database ${c.escapeIdentifier(name)} template ${c.escapeIdentifier(template)}`);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || i > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await c.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => dropDatabase(admin, name) };
}
