// Options loads (block_suggestion) of the automations' brand pickers (the celebration rule and the
// recurring form): brands from the workspace's brand catalog, searched by name as one types, each
// with its prices in its own currency. A failed read answers no options (the picker says so).
import type { App } from '@slack/bolt';

import type { Brand } from '../../domain/branded/brand-catalog.js';
import { describePrices } from '../../domain/branded/prices.js';
import { Celebrations } from '../ids.js';
import { plain } from '../kit/mrkdwn.js';
import { type ListenerDeps, workspaceOf } from '../listening/listener-deps.js';
import { optionsLoad, parseAtEdge } from '../listening/payloads.js';

/** "Tesco (£10, £20, or £50)": the brand and what it offers, within Slack's 75 characters. */
function brandOption(brand: Brand) {
  return {
    text: plain(`${brand.brandName} (${describePrices(brand.prices)})`, 75),
    value: brand.productId.slice(0, 150),
  };
}

export function registerBrandOptions(app: App, deps: ListenerDeps): void {
  // One action id for both forms' brand pickers (Recurring.modal.actions.brand is the same).
  const action = Celebrations.ruleModal.actions.brand;
  app.options(action, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, action);
    try {
      const page = await deps.brands.of(workspaceOf(body)).search({ query: options.value });
      await ack({ options: page.brands.map(brandOption) });
    } catch (error) {
      deps.logger.warn('loading brands failed', { error });
      await ack({ options: [] });
    }
  });
}
