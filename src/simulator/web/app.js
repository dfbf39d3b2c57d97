// The simulator page: plain browser JavaScript, no build step. The server renders messages and views to
// HTML (render.ts, escaped there); this script only wires clicks and form input to the /_ui/ JSON API and
// refreshes when the server-sent event stream says the workspace changed.
'use strict';

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

const params = new URLSearchParams(location.search);
const ui = {
  as: params.get('as') || localStorage.getItem('kudos-sim-as') || 'U_MANAGER',
  conv: params.get('conv') || 'C_KUDOS',
  /** 'messages' | 'home' | 'inbox' | 'workflow' */
  page: params.get('page') || 'messages',
  state: null,
  modalKey: null,
  refreshing: false,
  again: false,
  /** What #messages and #home show now: a refresh that changes neither leaves their nodes (and any selection) alone. */
  shownMessagesHtml: null,
  shownHomeHtml: null,
  /** The sidebar's workspace and installations as last loaded (distribution mode). */
  workspaceKey: null,
  /** The workflow step form shown (built once per visit, so typing is kept across refreshes). */
  workflowFormFor: null,
  /** The e-mail opened in the inbox (its index in the emulator's outbox). */
  openEmail: null,
};

async function api(path, body) {
  const res = await fetch(
    path,
    body === undefined
      ? {}
      : {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
  return data;
}

function toast(text) {
  const t = $('#toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    t.hidden = true;
  }, 5000);
}

function saveLocation() {
  const p = new URLSearchParams({ as: ui.as, conv: ui.conv, page: ui.page });
  history.replaceState(null, '', `?${p}`);
  localStorage.setItem('kudos-sim-as', ui.as);
}

async function loadWorkspace() {
  const ws = await api('/_ui/workspace');
  ui.workspaceKey = null;
  $('#team-name').textContent = ws.team.name;
  // Distribution mode: which workspace (or Grid org workspace) the UI acts in, and how Kudos is installed there.
  $('#workspace-switcher').hidden = !ws.workspaces;
  if (ws.workspaces) {
    const sel = $('#workspace');
    sel.textContent = '';
    for (const w of ws.workspaces) {
      const o = document.createElement('option');
      o.value = w.id;
      o.textContent = `${w.name}${w.enterpriseId ? ` (${w.enterpriseId})` : ''}`;
      o.dataset.install = w.installedVia;
      sel.append(o);
    }
    sel.value = ws.acting;
    const current = ws.workspaces.find((w) => w.id === ws.acting);
    $('#workspace-install').innerHTML = '';
    const line = document.createElement('span');
    line.textContent = `Kudos: ${current ? current.installedVia : 'not installed'} · `;
    const link = document.createElement('a');
    link.href = '/_ui/install';
    link.target = '_blank';
    link.textContent = 'Add to Slack';
    $('#workspace-install').append(line, link);
  }
  const who = $('#whoami');
  who.textContent = '';
  for (const u of ws.users) {
    const o = document.createElement('option');
    o.value = u.id;
    o.textContent = `${u.realName} (${u.role})`;
    o.dataset.role = `${u.role} · ${u.tz}${u.email ? ` · ${u.email}` : ' · no e-mail'}`;
    who.append(o);
  }
  who.value = ui.as;
  showRole();
  $('#composer-hint').textContent =
    `Mentions: ${ws.handles.map((h) => `@${h}`).join(' ')}. Try /kudos help, or write a plain message and use its ⋮ More actions.`;
  $('#clock').hidden = !ws.emulator;
  $('#open-inbox').parentElement.hidden = !ws.emulator;
}

function showRole() {
  const sel = $('#whoami').selectedOptions[0];
  $('#whoami-role').textContent = sel ? sel.dataset.role : '';
}

function renderSidebar(state) {
  const channels = $('#channels');
  const apps = $('#apps');
  channels.textContent = '';
  apps.textContent = '';
  for (const c of state.conversations) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#';
    a.dataset.conv = c.id;
    a.textContent = c.kind === 'app' ? '🎁 Kudos' : `${c.isPrivate ? '🔒' : '#'} ${c.name}`;
    if (ui.page !== 'inbox' && ui.page !== 'workflow' && c.id === state.conversation.id) a.classList.add('active');
    li.append(a);
    (c.kind === 'app' ? apps : channels).append(li);
  }
  $('#open-inbox').classList.toggle('active', ui.page === 'inbox');
  $('#open-workflow').classList.toggle('active', ui.page === 'workflow');
}

