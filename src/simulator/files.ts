// The app's file uploads, in Slack's three steps (files.uploadV2 in @slack/web-api makes them):
// files.getUploadURLExternal announces a file and answers an upload URL on this server; the bytes are
// POSTed there (raw, or as a multipart form, as the SDK sends them); files.completeUploadExternal
// finishes the upload and shares the file into a channel or DM as a message of the bot.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Json, SimulatorState } from './state.js';

type Answer = Json & { ok: boolean; error?: string };

/** Slack's ceiling for one file is 1 GB; the simulator keeps files in memory, so far less. */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

const fail = (error: string): Answer => ({ ok: false, error });
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export const fileHandlers: Record<string, (s: SimulatorState, args: Json) => Answer> = {
  'files.getUploadURLExternal': (s, args) => {
    const filename = str(args.filename);
    const length = Number(args.length);
    if (!filename) return fail('invalid_arguments');
    if (!Number.isInteger(length) || length < 1) return fail('invalid_arguments');
    if (length > MAX_UPLOAD_BYTES) return fail('file_too_large');
    const id = `F${String(s.files.size + 1).padStart(8, '0')}`;
    const token = Math.random().toString(36).slice(2, 12);
    s.files.set(id, {
      id,
      name: filename,
      filetype: filename.split('.').pop()?.toLowerCase() ?? 'text',
      userId: s.workspace.app.botUserId,
      content: Buffer.alloc(0),
      created: s.now(),
      awaiting: { length, token },
    });
    return { ok: true, upload_url: `${s.baseUrl}/upload/v1/${id}/${token}`, file_id: id };
  },

  'files.completeUploadExternal': (s, args) => {
    let listed: unknown;
    try {
      listed = typeof args.files === 'string' ? JSON.parse(args.files) : args.files;
    } catch {
      return fail('invalid_arguments');
    }
    if (!Array.isArray(listed) || listed.length === 0) return fail('invalid_arguments');
    const entries = listed as Array<{ id?: unknown; title?: unknown }>;
    const files = entries.map((e) => (typeof e.id === 'string' ? s.files.get(e.id) : undefined));
    // Slack: a file never uploaded (or already completed) cannot be completed.
    if (files.some((f) => !f || !f.awaiting || f.content.length === 0)) return fail('file_not_found');
    const channel = str(args.channel_id);
    if (channel) {
      const target = s.channel(channel);
      if (!target && !s.imUser(channel)) return fail('channel_not_found');
      if (target && !target.members.includes(s.workspace.app.botUserId))
        return fail(target.isPrivate ? 'channel_not_found' : 'not_in_channel');
    }
    const shared = files.map((f, i) => {
      const file = f!;
      delete file.awaiting;
      file.title = typeof entries[i]!.title === 'string' ? entries[i]!.title : file.name;
      return { id: file.id, name: file.name, title: file.title };
    });
    if (channel) {
      s.postMessage({
        channel,
        user: s.workspace.app.botUserId,
        bot_id: s.workspace.app.botId,
        text: str(args.initial_comment) ?? '',
        ...(str(args.thread_ts) ? { thread_ts: str(args.thread_ts) } : {}),
        files: shared,
        ephemeral: false,
      });
    }
    return { ok: true, files: shared };
  },
};

/** POST to an upload URL: the announced file's bytes, raw or as the first file of a multipart form. */
export async function serveUpload(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  fileId: string,
  token: string,
): Promise<void> {
  const file = state.files.get(fileId);
  const answer = (status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(text);
  };
  if (!file?.awaiting || file.awaiting.token !== token) return answer(404, 'not found');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPLOAD_BYTES * 2) return answer(413, 'too large');
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  const bytes = type.startsWith('multipart/form-data') ? await firstFormFile(body, type) : body;
  if (!bytes || bytes.length !== file.awaiting.length) return answer(400, 'length mismatch');
  file.content = bytes;
  return answer(200, `OK - ${bytes.length}`);
}

async function firstFormFile(body: Buffer, contentType: string): Promise<Buffer | undefined> {
  try {
    const form = await new Request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
    for (const value of form.values())
      return typeof value === 'string' ? Buffer.from(value) : Buffer.from(await value.arrayBuffer());
  } catch {
    return undefined;
  }
  return undefined;
}
