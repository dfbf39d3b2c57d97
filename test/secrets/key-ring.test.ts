import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { generateKey, isSealed, KeyRingError, parseKeyRing } from '../../src/secrets/key-ring.js';

const keyA = generateKey('a');
const keyB = generateKey('b');

describe('KUDOS_ENCRYPTION_KEY key ring', () => {
  it('opens what it sealed, for any text, and the sealed form never contains the text', () => {
    const ring = parseKeyRing(keyA);
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 300, unit: 'grapheme' }),
        fc.string({ maxLength: 40 }),
        (secret, context) => {
          const sealed = ring.seal(secret, context);
          expect(isSealed(sealed)).toBe(true);
          if (secret.length >= 4) expect(sealed).not.toContain(secret);
          expect(ring.open(sealed, context)).toBe(secret);
        },
      ),
    );
  });

  it('seals the same secret differently each time (random IV)', () => {
    const ring = parseKeyRing(keyA);
    expect(ring.seal('xoxb-1', 'c')).not.toBe(ring.seal('xoxb-1', 'c'));
  });

  it('refuses a secret moved to another row, a changed byte, and an unknown key', () => {
    const ring = parseKeyRing(keyA);
    const sealed = ring.seal('xoxb-secret', 'installation:T1:bot');
    expect(() => ring.open(sealed, 'installation:T2:bot')).toThrow(KeyRingError);
    const body = sealed.slice(-4);
    const flipped = sealed.slice(0, -4) + (body === 'AAAA' ? 'BBBB' : 'AAAA');
    expect(() => ring.open(flipped, 'installation:T1:bot')).toThrow(KeyRingError);
    expect(() => parseKeyRing(keyB).open(sealed, 'installation:T1:bot')).toThrow(
      /key a, which KUDOS_ENCRYPTION_KEY does not hold/,
    );
  });

  it('rotates: the first key seals, every key opens, and old secrets are flagged for re-sealing', () => {
    const old = parseKeyRing(keyA).seal('xoxe-refresh', 'ctx');
    const rotated = parseKeyRing(`${keyB},${keyA}`);
    expect(rotated.primaryKeyId).toBe('b');
    expect(rotated.open(old, 'ctx')).toBe('xoxe-refresh');
    expect(rotated.needsResealing(old)).toBe(true);
    const resealed = rotated.seal(rotated.open(old, 'ctx'), 'ctx');
    expect(rotated.needsResealing(resealed)).toBe(false);
    expect(parseKeyRing(keyB).open(resealed, 'ctx')).toBe('xoxe-refresh');
  });

  it('names keys without an id by a fingerprint, so their order can change', () => {
    const plainA = generateKey();
    const plainB = generateKey();
    const sealed = parseKeyRing(`${plainA},${plainB}`).seal('s', 'c');
    expect(parseKeyRing(`${plainB},${plainA}`).open(sealed, 'c')).toBe('s');
  });

  it.each([
    ['', /is required/],
    ['short', /entry 1 is not 32 bytes/],
    [`${keyA},`, /entry 2 is empty/],
    [`${keyA},${keyA}`, /key id a appears twice/],
    [`bad id:${generateKey()}`, /invalid key id/],
    [Buffer.alloc(16).toString('base64'), /not 32 bytes/],
  ])('refuses %j with one line naming the variable and no key material', (value, message) => {
    let error: unknown;
    try {
      parseKeyRing(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KeyRingError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/^KUDOS_ENCRYPTION_KEY/);
    expect((error as Error).message).not.toContain('\n');
    const material = keyA.slice(2);
    expect((error as Error).message).not.toContain(material);
  });
});
