// Baseline of the `/kudos` ack-path benchmark (bench/ack-path.ts): the smallest Bolt app that does
// what `/kudos` does on the wire: Bolt's own HTTP receiver checks the signature, the listener acks,
// then opens a modal with views.open through Bolt's client. Same @slack/bolt as the app; compiled
// by the benchmark and run with `npm start`'s node flags, so both pay the same runtime costs.
import type { AddressInfo } from 'node:net';

import { App, LogLevel } from '@slack/bolt';

const app = new App({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  token: process.env.SLACK_BOT_TOKEN ?? '',
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL ?? '' },
});

app.command('/kudos', async ({ ack, body, client }) => {
  await ack();
  await client.views.open({
    trigger_id: body.trigger_id,
    view: {
      type: 'modal',
      callback_id: 'send',
      title: { type: 'plain_text', text: 'Send kudos' },
      submit: { type: 'plain_text', text: 'Send' },
      blocks: [
        {
          type: 'input',
          block_id: 'message',
          label: { type: 'plain_text', text: 'Message' },
          element: { type: 'plain_text_input', action_id: 'value', multiline: true },
        },
      ],
    },
  });
});

const server = await app.start({ port: 0, host: '127.0.0.1' });
console.log(
  JSON.stringify({ msg: 'kudos app listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
);
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