function applyErrors(errors) {
  const modal = $('#modal-overlay .modal');
  if (!modal) return;
  for (const block of $$('.bk-input-block', modal)) {
    const msg = errors[block.dataset.blockId];
    const el = $('.bk-error', block);
    block.classList.toggle('has-error', Boolean(msg));
    if (el) {
      el.textContent = msg || '';
      el.hidden = !msg;
    }
  }
  const general = $('.modal-general-error', modal);
  if (general) {
    general.textContent = errors[''] || '';
    general.hidden = !errors[''];
  }
}

/** The inputs of the shown modal the user changed from what the view set, by block_id and action_id. */
function enteredValues(overlay) {
  const entered = new Map();
  for (const el of $$('.modal-body .bk-input[data-action-id]', overlay)) {
    const key = `${el.dataset.blockId}\u0000${el.dataset.actionId}`;
    if (el.tagName === 'SELECT') {
      const options = Array.from(el.options);
      if (options.some((o) => o.selected !== o.defaultSelected))
        entered.set(key, {
          selected: options.filter((o) => o.selected).map((o) => ({ value: o.value, text: o.text })),
        });
    } else if (el.classList.contains('choices')) {
      const boxes = $$('input', el);
      if (boxes.some((i) => i.checked !== i.defaultChecked))
        entered.set(key, { checked: boxes.filter((i) => i.checked).map((i) => i.value) });
    } else if (el.value !== el.defaultValue) entered.set(key, { value: el.value });
  }
  return entered;
}

function restoreEntered(overlay, entered) {
  if (entered.size === 0) return;
  for (const el of $$('.modal-body .bk-input[data-action-id]', overlay)) {
    const was = entered.get(`${el.dataset.blockId}\u0000${el.dataset.actionId}`);
    if (!was) continue;
    if (was.selected && el.tagName === 'SELECT') {
      const values = new Set(was.selected.map((o) => o.value));
      for (const o of Array.from(el.options)) o.selected = values.has(o.value);
      // An external select's picked option may not be among the options the new view lists.
      for (const o of was.selected)
        if (!Array.from(el.options).some((x) => x.value === o.value)) el.add(new Option(o.text, o.value, false, true));
    } else if (was.checked && el.classList.contains('choices')) {
      for (const i of $$('input', el)) i.checked = was.checked.includes(i.value);
    } else if ('value' in was && 'value' in el) el.value = was.value;
  }
}

function renderModal(modal) {
  const overlay = $('#modal-overlay');
  if (!modal) {
    overlay.hidden = true;
    overlay.textContent = '';
    ui.modalKey = null;
    return;
  }
  const key = `${modal.id}:${modal.hash}`;
  // Re-render only when the view itself changed, so typing is never lost to a refresh.
  if (key !== ui.modalKey) {
    // The same view updated (views.update): like Slack, what the user entered stays where the block_id
    // and action_id are the same.
    const entered = ui.modalKey && ui.modalKey.startsWith(`${modal.id}:`) ? enteredValues(overlay) : new Map();
    overlay.innerHTML = modal.html;
    restoreEntered(overlay, entered);
    overlay.hidden = false;
    ui.modalKey = key;
    for (const search of $$('.ext-search', overlay)) {
      if (Number(search.dataset.minQuery) === 0) loadOptions(search, '');
    }
  }
  applyErrors(modal.errors || {});
}

function render() {
  const state = ui.state;
  if (!state) return;
  const panel = ui.page === 'inbox' || ui.page === 'workflow';
  if (!panel) ui.conv = state.conversation.id;
  renderSidebar(state);
  const isApp = state.conversation.kind === 'app';
  const showHome = ui.page === 'home' && isApp;
  $('#conv-title').textContent =
    ui.page === 'inbox'
      ? "Recipients' inbox"
      : ui.page === 'workflow'
        ? 'Workflow Builder'
        : isApp
          ? 'Kudos'
          : `#${state.conversation.name}`;
  $('#app-tabs').hidden = !isApp || panel;
  $('#tab-home').classList.toggle('active', showHome);
  $('#tab-messages').classList.toggle('active', !showHome);
  $('#messages').hidden = panel || showHome;
  $('#home').hidden = !showHome;
  $('#inbox').hidden = ui.page !== 'inbox';
  $('#workflow').hidden = ui.page !== 'workflow';
  if (ui.page === 'workflow') renderWorkflow(state.workflow);
  else ui.workflowFormFor = null;
  $('#composer').hidden = panel || showHome;
  if (!$('#messages').hidden && state.messagesHtml !== ui.shownMessagesHtml) {
    const box = $('#messages');
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    box.innerHTML = state.messagesHtml;
    ui.shownMessagesHtml = state.messagesHtml;
    if (atBottom) box.scrollTop = box.scrollHeight;
  }
  const homeHtml = state.homeHtml || '<p class="empty">The app has not published a Home tab for you yet.</p>';
  if (showHome && homeHtml !== ui.shownHomeHtml) {
    $('#home').innerHTML = homeHtml;
    ui.shownHomeHtml = homeHtml;
  }
  renderModal(state.modal);
}

