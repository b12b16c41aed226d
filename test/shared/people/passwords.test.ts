import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPassword, hashPassword, passwordProblem } from '../../../shared/people/passwords.ts';

describe('passwords', () => {
  it('hashes with argon2id at OWASP parameters, salted, and verifies', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(a, b, 'each hash has its own salt');
    assert.equal(await checkPassword(a, 'correct horse battery staple'), true);
    assert.equal(await checkPassword(a, 'correct horse battery stapler'), false);
  });

  it('says false, after the same work, when there is no stored hash or it is damaged', async () => {
    assert.equal(await checkPassword(null, 'anything at all'), false);
    assert.equal(await checkPassword(undefined, 'anything at all'), false);
    assert.equal(await checkPassword('$argon2id$v=19$garbage', 'anything at all'), false);
  });

  it('asks for 10 to 200 characters', () => {
    assert.match(passwordProblem('short') ?? '', /at least 10/);
    assert.equal(passwordProblem('ten chars!'), null);
    assert.match(passwordProblem('x'.repeat(201)) ?? '', /at most 200/);
  });
});
