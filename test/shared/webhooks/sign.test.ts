import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, webhookHeaders } from '../../../shared/webhooks/sign.ts';

describe('Standard Webhooks signing', () => {
  it('matches the test vector of the Standard Webhooks reference libraries', () => {
    // From the specification's reference implementations (msg id, timestamp, body, signature).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('produces headers the standardwebhooks package verifies, and only for the exact body', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event: 'audit.delivered', order_id: 'ao_x' });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, {
      id: 'msg_1',
      event: 'audit.delivered',
      timestampSeconds: now,
      body,
    });
    assert.equal(headers['x-service-event'], 'audit.delivered');
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(secret).verify(body.replace('ao_x', 'ao_y'), headers));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
    const stale = webhookHeaders(secret, { id: 'msg_1', event: 'e', timestampSeconds: now - 3600, body });
    assert.throws(
      () => new Webhook(secret).verify(body, stale),
      'an hour-old timestamp is refused by receivers',
    );
  });

  it('makes whsec_ secrets of 24 random bytes, different each time', () => {
    const a = newWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 24);
    assert.notEqual(a, newWebhookSecret());
  });
});