async function refresh() {
  if (ui.refreshing) {
    ui.again = true;
    return;
  }
  ui.refreshing = true;
  try {
    do {
      ui.again = false;
      ui.state = await api(`/_ui/state?as=${encodeURIComponent(ui.as)}&conv=${encodeURIComponent(ui.conv)}`);
      // Distribution mode: an install or a switch elsewhere changed the workspace: the sidebar follows.
      if (ui.workspaceKey !== null && ui.state.workspaceKey !== ui.workspaceKey) await loadWorkspace();
      ui.workspaceKey = ui.state.workspaceKey;
      render();
      if (ui.page === 'inbox') await renderInbox();
    } while (ui.again);
  } catch (err) {
    toast(String(err.message || err));
  } finally {
    ui.refreshing = false;
  }
}

async function refreshClock() {
  try {
    const c = await api('/_ui/clock');
    $('#clock-now').textContent = new Date(c.now).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  } catch {
    $('#clock-now').textContent = 'unavailable';
  }
}

async function renderInbox() {
  const box = $('#inbox');
  let data;
  try {
    data = await api('/_ui/inbox');
  } catch (err) {
    box.textContent = String(err.message);
    return;
  }
  const emails = (data.emails || []).slice().reverse();
  box.textContent = '';
  if (emails.length === 0) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = 'No e-mails yet. Send some kudos, then look here for what recipients receive.';
    box.append(p);
    return;
  }
  const table = document.createElement('table');
  table.innerHTML =
    '<thead><tr><th>Sent (UTC)</th><th>To</th><th>Card</th><th>Amount</th><th>From / message</th><th>Reward link</th><th>E-mail</th></tr></thead>';
  const tbody = document.createElement('tbody');
  const all = data.emails || [];
  for (const e of emails) {
    const tr = document.createElement('tr');
    tr.className = 'email';
    const cells = [
      (e.sentAt || '').replace('T', ' ').slice(0, 16),
      e.to + (e.bounced ? ' (bounced)' : ''),
      `${e.cardName || e.cardType || ''}${e.kind && e.kind !== 'card' ? ` [${e.kind}]` : ''}`,
      `${Number(e.amount).toFixed(2)} ${e.currency || ''}`,
      `${e.senderName || ''}${e.message ? `: ${e.message}` : ''}`,
    ];
    for (const text of cells) {
      const td = document.createElement('td');
      td.textContent = text;
      if (e.bounced && text === cells[1]) td.className = 'bounced';
      tr.append(td);
    }
    const link = document.createElement('td');
    if (e.rewardLink) {
      const a = document.createElement('a');
      a.href = e.rewardLink;
      a.textContent = 'Open reward';
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      link.append(a);
    } else link.textContent = '—';
    tr.append(link);
    const view = document.createElement('td');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'view-email';
    button.dataset.email = String(all.indexOf(e));
    button.textContent = 'View e-mail';
    view.append(button);
    tr.append(view);
    tbody.append(tr);
  }
  table.append(tbody);
  box.append(table);
  const opened = ui.openEmail !== null ? all[ui.openEmail] : undefined;
  if (opened) {
    const panel = document.createElement('div');
    panel.className = 'email-view';
    panel.id = 'email-view';
    // Rendered and escaped on the server (web/email.ts).
    panel.innerHTML = opened.html;
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close-email';
    close.textContent = 'Close e-mail';
    panel.prepend(close);
    box.append(panel);
  }
}

