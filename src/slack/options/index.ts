// Options loads (block_suggestion) for the modal's external selects: designs from the cached API
// catalog; groups from Slack user groups and the API's address book.
import type { App } from '@slack/bolt';
import { buildDesignOptions, buildGroupOptions } from '../blocks/options.js';
import { workspaceOf, type ListenerDeps } from '../deps.js';
import { SendModal } from '../ids.js';
import { optionsLoad, parseAtEdge } from '../payloads.js';

export function register(app: App, deps: ListenerDeps): void {
  app.options(SendModal.actions.design, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.design);
    try {
      const designs = await deps.catalog.of(workspaceOf(body as never)).search(options.value);
      await ack(buildDesignOptions(designs));
    } catch (error) {
      deps.logger.warn('loading designs failed', { error });
      await ack({ options: [] });
    }
  });

  app.options(SendModal.actions.group, async ({ ack, body }) => {
    const options = parseAtEdge(optionsLoad, body, SendModal.actions.group);
    const query = options.value.trim().toLowerCase();
    const matches = (text: string) => query === '' || text.toLowerCase().includes(query);
    const [slackGroups, bookGroups] = await Promise.all([
      deps.slack.listUsergroups().catch((error: unknown) => {
        deps.logger.warn('listing Slack user groups failed', { error });
        return [];
      }),
      (async () => (await (await deps.rewards.for(workspaceOf(body as never))).groups.list({ pageSize: 100 })).data)().catch((error: unknown) => {
        deps.logger.warn('listing address-book groups failed', { error });
        return [];
      }),
    ]);
    await ack(
      buildGroupOptions(
        slackGroups.filter((g) => matches(g.handle) || matches(g.name)),
        bookGroups.filter((g) => matches(g.groupName)),
      ) as never,
    );
  });
}
