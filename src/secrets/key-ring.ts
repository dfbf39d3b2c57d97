import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (`KUDOS_ENCRYPTION_KEY`, docs/security.md): AES-256-GCM under a key ring.
 * The first key encrypts, every key decrypts, so an operator rotates by putting a new key first,
 * running `npm run keys:rotate`, then dropping the old one. Node's own `crypto` does the cipher:
 * GCM authenticates, so a changed byte or a ciphertext moved to another row (the `context` is bound
 * as additional data) fails to open instead of yielding garbage.
 */

const VARIABLE = 'KUDOS_ENCRYPTION_KEY';
const SEALED_PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class KeyRingError extends Error {
  override name = 'KeyRingError';
}

export interface KeyRing {
  /** The id of the key new secrets are sealed with. */
  readonly primaryKeyId: string;
  readonly keyIds: readonly string[];
  /** Seals `plaintext`; `context` (for example `installation:T123:bot`) must be given again to open it. */
  seal(plaintext: string, context: string): string;
  /** Opens what `seal` produced with the same context; throws KeyRingError otherwise. */
  open(sealed: string, context: string): string;
  /** True when `sealed` is not under the primary key (what `keys:rotate` re-seals). */
  needsResealing(sealed: string): boolean;
}

export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/** Parses the variable's value; every problem is one line naming the variable and never echoes a key. */
export function parseKeyRing(value: string | undefined): KeyRing {
  if (value === undefined || value.trim() === '')
    throw new KeyRingError(
      `${VARIABLE} is required: one or more 32-byte keys in base64, comma-separated (generate one with: openssl rand -base64 32)`,
    );
  const keys = new Map<string, Buffer>();
  const order: string[] = [];
  value.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    if (entry === '') throw new KeyRingError(`${VARIABLE}: entry ${index + 1} is empty`);
    const colon = entry.indexOf(':');
    const id = colon === -1 ? undefined : entry.slice(0, colon);
    const material = colon === -1 ? entry : entry.slice(colon + 1);
    if (id !== undefined && !KEY_ID.test(id))
      throw new KeyRingError(
        `${VARIABLE}: entry ${index + 1} has an invalid key id (letters, digits, _ and -, at most 32)`,
      );
    const key = decodeBase64(material);
    if (key?.length !== KEY_BYTES)
      throw new KeyRingError(`${VARIABLE}: entry ${index + 1} is not ${KEY_BYTES} bytes in base64`);
    const keyId = id ?? fingerprint(key);
    if (keys.has(keyId)) throw new KeyRingError(`${VARIABLE}: key id ${keyId} appears twice`);
    keys.set(keyId, key);
    order.push(keyId);
  });
  const primaryKeyId = order[0]!;
  const primaryKey = keys.get(primaryKeyId)!;

  return {
    primaryKeyId,
    keyIds: order,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', primaryKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${primaryKeyId}:${b64(iv)}:${b64(cipher.getAuthTag())}:${b64(body)}`;
    },
    open(sealed, context) {
      const parts = parseSealed(sealed);
      const key = keys.get(parts.keyId);
      if (!key) throw new KeyRingError(`a secret is sealed with key ${parts.keyId}, which ${VARIABLE} does not hold`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(parts.tag);
        return Buffer.concat([decipher.update(parts.body), decipher.final()]).toString('utf8');
      } catch {
        throw new KeyRingError(
          `a secret sealed with key ${parts.keyId} failed to open (wrong key, changed bytes or another row's secret)`,
        );
      }
    },
    needsResealing(sealed) {
      return parseSealed(sealed).keyId !== primaryKeyId;
    },
  };
}

/** A fresh key in the variable's format, for docs and the simulator. */
export function generateKey(id?: string): string {
  const material = randomBytes(KEY_BYTES).toString('base64');
  return id === undefined ? material : `${id}:${material}`;
}

function parseSealed(sealed: string): { keyId: string; iv: Buffer; tag: Buffer; body: Buffer } {
  if (!isSealed(sealed)) throw new KeyRingError('a stored secret is not sealed (expected enc:v1:…)');
  const [keyId, iv, tag, body, ...rest] = sealed.slice(SEALED_PREFIX.length).split(':');
  const ivBytes = iv === undefined ? undefined : decodeBase64(iv);
  const tagBytes = tag === undefined ? undefined : decodeBase64(tag);
  const bodyBytes = body === undefined ? undefined : decodeBase64(body, true);
  if (!keyId || rest.length > 0 || ivBytes?.length !== IV_BYTES || tagBytes?.length !== TAG_BYTES || !bodyBytes)
    throw new KeyRingError('a stored secret is malformed');
  return { keyId, iv: ivBytes, tag: tagBytes, body: bodyBytes };
}

function decodeBase64(text: string, allowEmpty = false): Buffer | undefined {
  if (text === '') return allowEmpty ? Buffer.alloc(0) : undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}