/** Pending top-ups in the Rewards emulator, each with the provider's review: the transfer arrived, or not. */
async function renderFundings() {
  const box = $('#fundings');
  if (!box || $('#clock').hidden || renderFundings.busy) return;
  let data;
  renderFundings.busy = true;
  try {
    data = await api('/_ui/fundings');
  } catch {
    box.textContent = '';
    return;
  } finally {
    renderFundings.busy = false;
  }
  const pending = (data.fundings || []).filter((f) => f.status === 'PENDING');
  const key = JSON.stringify(pending);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.textContent = '';
  if (pending.length === 0) return;
  const title = document.createElement('div');
  title.textContent = 'Pending top-ups:';
  box.append(title);
  for (const f of pending) {
    const row = document.createElement('div');
    row.className = 'funding';
    row.dataset.fundingNo = f.fundingNo;
    const label = document.createElement('span');
    const amount = f.amount && typeof f.amount === 'object' ? f.amount.amount : f.amount;
    label.textContent = `$${Number(amount).toFixed(2)} (${f.fundingNo}) `;
    row.append(label);
    for (const [outcome, text] of [
      ['approve', 'Transfer arrived'],
      ['reject', 'Reject'],
    ]) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.funding = f.fundingNo;
      if (f.org) b.dataset.org = f.org;
      b.dataset.outcome = outcome;
      b.textContent = text;
      row.append(b);
    }
    box.append(row);
  }
}

/** "Run a workflow step": the step's inputs, as a workflow would fill them, and the runs you started. */
function renderWorkflow(workflow) {
  const box = $('#workflow');
  const step = (workflow.steps || [])[0];
  if (!step) {
    box.textContent = 'The app has no workflow steps.';
    return;
  }
  if (ui.workflowFormFor !== ui.as) {
    ui.workflowFormFor = ui.as;
    box.textContent = '';
    const intro = document.createElement('p');
    intro.className = 'workflow-intro';
    intro.textContent = `A workflow you started reaches Kudos' step "${step.title}": Slack sends the app function_executed with these inputs, and the app completes the step.`;
    const form = document.createElement('form');
    form.className = 'workflow-form';
    form.id = 'workflow-form';
    form.dataset.callbackId = step.callbackId;
    const people = Array.from($('#whoami').options);
    for (const input of step.inputs) {
      const label = document.createElement('label');
      label.textContent = `${input.title}${input.required ? '' : ' (optional)'} `;
      let field;
      if (input.type === 'user' || input.type === 'users') {
        field = document.createElement('select');
        field.multiple = input.type === 'users';
        for (const p of people) {
          const o = new Option(p.textContent, p.value, false, input.type === 'user' && p.value === ui.as);
          field.add(o);
        }
      } else {
        field = document.createElement('input');
        field.type = input.type === 'number' ? 'number' : 'text';
        if (input.type === 'number') field.step = '0.01';
      }
      field.name = input.name;
      field.dataset.type = input.type;
      label.append(field);
      form.append(label);
    }
    const run = document.createElement('button');
    run.type = 'submit';
    run.className = 'bk-button primary';
    run.textContent = 'Run the step';
    form.append(run);
    const runs = document.createElement('div');
    runs.id = 'workflow-runs';
    box.append(intro, form, runs);
  }
  const runs = $('#workflow-runs');
  runs.textContent = '';
  for (const r of workflow.runs || []) {
    const line = document.createElement('div');
    line.className = `workflow-run ${r.state}`;
    const outputs = r.outputs
      ? Object.entries(r.outputs)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')
      : '';
    line.textContent = `${r.id}: ${r.state}${outputs ? ` (${outputs})` : ''}${r.error ? `: ${r.error}` : ''}`;
    runs.append(line);
  }
}

function confirmDialog(spec) {
  return new Promise((resolve) => {
    const overlay = $('#confirm-overlay');
    overlay.textContent = '';
    const box = document.createElement('div');
    box.className = 'confirm';
    box.setAttribute('role', 'alertdialog');
    const header = document.createElement('header');
    const h2 = document.createElement('h2');
    h2.textContent = spec.title;
    header.append(h2);
    const body = document.createElement('div');
    body.className = 'confirm-body';
    body.textContent = spec.text;
    const footer = document.createElement('footer');
    const deny = document.createElement('button');
    deny.type = 'button';
    deny.className = 'bk-button confirm-deny';
    deny.textContent = spec.deny;
    const ok = document.createElement('button');
    ok.type = 'button';
    ok.className = 'bk-button primary confirm-ok';
    ok.textContent = spec.confirm;
    footer.append(deny, ok);
    box.append(header, body, footer);
    overlay.append(box);
    overlay.hidden = false;
    const done = (v) => {
      overlay.hidden = true;
      overlay.textContent = '';
      resolve(v);
    };
    deny.onclick = () => done(false);
    ok.onclick = () => done(true);
  });
}

