// Ids go into URL paths encoded, and a dot segment is refused before anything is sent (security
// issue, finding 7): `..` as a group id once made the client call GET /api/v1/members.
import { afterEach, describe, expect, it } from 'vitest';

import { RewardsRequestValidationError } from '../../src/rewards/index.js';
import { json, startStub, type StubServer, testClient } from './support/stub-server.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('path segments', () => {
  it('refuses `.` and `..` as ids, sending nothing', async () => {
    stub = await startStub((_req, res) => json(res, 200, { data: [], page: 1, pageSize: 100, totalCount: 0 }));
    const { client } = testClient(stub.url);
    for (const id of ['..', '.']) {
      await expect(client.groups.get(id)).rejects.toBeInstanceOf(RewardsRequestValidationError);
      await expect(client.recipients.get(id)).rejects.toBeInstanceOf(RewardsRequestValidationError);
      await expect((async () => client.groups.listMembers(id))()).rejects.toBeInstanceOf(RewardsRequestValidationError);
    }
    expect(stub.requests.filter((r) => !r.path.startsWith('/oauth'))).toEqual([]);
  });

  it('encodes every other id whole into one segment', async () => {
    stub = await startStub((_req, res) => json(res, 200, { data: [], page: 1, pageSize: 100, totalCount: 0 }));
    const { client } = testClient(stub.url);
    await client.groups.listMembers('../x/..?a=1#b');
    const paths = stub.requests.filter((r) => !r.path.startsWith('/oauth')).map((r) => r.path);
    expect(paths).toEqual([expect.stringContaining('/api/v1/recipient-groups/..%2Fx%2F..%3Fa%3D1%23b/members')]);
  });
});
