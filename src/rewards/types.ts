// Public types of the Rewards API client: options, list results and the resource interfaces.
import type { RateLimitStatus } from './rate-limit.js';
import type {
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
  TopUpParams,
} from './schemas.js';

/** Every scope of spec part 5; the default request. */
export const ALL_SCOPES = [
  'catalog.read',
  'orders.read',
  'orders.write',
  'orders.cancel',
  'campaigns.read',
  'campaigns.write',
  'recipients.read',
  'recipients.write',
  'balance.read',
  'balance.write',
] as const;

/** What the `onCall` hook gets once per HTTP attempt (retries and token requests included). */
export interface CallInfo {
  method: string;
  /** Route template, e.g. `/api/v1/orders/{orderId}`: bounded cardinality for metrics. */
  endpoint: string;
  /** HTTP status, or 'network' for a dropped connection, timeout or abort. */
  status: number | 'network';
  /** Error code of a non-2xx answer, or TIMEOUT / ABORTED / CONNECTION_ERROR. */
  code?: string;
  ms: number;
}

export interface RewardsClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes requested with the token; default: every scope of spec part 5. */
  scopes?: string[];
  /** Per-attempt timeout; default 10_000 ms. */
  timeoutMs?: number;
  /**
   * Per-attempt timeout of order creation (orders, reward links, campaign execution) when the call
   * names none; default 30_000 ms (never less than `timeoutMs`). Longer than a read's: an attempt that
   * times out is sent again, and a slow server is usually still placing the first one, so a tight
   * timeout turns one order into a second POST (answered 409) and a lookup by its key.
   */
  orderTimeoutMs?: number;
  /** Retries after the first attempt, for requests that may be retried; default 3. */
  maxRetries?: number;
  /** Metrics hook, called once per HTTP attempt. Exceptions thrown by it are ignored. */
  onCall?: (info: CallInfo) => void;

  // Additions beyond the team interface (all optional).
  /** First backoff delay; doubles per retry, with full jitter. Default 200 ms. */
  retryBaseDelayMs?: number;
  /** Upper bound of any single wait (backoff, Retry-After, rate-limit spacing). Default 30_000 ms. */
  maxRetryDelayMs?: number;
  /** Renew the token this long before it expires: min(refreshMarginMs, 10% of its lifetime). Default 60_000. */
  tokenRefreshMarginMs?: number;
  /** Lookups by clientOrderId after a 409 DUPLICATE_IDEMPOTENCY_KEY before giving up. Default 5. */
  recoveryAttempts?: number;
  /** Max simultaneous connections to the API. Default 32. */
  connections?: number;
  /** Clock in ms (tests). Default Date.now. */
  now?: () => number;
  /** Sleep used for backoff and rate-limit spacing (tests). Default: a timer that honours the signal. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for jitter (tests). Default Math.random. */
  random?: () => number;
  /**
   * A rate budget shared beyond this client (e.g. every instance of the app through its database).
   * When given, every API request (not the token request) waits for `acquire` instead of the client's
   * own spacing, every answer is shown to `observe`, and a 429 is retried through the gate (it does
   * not count against `maxRetries`; at most `maxRateLimitRetries` times).
   */
  rateGate?: RateGate;
  /** 429s retried through the rate gate before the call fails. Default 20. */
  maxRateLimitRetries?: number;
}

/** A rate budget the client asks before each API request (see `RewardsClientOptions.rateGate`). */
export interface RateGate {
  /** Resolves when a request may be sent; rejects (RewardsAbortError or the signal's reason) on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** What an answer said: its status and its headers (lower-case names). Must not throw. */
  observe(status: number, headers: Record<string, string>): Promise<void>;
  /** Fires when the app is stopping: every wait of the client (backoff included) ends at once. */
  readonly stopSignal?: AbortSignal;
}

/** Options of every call; always the last argument. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
}

/** Options of order creation: the caller persists the key before calling, and reuses it on retry. */
export interface CreateOrderOptions extends RequestOptions {
  idempotencyKey: string;
}

export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  /** From the API; when the API leaves it out, the number of items known so far. */
  totalCount: number;
}

/**
 * What every list method returns: `await` it for one page (the query's `page`/`pageSize`), or
 * `for await` over it for every item from the query's page on, fetched 100 per request.
 */
export interface ListResult<T> extends PromiseLike<Page<T>>, AsyncIterable<T> {
  /** Collects every item (convenience for small lists). */
  all(): Promise<T[]>;
}

export interface PageQuery {
  page?: number;
  /** 1..100; larger values are clamped to 100 by the client (the API would silently use 20). */
  pageSize?: number;
}

export interface CatalogQuery extends PageQuery {
  search?: string;
  category?: string;
}
export interface OrderListQuery extends PageQuery {
  orderType?: string;
  cardType?: string;
  status?: string;
  /** `YYYY-MM-DD`; a Date is turned into its UTC day. */
  startDate?: string | Date;
  endDate?: string | Date;
  searchKeyword?: string;
  clientOrderId?: string;
}
export interface CampaignListQuery extends PageQuery {
  search?: string;
}
export interface RecipientListQuery extends PageQuery {
  searchKeyword?: string;
}
export interface LedgerQuery extends PageQuery {
  startDate?: string | Date;
  endDate?: string | Date;
}

