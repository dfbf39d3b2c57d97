// Steps the chaos run's money faults share: a simulated person opening and submitting the send
// modal through the faults, waiting on the shared database, and reading the emulator's orders.
import { formEncode, signedHeaders } from '../../src/simulator/signing.js';
import type { startSlackSimulator, View } from '../../src/simulator/slack.js';
import type { TestDatabase } from '../support/db.js';

export type Sim = Awaited<ReturnType<typeof startSlackSimulator>>;

/** The admin of the money faults (reward links, celebrations). */
export const LINKS_ADMIN = 'U_CHAOS_ADMIN';

export interface MoneyFaultsContext {
  sim: Sim;
  db: TestDatabase;
  teamId: string;
  /** Someone to thank (a user of the main run). */
  recipient: string;
  control(method: string, path: string, body?: unknown): Promise<any>;
  apiGet(path: string): Promise<any>;
  log(message: string): void;
  settleTimeoutMs: number;
  /** The announcement channel. */
  channel: string;
  /** Where Slack's requests go (the load balancer), and the signing secret. */
  appUrl: string;
  signingSecret: string;
}

/** A signed interactivity payload straight to the app (through the load balancer). */
export async function postSigned(
  appUrl: string,
  secret: string,
  payload: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const body = formEncode({ payload: JSON.stringify(payload) });
  const res = await fetch(`${appUrl}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(secret, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
    body,
  });
  return { status: res.status, text: await res.text() };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined | false>,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(500);
  }
}

/** Opens the send modal (retried through faults) and returns the new view. */
export async function openModal(sim: Sim, user: string): Promise<View> {
  for (let attempt = 0; ; attempt++) {
    const previous = new Set(sim.openViews(user).map((v) => v.id));
    const answer = await sim.slashCommand(user, '', 'C_GENERAL').catch(() => ({ status: 0 }));
    if (answer.status === 200) {
      const view = await sim
        .waitFor(() => sim.openViews(user).find((v) => !previous.has(v.id)), 6000)
        .catch(() => undefined);
      if (view) return view;
    }
    if (attempt >= 20) throw new Error(`could not open the modal for ${user}`);
    await sleep(300);
  }
}

/** Submits until Slack closes the modal (a lost answer shows an error; the user presses Send again). */
export async function submitUntilClosed(
  sim: Sim,
  user: string,
  view: View,
  values: Record<string, Record<string, unknown>>,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    if (!sim.openViews(user).some((v) => v.id === view.id)) return;
    const answer = await sim.submitView(view.id, values, user).catch(() => ({ status: 0 }));
    if (answer.status === 200 && !sim.openViews(user).some((v) => v.id === view.id)) return;
    if (attempt >= 20) throw new Error(`submission of ${user} kept failing (${answer.status})`);
    await sleep(300);
  }
}

export async function listOrders(ctx: MoneyFaultsContext, query = ''): Promise<any[]> {
  const orders: any[] = [];
  for (let page = 1; ; page++) {
    const answer = await ctx.apiGet(`/api/v1/orders?page=${page}&pageSize=100${query}`);
    orders.push(...answer.data);
    if (answer.data.length < 100) break;
  }
  return orders;
}

export const cents = (amount: unknown) => Math.round(Number(amount ?? 0) * 100);
