// Options for the modal's external selects (block_suggestion answers).
import { formatUsd } from '../../domain/common/money.js';
import { plain } from '../kit/mrkdwn.js';
import { groupOptionValue } from './send-modal-blocks.js';

export interface DesignOption {
  productId: string;
  name: string;
  minCents: number;
  maxCents: number;
}

const MAX_OPTIONS = 100;

export function buildDesignOptions(designs: DesignOption[]) {
  return {
    options: designs.slice(0, MAX_OPTIONS).map((d) => ({
      text: plain(`${d.name} (${formatUsd(d.minCents)}–${formatUsd(d.maxCents)})`, 75),
      value: d.productId.slice(0, 150),
    })),
  };
}

export function buildGroupOptions(
  usergroups: Array<{ id: string; handle: string; name: string }>,
  addressBookGroups: Array<{ groupId: string; groupName: string; memberCount?: number | undefined }>,
) {
  const groups = [];
  if (usergroups.length > 0) {
    groups.push({
      label: plain('Slack user groups', 75),
      options: usergroups
        .slice(0, MAX_OPTIONS)
        .map((g) => ({ text: plain(`@${g.handle} (${g.name})`, 75), value: groupOptionValue('slack', g.id) })),
    });
  }
  if (addressBookGroups.length > 0) {
    groups.push({
      label: plain('Address book groups', 75),
      options: addressBookGroups.slice(0, MAX_OPTIONS).map((g) => ({
        text: plain(g.memberCount !== undefined ? `${g.groupName} (${g.memberCount})` : g.groupName, 75),
        value: groupOptionValue('addressBook', g.groupId),
      })),
    });
  }
  // Slack refuses an empty option_groups list; an empty options list is fine.
  return groups.length > 0 ? { option_groups: groups } : { options: [] };
}

/**
 * An options load answer for a search: the options whose text contains the query (case-insensitive),
 * at most 100 (Slack's limit), with `none` first when nothing was typed: typing narrows a longer list.
 */
export function searchOptions(
  query: string,
  none: { text: { text: string }; value: string },
  all: Array<{ text: { text: string }; value: string }>,
) {
  const q = query.trim().toLowerCase();
  const matching = all.filter((o) => q === '' || o.text.text.toLowerCase().includes(q) || o.value.toLowerCase() === q);
  const head = q === '' ? [none] : [];
  return { options: [...head, ...matching].slice(0, MAX_OPTIONS) };
}