/** Where an element sits: a message (channel + ts), a modal, or the Home tab. */
function whereOf(el) {
  const msg = el.closest('.msg');
  if (msg) return { channel: msg.dataset.channel, ts: msg.dataset.ts };
  const modal = el.closest('.modal');
  if (modal) return { viewId: modal.dataset.viewId };
  if (el.closest('#home') && ui.state && ui.state.homeViewId) return { viewId: ui.state.homeViewId };
  return null;
}

async function act(el, value) {
  const where = whereOf(el);
  if (!where) return;
  try {
    const modal = el.closest('.modal');
    await api('/_ui/click', {
      as: ui.as,
      actionId: el.dataset.actionId,
      value,
      ...where,
      ...(modal ? { values: collectValues(modal) } : {}),
    });
  } catch (err) {
    toast(err.message);
  }
}

function collectValues(modal) {
  const values = {};
  for (const el of $$('.modal-body .bk-input[data-action-id]', modal)) {
    const blockId = el.dataset.blockId;
    const actionId = el.dataset.actionId;
    let v;
    if (el.tagName === 'SELECT')
      v = el.multiple ? Array.from(el.selectedOptions).map((o) => o.value) : el.value || null;
    else if (el.classList.contains('choices')) {
      const checked = $$('input:checked', el).map((i) => i.value);
      v = el.dataset.type === 'radio_buttons' ? (checked[0] ?? null) : checked;
    } else v = el.value;
    (values[blockId] = values[blockId] || {})[actionId] = v;
  }
  return values;
}

async function submitModal(modal) {
  const button = $('.modal-submit', modal);
  button.disabled = true;
  try {
    const r = await api('/_ui/submit', { as: ui.as, viewId: modal.dataset.viewId, values: collectValues(modal) });
    applyErrors(r.errors || {});
  } catch (err) {
    toast(err.message);
  } finally {
    button.disabled = false;
    refresh();
  }
}

async function loadOptions(search, query) {
  // A search typed just before the modal closed or changed has nothing left to fill.
  if (!search.isConnected) return;
  const modal = search.closest('.modal');
  const select = search.parentElement.querySelector('select');
  try {
    const r = await api('/_ui/options', {
      as: ui.as,
      viewId: modal.dataset.viewId,
      actionId: search.dataset.forAction,
      blockId: search.dataset.blockId,
      query,
    });
    const keep = new Set(
      Array.from(select.selectedOptions)
        .map((o) => o.value)
        .filter(Boolean),
    );
    const kept = Array.from(select.options).filter((o) => keep.has(o.value));
    select.textContent = '';
    if (!select.multiple) {
      const blank = document.createElement('option');
      blank.value = '';
      blank.textContent = r.options.length ? 'Select…' : 'No matches';
      select.append(blank);
    }
    for (const o of kept) select.append(o);
    for (const opt of r.options) {
      if (keep.has(opt.value)) continue;
      const o = document.createElement('option');
      o.value = opt.value;
      o.textContent = opt.text;
      select.append(o);
    }
  } catch (err) {
    toast(err.message);
  }
}

