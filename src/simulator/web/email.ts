// The recipient's e-mail as the Rewards provider sends it, rendered from what the emulator's outbox
// recorded (`GET /_emulator/emails`): subject, sender, the card and its value, the sender's message and
// the "Redeem" button with the reward link. Pure and escaped, like render.ts.
import { escapeHtml } from './render.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function money(amount: unknown, currency: unknown): string {
  const n = Number(amount);
  const value = Number.isFinite(n) ? n.toFixed(2) : '?';
  const code = text(currency) || 'USD';
  return code === 'USD' ? `$${value}` : `${value} ${escapeHtml(code)}`;
}

/** One e-mail of the emulator's outbox, as the recipient's mail client would show it. */
export function renderEmail(e: Record<string, unknown>): string {
  const link = text(e.rewardLink);
  const safeLink = /^https?:\/\//i.test(link) ? link : '';
  const bounced = e.bounced === true;
  const kind = text(e.kind);
  const notes = [
    bounced
      ? `<p class="email-bounced" role="alert">Undeliverable: the mail server for ${escapeHtml(text(e.to))} refused this message (it bounced). The recipient never saw it.</p>`
      : '',
    kind === 'test' ? '<p class="email-note">A test e-mail: it carries no card.</p>' : '',
    kind === 'resend' ? '<p class="email-note">Sent again after the address was corrected.</p>' : '',
  ].join('');
  const message = text(e.message);
  return (
    `<article class="email${bounced ? ' is-bounced' : ''}">` +
    `<header class="email-head"><div><span class="email-label">From</span> ${escapeHtml(text(e.senderName) || 'Rewards')} via the Rewards provider</div>` +
    `<div><span class="email-label">To</span> ${escapeHtml(text(e.to))}</div>` +
    `<div><span class="email-label">Subject</span> <strong class="email-subject">${escapeHtml(text(e.subject))}</strong></div>` +
    `<div><span class="email-label">Sent</span> ${escapeHtml(text(e.sentAt).replace('T', ' ').slice(0, 16))} UTC</div></header>` +
    notes +
    `<div class="email-card"><div class="email-amount">${money(e.amount, e.currency)}</div>` +
    `<div class="email-card-name">${escapeHtml(text(e.cardName) || text(e.cardType))}</div></div>` +
    (message ? `<blockquote class="email-message">${escapeHtml(message)}</blockquote>` : '') +
    (safeLink
      ? `<p><a class="email-redeem" href="${escapeHtml(safeLink)}" target="_blank" rel="noopener noreferrer">Redeem your reward</a></p>`
      : '') +
    `</article>`
  );
}
