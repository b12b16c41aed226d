import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  SNAPSHOT_COMMAND,
  SNAPSHOT_FILE,
  schemaSnapshot,
  snapshotDiff,
} from '../../../shared/db/schema-snapshot.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// The committed schema snapshot is the schema the migrations and function files make: a change
// to either shows in review as a change to sql/schema.snapshot.txt.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let db: TestDatabase;

before(async () => {
  db = await createTestDatabase(); // a clone of the template this run migrated from nothing
});
after(() => db.drop());

describe('schema snapshot', () => {
  it(`${SNAPSHOT_FILE} matches a freshly migrated database`, async () => {
    const want = fs.readFileSync(path.join(root, SNAPSHOT_FILE), 'utf8');
    const got = await schemaSnapshot(db.url);
    if (got !== want) {
      assert.fail(
        `${SNAPSHOT_FILE} differs from the migrated schema (- snapshot, + database):\n` +
          `${snapshotDiff(want, got)}\nIf the change is intended, run \`${SNAPSHOT_COMMAND}\` and commit the file.`,
      );
    }
  });

  it('names what differs, line by line, also a line that occurs elsewhere too', () => {
    const want = 'a\n  id bigint\nb\n  id bigint\nc';
    const got = 'a\n  id bigint\nb\n  id integer\nc\nd';
    assert.equal(snapshotDiff(want, got), '- 4:   id bigint\n+ 4:   id integer\n+ 6: d');
    assert.equal(snapshotDiff(want, want), '');
  });
});
