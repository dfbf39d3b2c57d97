// app_home_opened publishes the Home tab; home-publisher.ts keeps it current afterwards.
import type { App } from '@slack/bolt';

import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { appHomeOpenedEvent, parseAtEdge } from '../listening/payloads.js';

export function registerHomeOpened(app: App, deps: ListenerDeps): void {
  app.event('app_home_opened', async ({ body: raw }) => {
    const body = parseAtEdge(appHomeOpenedEvent, raw, 'app_home_opened');
    const event = body.event;
    if (event.tab && event.tab !== 'home') return;
    await deps.home.publish(workspaceOf(body), event.user, { opened: true });
  });
}
