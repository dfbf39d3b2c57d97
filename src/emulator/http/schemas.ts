import { z } from 'zod';

/** Shared request-field schemas (shape only; business rules live in state/). */
export const Email = z.email({ message: 'must be an e-mail address' }).max(254);
export const IdempotencyKey = z.string().min(1, 'is required').max(255);
export const Amount = z.number({ message: 'must be a number' }).finite().positive('must be positive');
export const HexColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be a hex color #RRGGBB');
export const CardTypeField = z.enum(['BRANDED_CARD', 'CHOICE_CARD']);
