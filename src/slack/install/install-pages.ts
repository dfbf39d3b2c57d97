// The HTML pages of distribution mode's install routes (the README's installation modes): GET /slack/install
// ("Add to Slack") and the success and failure pages of GET /slack/oauth_redirect. Small, static,
// no script; every value shown is escaped. Served with a Content-Security-Policy that allows their
// one inline style block (by its hash) and nothing else, never framed.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export type InstallFailure = 'denied' | 'state' | 'cookie' | 'exchange' | 'slack_error';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d;line-height:1.5}
h1{font-size:1.5rem}a.button{display:inline-block;background:#4a154b;color:#fff;padding:.6rem 1.2rem;border-radius:.3rem;text-decoration:none;font-weight:600}
.muted{color:#616061;font-size:.9rem}`;

/**
 * What the pages need and nothing more: the one inline style block by its hash; no script, image,
 * font, connection or form; never framed (clickjacking of "Add to Slack"), no <base> rewrite. Links
 * (to Slack's authorize page, back to the install page) are navigations, which CSP does not limit.
 */
export const INSTALL_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sets the install pages' security headers on `res`, and `SameSite=Lax` on every cookie set through it
 * (the OAuth state cookie that @slack/oauth sets, and deletes, without a SameSite attribute): sent on
 * Slack's top-level redirect back to us, never on a request another site makes in the background.
 */
export function protectInstallPage(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', INSTALL_PAGE_CSP);
  // For browsers without frame-ancestors.
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The redirect's URL carries the OAuth code and state: never sent on as a Referer.
  res.setHeader('Referrer-Policy', 'no-referrer');
  // A state is good for one install: no page with one is kept by a cache.
  res.setHeader('Cache-Control', 'no-store');
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) => {
    if (name.toLowerCase() !== 'set-cookie') return setHeader(name, value);
    const cookies = (Array.isArray(value) ? value : [String(value)]) as string[];
    return setHeader(
      name,
      cookies.map((cookie) => (/;\s*samesite=/i.test(cookie) ? cookie : `${cookie}; SameSite=Lax`)),
    );
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
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

export function installSuccessPage(installed: {
  name: string;
  orgWide: boolean;
  appId?: string;
  teamId?: string;
}): string {
  const where = installed.orgWide
    ? `the ${escapeHtml(installed.name)} org (every workspace an org admin adds it to)`
    : escapeHtml(installed.name);
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
  slack_error: {
    status: 400,
    title: 'Slack stopped the install',
    text: 'Slack sent back an error instead of the install. Nothing was stored. Start over from the install page.',
  },
};

export function installFailurePage(failure: InstallFailure): { status: number; html: string } {
  const f = FAILURES[failure];
  return {
    status: f.status,
    html: page(
      f.title,
      `<h1>${escapeHtml(f.title)}</h1><p>${escapeHtml(f.text)}</p><p><a href="/slack/install">Back to the install page</a></p>`,
    ),
  };
}
