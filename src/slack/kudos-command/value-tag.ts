// `/kudos @a 25 #teamwork Thanks`: the company value the command names, checked before the answer. An
// unknown name, or two of them, is one short line (nothing opens); a workspace without values keeps
// the `#words` in the message as typed.
import type { Database } from '../../db/client.js';
import type { CompanyValueRow } from '../../db/schema/index.js';
import { listCompanyValues, resolveValueTag, valueTagsText } from '../../domain/workspaces/company-values.js';
import { type KudosCommand, parseKudosCommand } from './parse.js';

type OpenCommand = Extract<KudosCommand, { kind: 'open' }>;

export async function commandValue(
  db: Database,
  teamId: string,
  text: string,
  parsed: OpenCommand,
): Promise<{ ok: true; parsed: OpenCommand; value?: CompanyValueRow } | { ok: false; message: string }> {
  if (!parsed.value) return { ok: true, parsed };
  const resolved = await resolveValueTag(db, teamId, parsed.value);
  if (!resolved.ok && resolved.code === 'no_values') {
    const asTyped = parseKudosCommand(text, { valueTags: false });
    return { ok: true, parsed: asTyped.kind === 'open' ? asTyped : parsed };
  }
  if (parsed.otherValues)
    return {
      ok: false,
      message: `A kudos has one company value: keep one of #${[parsed.value, ...parsed.otherValues].join(', #')}. The values are: ${valueTagsText(await listCompanyValues(db, teamId))}.`,
    };
  return resolved.ok ? { ok: true, parsed, value: resolved.value } : { ok: false, message: resolved.message };
}
