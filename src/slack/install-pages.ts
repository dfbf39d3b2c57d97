// The HTML pages of distribution mode's install routes (CONTRACT.md section 6): GET /slack/install
// ("Add to Slack") and the success and failure pages of GET /slack/oauth_redirect. Small, static,
// no script; every value shown is escaped.

export type InstallFailure = 'denied' | 'state' | 'cookie' | 'exchange' | 'slack_error';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d;line-height:1.5}
h1{font-size:1.5rem}a.button{display:inline-block;background:#4a154b;color:#fff;padding:.6rem 1.2rem;border-radius:.3rem;text-decoration:none;font-weight:600}
.muted{color:#616061;font-size:.9rem}</style></head>
<body>${body}</body></html>`;
}

/** GET /slack/install: an "Add to Slack" link to Slack's authorize URL (client_id, scopes, state). */
export function installPage(authorizeUrl: string): string {
  return page(
    'Add Kudos to Slack',
    `<h1>Add Kudos to your Slack</h1>
<p>Kudos lets people thank colleagues with a digital gift card without leaving Slack.</p>
<p><a class="button" id="add-to-slack" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>
<p class="muted">You will see the permissions Kudos asks for and choose the workspace (or, as an Enterprise Grid org admin, the whole org). This link works for the next 10 minutes, in this browser.</p>`,
  );
}

export function installSuccessPage(installed: { name: string; orgWide: boolean; appId?: string; teamId?: string }): string {
  const where = installed.orgWide ? `the ${escapeHtml(installed.name)} org (every workspace an org admin adds it to)` : escapeHtml(installed.name);
  return page(
    'Kudos is installed',
    `<h1>Kudos is installed in ${where}</h1>
<p>Next steps:</p>
<ol><li>Open Slack and find <b>Kudos</b> under Apps; its Home tab shows what to do first.</li>
<li>An admin connects your Rewards account from the Kudos Home tab (<b>Connect Rewards account</b>).</li>
<li>Then anyone can type <code>/kudos</code> to thank a colleague.</li></ol>
<p class="muted">You can close this page.</p>`,
  );
}

const FAILURES: Record<InstallFailure, { status: number; title: string; text: string }> = {
  denied: {
    status: 403,
    title: 'Installation cancelled',
    text: 'Kudos was not installed, because the permissions were not approved. Nothing was stored. To try again, start over from the install page.',
  },
  state: {
    status: 400,
    title: 'This install link is not valid',
    text: 'The install could not be confirmed: the link was already used, has expired (links last 10 minutes) or did not come from this site. Nothing was stored. Start over from the install page.',
  },
  cookie: {
    status: 400,
    title: 'Start the install in this browser',
    text: 'The install has to finish in the same browser it started in, with cookies allowed for this site. Nothing was stored. Open the install page again in this browser and click Add to Slack.',
  },
  exchange: {
    status: 400,
    title: 'Slack did not complete the install',
    text: 'Slack did not confirm the install (its answer was an error, or it could not be reached). Nothing was stored. Wait a minute and start over from the install page; if it keeps failing, ask the operator of this Kudos deployment to check its logs.',
  },
  slack_error: { status: 400, title: 'Slack stopped the install', text: 'Slack sent back an error instead of the install. Nothing was stored. Start over from the install page.' },
};

export function installFailurePage(failure: InstallFailure): { status: number; html: string } {
  const f = FAILURES[failure];
  return { status: f.status, html: page(f.title, `<h1>${escapeHtml(f.title)}</h1><p>${escapeHtml(f.text)}</p><p><a href="/slack/install">Back to the install page</a></p>`) };
}
