// Blocks of `/kudos templates`: the list (with New / Edit as new / Send me a test e-mail) and the form.
import {
  PLACEHOLDER_NOTE,
  type TemplateField,
  type TemplateForm,
  TEST_EMAILS_PER_DAY,
} from '../../domain/accounts/email-templates.js';
import type { Template } from '../../rewards/index.js';
import { Templates } from '../ids.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, plainTextInput, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

/** Slack allows 50 blocks in a message: 2 per template plus the header and footer. */
export const TEMPLATE_LIST_MAX = 20;

function colours(t: Template): string {
  const parts = [
    t.borderColor ? `border ${t.borderColor}` : '',
    t.buttonColor ? `button ${t.buttonColor}` : '',
    t.buttonFontColor ? `button text ${t.buttonFontColor}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'default colours';
}

export function buildTemplateList(templates: Template[]): SlackMessageContent {
  const blocks: Block[] = [
    section(
      `*E-mail templates* (${templates.length})\nThe e-mail a recipient gets: sender name, message and colours. The banner image is changed only in the Rewards portal.`,
    ),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: Templates.actions.create,
          text: plain('New template', 75),
          style: 'primary',
          value: 'new',
        },
      ],
    } as unknown as Block,
  ];
  for (const t of templates.slice(0, TEMPLATE_LIST_MAX)) {
    const message = t.message ? `\n>${escapeMrkdwn(t.message.slice(0, 200)).replace(/\n/g, '\n>')}` : '';
    blocks.push(
      section(
        `*${escapeMrkdwn(t.name ?? t.templateId)}*${t.isDefault ? ' _(default)_' : ''} \`${escapeMrkdwn(t.templateId)}\`\nFrom: ${escapeMrkdwn(t.senderName ?? 'the account default')} · ${colours(t)}${message}`,
      ),
      {
        type: 'actions',
        elements: [
          { type: 'button', action_id: Templates.actions.edit, text: plain('Edit as new', 75), value: t.templateId },
          {
            type: 'button',
            action_id: Templates.actions.testEmail,
            text: plain('Send me a test e-mail', 75),
            value: t.templateId,
          },
        ],
      } as unknown as Block,
    );
  }
  if (templates.length > TEMPLATE_LIST_MAX)
    blocks.push(context(`…and ${templates.length - TEMPLATE_LIST_MAX} more in the Rewards portal.`));
  blocks.push(
    context(
      `A test e-mail goes to your own address with a sample card; it is not charged and not in the order history; at most ${TEST_EMAILS_PER_DAY} a day (the API's default). The Rewards API cannot change or delete a template: *Edit as new* saves a new one. ${PLACEHOLDER_NOTE}`,
    ),
  );
  return { text: `E-mail templates (${templates.length})`, blocks };
}

function input(
  blockId: string,
  label: string,
  initial: string | undefined,
  opts: Parameters<typeof plainTextInput>[4] = {},
): Block {
  return plainTextInput(Templates.modal.action, blockId, label, initial, opts);
}

export const TEMPLATE_BLOCK_OF: Record<TemplateField, string> = Templates.modal.blocks;

export function buildTemplateModal(form: TemplateForm, opts: { basedOn?: string } = {}): Record<string, unknown> {
  const B = Templates.modal.blocks;
  return {
    type: 'modal',
    callback_id: Templates.modal.callbackId,
    title: plain(opts.basedOn ? 'Edit as new template' : 'New e-mail template', 24),
    submit: plain('Save template', 24),
    close: plain('Cancel', 24),
    blocks: [
      ...(opts.basedOn
        ? [
            context(
              `Based on \`${escapeMrkdwn(opts.basedOn)}\`. The Rewards API cannot change a template, so saving makes a new one; the old one stays.`,
            ),
          ]
        : []),
      input(B.name, 'Template name', form.name, { max: 100 }),
      input(B.senderName, 'Sender name', form.senderName, {
        max: 100,
        hint: 'Who the e-mail is from, unless a send names someone else.',
      }),
      input(B.message, 'Default message', form.message, {
        optional: true,
        multiline: true,
        max: 2000,
        hint: 'Used when a send has no message of its own.',
      }),
      input(B.borderColor, 'Border colour', form.borderColor, { optional: true, max: 7, placeholder: '#4A154B' }),
      input(B.buttonColor, 'Button colour', form.buttonColor, { optional: true, max: 7, placeholder: '#007A5A' }),
      input(B.buttonFontColor, 'Button text colour', form.buttonFontColor, {
        optional: true,
        max: 7,
        placeholder: '#FFFFFF',
      }),
      context(PLACEHOLDER_NOTE),
    ],
  };
}
