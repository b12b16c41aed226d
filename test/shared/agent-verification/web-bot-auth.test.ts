import assert from 'node:assert/strict';
import type { JsonWebKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  type KeyResolver,
  NonceCache,
  publicKeyFromJwk,
  type SignedRequest,
  verifyWebBotAuth,
} from '../../../shared/agent-verification/web-bot-auth.ts';

// The Web Bot Auth test vectors of cloudflare/web-bot-auth (corpus): each verifies as signed, and
// a replayed, expired or altered one does not.
const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const DIR = path.join(CORPUS, 'web-bot-auth');

interface Vector {
  key: JsonWebKey;
  target_url: string;
  created_ms: number;
  expires_ms: number;
  label: string;
  signature: string;
  signature_input: string;
  signature_agent?: string;
}

const load = (f: string): Vector[] => JSON.parse(readFileSync(path.join(DIR, f), 'utf8'));

function request(v: Vector, over: Partial<SignedRequest> = {}): SignedRequest {
  return {
    method: 'GET',
    url: v.target_url,
    headers: {
      signature: v.signature,
      'signature-input': v.signature_input,
      ...(v.signature_agent ? { 'signature-agent': v.signature_agent } : {}),
    },
    at: new Date(v.created_ms + 60_000),
    ...over,
  };
}

/** The agent's key directory as the resolver sees it: the vector's public key only. */
function directory(v: Vector): { resolver: KeyResolver; agents: (string | null)[] } {
  const { keyid, key } = publicKeyFromJwk(v.key);
  const agents: (string | null)[] = [];
  return {
    agents,
    resolver: async (id, agent) => {
      agents.push(agent);
      return id === keyid ? key : null;
    },
  };
}

describe('Web Bot Auth vectors', { skip: !existsSync(DIR) && `corpus not found at ${DIR}` }, () => {
  const vectors = [
    ...load('web_bot_auth_architecture_v1.json'),
    ...load('web_bot_auth_architecture_v2.json'),
  ];

  it('every vector verifies, with the Signature-Agent handed to the key resolver', async () => {
    assert.equal(vectors.length, 8);
    for (const v of vectors) {
      const d = directory(v);
      const r = await verifyWebBotAuth(request(v), d.resolver, new NonceCache());
      assert.equal(r.ok, true, `${v.label} ${v.key.kty} ${v.signature_input}: ${JSON.stringify(r)}`);
      if (v.signature_agent) assert.deepEqual(d.agents, ['https://signature-agent.test']);
      else assert.deepEqual(d.agents, [null]);
    }
  });

  it('a replayed signature (same nonce) is refused', async () => {
    for (const v of vectors) {
      const nonces = new NonceCache();
      const d = directory(v);
      assert.equal((await verifyWebBotAuth(request(v), d.resolver, nonces)).ok, true);
      const again = await verifyWebBotAuth(request(v), d.resolver, nonces);
      assert.deepEqual(again, { ok: false, reason: 'replayed nonce' });
    }
  });

  it('an expired or not-yet-valid signature is refused', async () => {
    for (const v of vectors) {
      const d = directory(v);
      const late = await verifyWebBotAuth(
        request(v, { at: new Date(v.expires_ms + 1000) }),
        d.resolver,
        new NonceCache(),
      );
      assert.equal(late.ok, false);
      const early = await verifyWebBotAuth(
        request(v, { at: new Date(v.created_ms - 3600_000) }),
        d.resolver,
        new NonceCache(),
      );
      assert.equal(early.ok, false);
    }
  });

  it('an altered authority, Signature-Agent, signature or key is refused', async () => {
    for (const v of vectors) {
      const d = directory(v);
      const other = await verifyWebBotAuth(
        request(v, { url: 'https://example.org/path/to/resource' }),
        d.resolver,
        new NonceCache(),
      );
      assert.deepEqual(other, { ok: false, reason: 'signature does not verify' });
      const base = request(v);
      if (v.signature_agent) {
        const agent = v.signature_agent.replace('signature-agent.test', 'evil.test');
        const r = await verifyWebBotAuth(
          { ...base, headers: { ...base.headers, 'signature-agent': agent } },
          d.resolver,
          new NonceCache(),
        );
        assert.equal(r.ok, false);
        const missing = { ...base.headers };
        delete missing['signature-agent'];
        assert.equal(
          (await verifyWebBotAuth({ ...base, headers: missing }, d.resolver, new NonceCache())).ok,
          false,
        );
      }
      const sig = Buffer.from(/:(.*):/.exec(v.signature)![1]!, 'base64');
      sig[5] = (sig[5]! ^ 1) as number;
      const flipped = `${v.label}=:${sig.toString('base64')}:`;
      const r = await verifyWebBotAuth(
        { ...base, headers: { ...base.headers, signature: flipped } },
        d.resolver,
        new NonceCache(),
      );
      assert.equal(r.ok, false);
      // The other vector's key (Ed25519 vs RSA) under this keyid.
      const otherKey = vectors.find((x) => x.key.kty !== v.key.kty)!;
      const wrong: KeyResolver = async () => publicKeyFromJwk(otherKey.key).key;
      assert.equal((await verifyWebBotAuth(base, wrong, new NonceCache())).ok, false);
      // An unknown key is refused too.
      assert.deepEqual(await verifyWebBotAuth(base, async () => null, new NonceCache()), {
        ok: false,
        reason: 'unknown key',
      });
    }
  });

  it("keyids are the keys' JWK thumbprints", () => {
    for (const v of vectors) {
      const keyid = /keyid="([^"]+)"/.exec(v.signature_input)![1];
      assert.equal(publicKeyFromJwk(v.key).keyid, keyid);
    }
  });
});
