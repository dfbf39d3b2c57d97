// Turns a Rewards API failure into what the app does next (retry or give up) and a short,
// specific sentence for the Slack user. Never a stack trace.
import {
  isRewardsError,
  RewardsApiError,
  RewardsConnectionError,
  RewardsRequestValidationError,
} from '../../rewards/index.js';
import { isRewardsNotConnected } from './rewards-accounts.js';

/** Said wherever a workspace without a connected Rewards account meets Rewards work. */
export const NOT_CONNECTED_MESSAGE =
  'this workspace has no Rewards account connected yet. A Kudos admin connects one from the Kudos App Home (Connect Rewards account).';

export interface FailureVerdict {
  /** Permanent: retrying with the same request cannot succeed. */
  permanent: boolean;
  code: string;
  userMessage: string;
}

const PERMANENT_MESSAGES: Record<string, string> = {
  INSUFFICIENT_BALANCE:
    'the Rewards account does not have enough money for this send right now. Kudos admins have been told; try again once they have topped it up.',
  DAILY_LIMIT_EXCEEDED: 'it would go over the daily spending limit. Try again tomorrow or send less.',
  MONTHLY_LIMIT_EXCEEDED: 'it would go over the monthly spending limit. Ask an admin to request a higher limit.',
  VALIDATION_ERROR: 'the Rewards API refused the amount or the details of this send.',
  NOT_FOUND: 'the chosen card design no longer exists.',
  UNAUTHORIZED: 'Kudos could not sign in to the Rewards API (check its credentials).',
  INVALID_CLIENT: 'Kudos could not sign in to the Rewards API (check its credentials).',
  INSUFFICIENT_SCOPE: 'Kudos is not allowed to place orders with its Rewards API credentials.',
  FORBIDDEN: 'Kudos is not allowed to place orders with its Rewards API credentials.',
  PRODUCTION_ONLY: 'this operation needs production Rewards API credentials.',
  INVALID_REQUEST: 'the send details were not valid for the Rewards API.',
};

export function classifyRewardsFailure(error: unknown): FailureVerdict {
  if (isRewardsNotConnected(error)) return { permanent: true, code: error.code, userMessage: NOT_CONNECTED_MESSAGE };
  if (!isRewardsError(error)) {
    return { permanent: false, code: 'UNEXPECTED', userMessage: 'an unexpected error happened; Kudos will retry.' };
  }
  const known = PERMANENT_MESSAGES[error.code];
  if (known) return { permanent: true, code: error.code, userMessage: known };
  if (
    error instanceof RewardsApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 409 &&
    error.status !== 429
  ) {
    return { permanent: true, code: error.code, userMessage: `the Rewards API refused it (${error.code}).` };
  }
  return {
    permanent: false,
    code: error.code,
    userMessage: 'the Rewards API is not answering right now; Kudos will retry.',
  };
}

/** One line for an interactive request that failed (balance, lists, cancel): short and specific. */
export function describeForUser(error: unknown, doing: string): string {
  if (isRewardsNotConnected(error)) return `Could not ${doing}: ${NOT_CONNECTED_MESSAGE}`;
  if (isRewardsError(error)) {
    if (error.code === 'ORDER_NOT_CANCELABLE')
      return `Could not ${doing}: the order can no longer be cancelled (it is less than 10 minutes before it goes out, or already sent).`;
    const verdict = classifyRewardsFailure(error);
    return `Could not ${doing}: ${verdict.userMessage}`;
  }
  return `Could not ${doing}: something went wrong on our side. Try again in a moment.`;
}

/**
 * Could the failed order call have created the order anyway? A refusal (4xx other than a duplicate
 * key) is an answer: nothing was applied. A lost answer, a timeout, a 5xx after the POST, or a
 * duplicate key whose order could not be found are not: the order may exist and must be looked up.
 */
export function mayHaveReachedApi(error: unknown): boolean {
  if (isRewardsNotConnected(error)) return false;
  if (error instanceof RewardsConnectionError && error.notSent) return false;
  if (error instanceof RewardsRequestValidationError) return false;
  if (error instanceof RewardsApiError) return error.status >= 500 || error.status === 409 || error.status === 408;
  return true;
}
