// What the worker is given: the background deps, and the hooks of the capabilities that act on an
// order's outcome (the completion checks, the low-balance decision, approvals).
import type { KudosRow } from '../../db/schema/index.js';
import type { BackgroundDeps } from '../notices/background-deps.js';

export interface WorkerDeps extends BackgroundDeps {
  /**
   * An order placed is watched to completion: each order's check is first due this long after it was
   * placed (or after its send time), scheduled in the statement that records the order (markPlaced).
   * Unset: no checks are scheduled (tests of the worker alone).
   */
  firstCheckDelayMs?: number;
  /** Called once an order is placed and its checks scheduled (the low-balance decision, the order poller's wake-up). */
  onOrderPlaced?: (row: KudosRow) => Promise<void>;
  /**
   * Called once when the API refused an order for good (approvals issue: an approved send refused for
   * a fixable reason goes back to the approvers). True when it told the sender itself, so the worker's
   * generic failure message is not sent as well.
   */
  onOrderFailed?: (row: KudosRow) => Promise<boolean>;
  /**
   * Called before the outcome of a send whose sender's DM was posted earlier (the approvals' "waiting")
   * edits that DM: approvals records the decision's edit first, so that the DM reads in order.
   */
  beforeOutcomeEdit?: (row: KudosRow) => Promise<void>;
  /** Metrics hook (src/observability): seconds from a send becoming due to its first claim. */
  onPickup?: (seconds: number) => void;
}