document.addEventListener('click', async (ev) => {
  const t = ev.target;
  if (!(t instanceof Element)) return;
  const nav = t.closest('[data-conv]');
  if (nav) {
    ev.preventDefault();
    ui.conv = nav.dataset.conv;
    ui.page = nav.textContent.includes('Kudos') && ui.page === 'home' ? 'home' : 'messages';
    saveLocation();
    return refresh();
  }
  if (t.closest('#open-inbox')) {
    ev.preventDefault();
    ui.page = 'inbox';
    saveLocation();
    return refresh();
  }
  if (t.closest('#open-workflow')) {
    ev.preventDefault();
    ui.page = 'workflow';
    saveLocation();
    return refresh();
  }
  const viewEmail = t.closest('.view-email');
  if (viewEmail) {
    ui.openEmail = Number(viewEmail.dataset.email);
    return renderInbox();
  }
  if (t.closest('.close-email')) {
    ui.openEmail = null;
    return renderInbox();
  }
  const reaction = t.closest('.reaction[data-reaction]');
  if (reaction) return react(reaction, reaction.dataset.reaction);
  const picked = t.closest('#message-menu [data-menu-item]');
  if (picked) {
    const menu = $('#message-menu');
    const where = { channel: menu.dataset.channel, ts: menu.dataset.ts };
    closeMessageMenu();
    if (picked.dataset.reaction) return react(where, picked.dataset.reaction);
    try {
      await api('/_ui/shortcut', { as: ui.as, ...where, callbackId: picked.dataset.shortcut });
    } catch (err) {
      toast(err.message);
    }
    return refresh();
  }
  const opener = t.closest('.msg-react, .msg-more');
  if (opener) return openMessageMenu(opener, opener.classList.contains('msg-react') ? 'reactions' : 'shortcuts');
  closeMessageMenu();
  const funding = t.closest('[data-funding]');
  if (funding) {
    funding.disabled = true;
    try {
      await api('/_ui/fundings/process', {
        fundingNo: funding.dataset.funding,
        outcome: funding.dataset.outcome,
        ...(funding.dataset.org ? { org: funding.dataset.org } : {}),
      });
      toast(
        funding.dataset.outcome === 'approve'
          ? 'Top-up approved by the provider: the money is in the balance. Kudos shows it completed at its next balance check (within 5 minutes).'
          : 'Top-up rejected by the provider: the balance stays as it was.',
      );
    } catch (err) {
      toast(err.message);
      funding.disabled = false;
    }
    await renderFundings();
    return refresh();
  }
  const tab = t.closest('[data-tab]');
  if (tab) {
    ui.page = tab.dataset.tab;
    saveLocation();
    if (ui.page === 'home') {
      try {
        await api('/_ui/home', { as: ui.as });
      } catch (err) {
        toast(err.message);
      }
    }
    return refresh();
  }
  const low = t.closest('[data-balance-low]');
  if (low) {
    low.disabled = true;
    try {
      const r = await api('/_ui/balance', { amount: Number($('#balance-amount').value || '0') });
      toast(`Rewards balance set to $${r.availableBalance.amount}. Kudos alerts at its next order or periodic check.`);
    } catch (err) {
      toast(err.message);
    }
    low.disabled = false;
    return refresh();
  }
  const advance = t.closest('[data-advance]');
  if (advance) {
    advance.disabled = true;
    try {
      await api('/_ui/clock/advance', { seconds: Number(advance.dataset.advance) });
    } catch (err) {
      toast(err.message);
    }
    advance.disabled = false;
    refreshClock();
    return refresh();
  }
  const modal = t.closest('.modal');
  if (modal && t.closest('.modal-submit')) return submitModal(modal);
  if (modal && (t.closest('.modal-close') || t.closest('.modal-x'))) {
    try {
      await api('/_ui/close', { as: ui.as, viewId: modal.dataset.viewId, all: Boolean(t.closest('.modal-x')) });
    } catch (err) {
      toast(err.message);
    }
    return refresh();
  }
  const button = t.closest('button.bk-button[data-action-id]');
  if (button) {
    if (button.dataset.confirm) {
      const ok = await confirmDialog(JSON.parse(button.dataset.confirm));
      if (!ok) return;
    }
    if (button.dataset.url) window.open(button.dataset.url, '_blank', 'noopener');
    button.disabled = true;
    await act(button, button.dataset.value);
    button.disabled = false;
  }
});

/** A message's ☺ (reactions) or ⋮ (More actions: the app's message shortcuts) menu. */
function openMessageMenu(opener, kind) {
  closeMessageMenu();
  const msg = opener.closest('.msg');
  const menus = ui.state && ui.state.messageMenus;
  if (!msg || !menus) return;
  const menu = document.createElement('div');
  menu.id = 'message-menu';
  menu.className = `message-menu ${kind}`;
  menu.setAttribute('role', 'menu');
  menu.dataset.channel = msg.dataset.channel;
  menu.dataset.ts = msg.dataset.ts;
  const items =
    kind === 'reactions'
      ? menus.reactions.map((r) => ({ text: `${r.emoji} :${r.name}:`, data: { reaction: r.name } }))
      : menus.shortcuts.map((s) => ({ text: s.name, data: { shortcut: s.callbackId } }));
  for (const item of items) {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'menuitem');
    b.dataset.menuItem = '';
    Object.assign(b.dataset, item.data);
    b.textContent = item.text;
    menu.append(b);
  }
  const box = opener.getBoundingClientRect();
  menu.style.top = `${box.bottom + window.scrollY + 4}px`;
  menu.style.left = `${Math.max(8, box.right + window.scrollX - 220)}px`;
  document.body.append(menu);
}

