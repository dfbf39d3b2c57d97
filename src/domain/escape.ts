// mrkdwn control characters in user text: &, <, > become entities so that `<!channel>`,
// `<@U…>` and forged `<https://evil|label>` links render as plain text instead of pinging or linking.
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack user mention (built by us from a validated id, never from user text). */
export function mentionUser(userId: string): string {
  if (!/^[UW][A-Z0-9_]+$/.test(userId)) return escapeMrkdwn(userId);
  return `<@${userId}>`;
}

/** Cuts text to at most `max` characters, with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
