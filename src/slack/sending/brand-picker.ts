// The send form's brand picker: its options (the brand catalog searched by name or brand within the
// category picked, a page per option group), a pick (the form shows the brand's amounts, with views.
// update under a new fill so the amounts start afresh), an amount picked or typed (the line with its
// USD estimate follows), and "Terms and how to redeem" (a pushed modal).
import type { App } from '@slack/bolt';
import { z } from 'zod';

import type { Brand, BrandPage } from '../../domain/branded/brand-catalog.js';
import { brandSuitsCountry, countriesOfPeople } from '../../domain/workspaces/people-countries.js';
import { SendBrand } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  buttonOpeningModal,
  enterpriseRef,
  metadataOf,
  optionsLoad,
  parseAtEdge,
  stateValues,
  teamRef,
  userRef,
} from '../listening/payloads.js';
import { brandBlockId, buildBrandOptions, buildBrandTerms } from './brand-blocks.js';
import { categoryIn, recipientsIn } from './brand-fields.js';
import { sendMetadata } from './send-form-submission.js';
import { rebuildState } from './send-form-views.js';
import { buildSendModal } from './send-modal-blocks.js';

const viewState = z.looseObject({ values: stateValues });

const brandOptionsLoad = optionsLoad.extend({
  view: z.looseObject({ state: viewState.optional() }).optional(),
});

const brandAction = z.looseObject({
  type: z.literal('block_actions'),
  user: userRef,
  team: teamRef,
  enterprise: enterpriseRef,
  view: z.looseObject({
    id: z.string().min(1),
    hash: z.string().optional(),
    private_metadata: z.string().default(''),
    state: viewState.optional(),
  }),
  actions: z
    .tuple([
      z.looseObject({
        selected_option: z.looseObject({ value: z.string().max(150) }).nullish(),
        value: z.string().max(200).nullish(),
      }),
    ])
    .rest(z.unknown()),
});

const termsClick = buttonOpeningModal(z.string().min(1).max(150));

/** Catalog pages one options list shows: two of 50, Slack's 100 options. */
const PAGES_SHOWN = 2;

export function registerBrandPicker(app: App, deps: ListenerDeps): void {
  app.options(SendBrand.actions.brand, async ({ ack, body }) => {
    const load = parseAtEdge(brandOptionsLoad, body, SendBrand.actions.brand);
    const catalog = deps.brands.of(workspaceOf(load));
    const values = load.view?.state?.values ?? {};
    const category = categoryIn(values);
    try {
      // Only brands every person picked so far can use (their countries, else the workspace default).
      const people = recipientsIn(values);
      const countries = [...(await countriesOfPeople(deps.db, workspaceOf(load), people)).values()];
      const suitsAll = (brand: Brand) => countries.every((country) => brandSuitsCountry(brand.countryCode, country));
      const pages: BrandPage[] = [];
      for (let page = 1; page <= PAGES_SHOWN; page++) {
        const read = await catalog.search({ query: load.value, category, page });
        pages.push({ ...read, brands: read.brands.filter(suitsAll) });
        if (!read.hasMore) break;
      }
      await ack(buildBrandOptions(pages));
    } catch (error) {
      deps.logger.warn('loading brands failed', { error });
      await ack({ options: [] });
    }
  });

  app.action(SendBrand.actions.brand, async ({ ack, body: raw }) => {
    const body = parseAtEdge(brandAction, raw, SendBrand.actions.brand);
    await ack();
    const ws = workspaceOf(body);
    const metadata = metadataOf(sendMetadata, body.view.private_metadata, {});
    // A new fill: the amount fields of the brand picked start empty, whatever the last brand's were.
    const state = await rebuildState(deps, {
      ws,
      userId: body.user.id,
      values: body.view.state?.values ?? {},
      metadata,
      next: { card: 'brand', fill: Date.now().toString(36) },
      brand: { pickedId: body.actions[0].selected_option?.value },
    });
    await update(deps, ws, body.view, state, SendBrand.actions.brand);
  });

  app.action(SendBrand.actions.face, async ({ ack, body: raw }) => {
    const body = parseAtEdge(brandAction, raw, SendBrand.actions.face);
    await ack();
    const ws = workspaceOf(body);
    const metadata = metadataOf(sendMetadata, body.view.private_metadata, {});
    const action = body.actions[0];
    const faceBlock = brandBlockId('face', metadata.fill);
    const values = body.view.state?.values ?? {};
    // The amount just picked or typed is the action's own, whatever the view's state says yet.
    const face = action.selected_option ? { selected_option: action.selected_option } : { value: action.value ?? '' };
    const state = await rebuildState(deps, {
      ws,
      userId: body.user.id,
      values: { ...values, [faceBlock]: { [SendBrand.actions.face]: face } },
      metadata,
      next: {},
    });
    await update(deps, ws, body.view, state, SendBrand.actions.face);
  });

  app.action(SendBrand.actions.terms, async ({ ack, body: raw }) => {
    const body = parseAtEdge(termsClick, raw, SendBrand.actions.terms);
    await ack();
    const ws = workspaceOf(body);
    const brand = await deps.brands
      .of(ws)
      .get(body.actions[0].value)
      .catch(() => undefined);
    await deps.slack.for(ws).pushView(body.trigger_id, buildBrandTerms(brand));
  });
}

async function update(
  deps: ListenerDeps,
  ws: ReturnType<typeof workspaceOf>,
  view: { id: string; hash?: string | undefined },
  state: Awaited<ReturnType<typeof rebuildState>>,
  action: string,
): Promise<void> {
  try {
    await deps.slack.for(ws).updateView(view.id, buildSendModal(state), view.hash);
  } catch (error) {
    // A hash conflict: the sender changed the form meanwhile; their next pick shows it again.
    deps.logger.warn('updating the send form’s brand failed', { error, action, viewId: view.id });
  }
}