/** Result of order creation. `recovered` is true when the order was found by its key after a 409. */
export interface CreatedOrder {
  order: OrderSummary;
  recovered: boolean;
}

/**
 * Result of a reward-link request. Batches above 500 links are split into requests of at most 500
 * with keys `${key}-1`, `${key}-2`, ... (see docs/architecture/rewards-client.md); `orders` has one entry per request, `order` is
 * the first, `recovered` is true if any part was recovered.
 */
export interface CreatedRewardLinks extends CreatedOrder {
  orders: CreatedOrder[];
}

export interface CatalogResource {
  listChoiceCards(query?: CatalogQuery, options?: RequestOptions): ListResult<ChoiceProduct>;
  getChoiceCard(productId: string, options?: RequestOptions): Promise<ChoiceProduct>;
  listBrandedCards(query?: CatalogQuery, options?: RequestOptions): ListResult<BrandedProduct>;
  getBrandedCard(productId: string, options?: RequestOptions): Promise<BrandedProduct>;
}

export interface OrdersResource {
  list(query?: OrderListQuery, options?: RequestOptions): ListResult<OrderSummary>;
  get(orderId: string, options?: RequestOptions): Promise<Order>;
  /** Looks an order up by the idempotency key it was created with; undefined if none. */
  findByClientOrderId(idempotencyKey: string, options?: RequestOptions): Promise<OrderSummary | undefined>;
  createChoice(params: CardOrderParams, options: CreateOrderOptions): Promise<CreatedOrder>;
  createBranded(params: CardOrderParams, options: CreateOrderOptions): Promise<CreatedOrder>;
  createRewardLinks(params: RewardLinkParams, options: CreateOrderOptions): Promise<CreatedRewardLinks>;
  cancel(orderId: string, options?: RequestOptions): Promise<CanceledOrder>;
  resend(orderId: string, params: ResendParams, options?: RequestOptions): Promise<ResendResult>;
  sendTestEmail(params: TestEmailParams, options?: RequestOptions): Promise<TestEmailResult>;
  requestLimitIncrease(params: LimitIncreaseParams, options?: RequestOptions): Promise<LimitIncreaseResult>;
}

export interface CampaignsResource {
  list(query?: CampaignListQuery, options?: RequestOptions): ListResult<Campaign>;
  get(campaignId: string, options?: RequestOptions): Promise<Campaign>;
  create(params: CampaignParams, options?: RequestOptions): Promise<Campaign>;
  /** PUT: replaces every field, so send them all. */
  update(campaignId: string, params: CampaignParams, options?: RequestOptions): Promise<Campaign>;
  delete(campaignId: string, options?: RequestOptions): Promise<void>;
  execute(campaignId: string, params: ExecuteCampaignParams, options: CreateOrderOptions): Promise<CreatedOrder>;
}

export interface TemplatesResource {
  list(query?: PageQuery, options?: RequestOptions): ListResult<Template>;
  create(params: TemplateParams, options?: RequestOptions): Promise<Template>;
}

export interface RecipientsResource {
  list(query?: RecipientListQuery, options?: RequestOptions): ListResult<Recipient>;
  get(recipientId: string, options?: RequestOptions): Promise<Recipient>;
  create(params: RecipientParams, options?: RequestOptions): Promise<Recipient>;
  update(recipientId: string, params: RecipientParams, options?: RequestOptions): Promise<Recipient>;
  delete(recipientId: string, options?: RequestOptions): Promise<void>;
}

export interface GroupsResource {
  list(query?: PageQuery, options?: RequestOptions): ListResult<RecipientGroup>;
  get(groupId: string, options?: RequestOptions): Promise<RecipientGroup>;
  create(groupName: string, options?: RequestOptions): Promise<RecipientGroup>;
  rename(groupId: string, groupName: string, options?: RequestOptions): Promise<RecipientGroup>;
  delete(groupId: string, options?: RequestOptions): Promise<void>;
  listMembers(groupId: string, query?: PageQuery, options?: RequestOptions): ListResult<GroupMember>;
  addMember(groupId: string, recipientId: string, options?: RequestOptions): Promise<void>;
  removeMember(groupId: string, recipientId: string, options?: RequestOptions): Promise<void>;
}

export interface BalanceResource {
  get(options?: RequestOptions): Promise<Balance>;
  ledger(query?: LedgerQuery, options?: RequestOptions): ListResult<LedgerRow>;
  /** ACH top-up request (production only). Not retried except on 429. */
  topUp(params: TopUpParams, options?: RequestOptions): Promise<Funding>;
  cancelTopUp(fundingNo: string, options?: RequestOptions): Promise<Funding>;
}

export interface RewardsClient {
  catalog: CatalogResource;
  orders: OrdersResource;
  campaigns: CampaignsResource;
  templates: TemplatesResource;
  recipients: RecipientsResource;
  groups: GroupsResource;
  balance: BalanceResource;
  /**
   * The rate-limit budget as last announced by the API (X-RateLimit-*), or undefined when unknown or
   * the window is over. The client already paces itself by it; this is for callers that poll.
   */
  rateLimit(): RateLimitStatus | undefined;
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
}