function closeMessageMenu() {
  const menu = $('#message-menu');
  if (menu) menu.remove();
}

/** A reaction on a message (an element in it, or {channel, ts}): adds yours, or takes it back when you had it. */
async function react(el, name) {
  const msg = el instanceof Element ? el.closest('.msg') : null;
  const where = msg ? { channel: msg.dataset.channel, ts: msg.dataset.ts } : el;
  if (!where || !where.channel || !name) return;
  try {
    await api('/_ui/react', { as: ui.as, ...where, name });
  } catch (err) {
    toast(err.message);
  }
  return refresh();
}

document.addEventListener('change', (ev) => {
  const t = ev.target;
  if (!(t instanceof Element)) return;
  if (t.id === 'workspace') {
    ui.modalKey = null;
    return api('/_ui/workspace', { teamId: t.value })
      .then(() => loadWorkspace())
      .then(() => refresh())
      .catch((err) => toast(err.message));
  }
  if (t.id === 'whoami') {
    ui.as = t.value;
    ui.modalKey = null;
    showRole();
    saveLocation();
    if (ui.page === 'home') api('/_ui/home', { as: ui.as }).catch((err) => toast(err.message));
    return refresh();
  }
  // Input blocks with dispatch_action send block_actions when their element changes.
  const dispatching = t.closest('.bk-input-block[data-dispatch]');
  if (dispatching) {
    const el = t.closest('[data-action-id]');
    if (el && t.value) act(el, t.value);
    return;
  }
  // Selects outside input blocks (actions blocks, overflow menus) send block_actions at once.
  if (t.tagName === 'SELECT' && t.dataset.actionId && !t.closest('.bk-input-block') && t.value) act(t, t.value);
});

let searchTimer = null;
document.addEventListener('input', (ev) => {
  const t = ev.target;
  if (!(t instanceof Element) || !t.classList.contains('ext-search')) return;
  clearTimeout(searchTimer);
  const q = t.value;
  if (q.length < Number(t.dataset.minQuery || 3)) return;
  searchTimer = setTimeout(() => loadOptions(t, q), 250);
});

$('#composer').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const input = $('#composer-input');
  const text = input.value.trim();
  if (!text) return;
  try {
    // A plain message is posted as you (try "More actions" or a reaction on it); a slash command runs.
    if (text.startsWith('/')) await api('/_ui/command', { as: ui.as, channel: ui.conv, text });
    else await api('/_ui/message', { as: ui.as, channel: ui.conv, text });
    input.value = '';
  } catch (err) {
    toast(err.message);
  }
  refresh();
});

document.addEventListener('submit', async (ev) => {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement) || form.id !== 'workflow-form') return;
  ev.preventDefault();
  const inputs = {};
  for (const field of $$('[name]', form)) {
    if (field.dataset.type === 'users') inputs[field.name] = Array.from(field.selectedOptions).map((o) => o.value);
    else if (field.dataset.type === 'number') inputs[field.name] = field.value === '' ? '' : Number(field.value);
    else inputs[field.name] = field.value;
  }
  const button = $('button[type=submit]', form);
  button.disabled = true;
  try {
    await api('/_ui/workflow', { as: ui.as, callbackId: form.dataset.callbackId, inputs });
  } catch (err) {
    toast(err.message);
  }
  button.disabled = false;
  refresh();
});

async function main() {
  await loadWorkspace();
  saveLocation();
  await refresh();
  refreshClock();
  setInterval(refreshClock, 30000);
  // The emulator's outbox is not part of the workspace's change stream: poll it while it is shown.
  setInterval(() => {
    if (ui.page === 'inbox' && !document.hidden) renderInbox();
  }, 2000);
  // Nor are its top-ups: the pending ones are polled too, apart from the page's refreshes.
  renderFundings();
  setInterval(() => {
    if (!document.hidden) renderFundings();
  }, 3000);
  const events = new EventSource('/_ui/events');
  events.onmessage = () => refresh();
  if (ui.page === 'home') api('/_ui/home', { as: ui.as }).catch(() => {});
}

main().catch((err) => toast(String(err.message || err)));
