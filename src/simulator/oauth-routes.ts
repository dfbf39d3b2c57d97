// Slack's OAuth v2 authorize page, simulated (distribution mode): GET /oauth/v2/authorize shows the
// app's scopes and a choice of workspace (or a Grid org, for an org-wide install) with Allow and
// Cancel; POST redirects the browser to the app's /slack/oauth_redirect with a one-time `code` (or
// `error=access_denied`) and the `state` it was given, as Slack does.
import type { ServerResponse } from 'node:http';

import type { SimInstalls } from './installs.js';

const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slack (simulator): install</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.3rem 0}button{margin-right:.5rem;padding:.4rem 1rem}</style></head><body>${body}</body></html>`);
}

/**
 * The authorize page. `preselect`: the workspace the install started from (the one the simulator's page
 * is showing), chosen at first as Slack chooses the workspace the browser is signed in to.
 */
export function authorizePage(
  res: ServerResponse,
  installs: SimInstalls,
  params: URLSearchParams,
  preselect?: string,
): void {
  const clientId = params.get('client_id') ?? '';
  if (clientId !== installs.oauth.clientId)
    return html(res, 400, `<h1>Invalid client_id</h1><p>No app with client id ${esc(clientId)}.</p>`);
  const scopes = (params.get('scope') ?? '').split(',').filter(Boolean);
  const chosen = preselect && installs.team(preselect) ? preselect : undefined;
  const orgs = [
    ...new Map(
      installs.teams.filter((t) => t.enterpriseId).map((t) => [t.enterpriseId!, t.enterpriseName ?? t.enterpriseId!]),
    ).entries(),
  ];
  const choices = [
    ...installs.teams.map(
      (t) =>
        `<label><input type="radio" name="team" value="${esc(t.id)}"${t.id === (chosen ?? installs.teams[0]?.id) ? ' checked' : ''}> ${esc(t.name)} (${esc(t.id)})${t.enterpriseId ? `, in ${esc(t.enterpriseName ?? t.enterpriseId)}` : ''}</label>`,
    ),
    ...orgs.map(
      ([id, name]) =>
        `<label><input type="radio" name="team" value="org:${esc(id)}"> The whole ${esc(name)} org (${esc(id)}): org-wide install</label>`,
    ),
  ].join('\n');
  const hidden = ['client_id', 'scope', 'state', 'redirect_uri']
    .filter((k) => params.get(k) !== null)
    .map((k) => `<input type="hidden" name="${k}" value="${esc(params.get(k)!)}">`)
    .join('');
  html(
    res,
    200,
    `<h1>Kudos is requesting permission</h1><p>Scopes: ${scopes.map((s) => `<code>${esc(s)}</code>`).join(', ') || '(none)'}</p>
<form method="post" action="/oauth/v2/authorize">${hidden}<input type="hidden" name="user" value="U_ADMIN">
<fieldset><legend>Install in</legend>${choices}</fieldset>
<p><button name="decision" value="allow" id="allow">Allow</button><button name="decision" value="deny" id="cancel">Cancel</button></p></form>`,
  );
}

export function handleAuthorize(
  res: ServerResponse,
  installs: SimInstalls,
  form: URLSearchParams,
  appUrl: string | undefined,
): void {
  if (form.get('client_id') !== installs.oauth.clientId) return html(res, 400, '<h1>Invalid client_id</h1>');
  const redirect = new URL(form.get('redirect_uri') ?? `${appUrl ?? ''}/slack/oauth_redirect`);
  const state = form.get('state');
  if (state !== null) redirect.searchParams.set('state', state);
  if (form.get('decision') !== 'allow') {
    redirect.searchParams.set('error', 'access_denied');
  } else {
    const choice = form.get('team') ?? '';
    const orgWide = choice.startsWith('org:');
    const code = installs.approve({
      ...(orgWide ? { enterpriseId: choice.slice('org:'.length), orgWide: true } : { teamId: choice }),
      scopes: (form.get('scope') ?? '').split(',').filter(Boolean),
      userId: form.get('user') ?? 'U_ADMIN',
    });
    redirect.searchParams.set('code', code);
  }
  res.writeHead(302, { Location: redirect.toString() });
  res.end();
}
