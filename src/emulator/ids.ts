import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random code of upper-case letters and digits (no look-alikes). */
export function randomCode(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export const newId = {
  cardOrder: () => `OR${randomCode(10)}`,
  linkOrder: () => `LO${randomCode(10)}`,
  campaign: () => `CA-${randomCode(8)}`,
  recipient: () => `RE-${randomCode(8)}`,
  group: () => `GR-${randomCode(8)}`,
  template: () => `TP-${randomCode(8)}`,
  funding: () => `FD${randomCode(10)}`,
  ledger: () => `LG${randomCode(12)}`,
  limitRequest: () => `LR-${randomCode(8)}`,
  redeemCode: () => randomCode(16),
  token: () => `emu_${randomBytes(24).toString('base64url')}`,
  request: () => `req_${randomCode(16)}`,
  event: () => randomUUID(),
};
