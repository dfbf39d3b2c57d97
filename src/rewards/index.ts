// Public surface of the Rewards API client. Import from here only.
export { createRewardsClient, DEFAULTS } from './client.js';
export * from './types.js';
export * from './errors.js';
export * from './money.js';
export { parseApiTimestamp, tryParseApiTimestamp, toApiDate } from './time.js';
export {
  verifyWebhookSignature,
  signWebhookBody,
  parseWebhookBody,
  isOrderCreatedEvent,
  orderCreatedDataSchema,
  WEBHOOK_SIGNATURE_HEADER,
  type OrderCreatedData,
  type OrderCreatedEvent,
  type OtherWebhookEvent,
  type WebhookEvent,
  type ParsedWebhookBody,
} from './webhooks.js';
export { deriveIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from './resources/idempotency.js';
export { MAX_LINKS_PER_REQUEST, splitQuantity } from './resources/orders.js';
export { MAX_PAGE_SIZE } from './pagination.js';
export { parseRateLimitReset, parseRetryAfter, type RateLimitStatus } from './rate-limit.js';
export type {
  Balance,
  BrandedProduct,
  Campaign,
  CampaignParams,
  CanceledOrder,
  CardOrderParams,
  ChoiceProduct,
  ExecuteCampaignParams,
  Funding,
  GroupMember,
  LedgerRow,
  LimitIncreaseParams,
  LimitIncreaseResult,
  Order,
  OrderRecipient,
  OrderSummary,
  Recipient,
  RecipientGroup,
  RecipientParams,
  ResendParams,
  ResendResult,
  RewardLinkParams,
  Template,
  TemplateParams,
  TestEmailParams,
  TestEmailResult,
  TokenResponse,
  TopUpParams,
} from './schemas.js';
