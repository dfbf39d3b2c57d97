// Recipient groups and their members (spec 4.7).
import { groupMemberSchema, groupNameParamsSchema, recipientGroupSchema } from '../schemas.js';
import type { GroupsResource } from '../types.js';
import { listFor, parseParams, type ResourceContext, segment, send, sendFor } from './context.js';

export function groupsResource(ctx: ResourceContext): GroupsResource {
  const one = (groupId: string) => `/api/v1/recipient-groups/${segment('groupId', groupId)}`;
  const endpoint = '/api/v1/recipient-groups/{groupId}';
  const membersEndpoint = '/api/v1/recipient-groups/{groupId}/members';
  return {
    list: (query = {}, options) =>
      listFor(
        ctx,
        { path: '/api/v1/recipient-groups', endpoint: '/api/v1/recipient-groups' },
        recipientGroupSchema,
        { ...query },
        options,
      ),
    get: async (groupId, options) =>
      sendFor(ctx, { method: 'GET', path: one(groupId), endpoint }, recipientGroupSchema, options),
    create: async (groupName, options) =>
      sendFor(
        ctx,
        {
          method: 'POST',
          path: '/api/v1/recipient-groups',
          endpoint: '/api/v1/recipient-groups',
          json: parseParams(groupNameParamsSchema, { groupName }, 'group'),
        },
        recipientGroupSchema,
        options,
      ),
    rename: async (groupId, groupName, options) =>
      sendFor(
        ctx,
        {
          method: 'PUT',
          path: one(groupId),
          endpoint,
          json: parseParams(groupNameParamsSchema, { groupName }, 'group'),
        },
        recipientGroupSchema,
        options,
      ),
    async delete(groupId, options) {
      await send(ctx, { method: 'DELETE', path: one(groupId), endpoint }, options);
    },
    listMembers: (groupId, query = {}, options) =>
      listFor(
        ctx,
        { path: `${one(groupId)}/members`, endpoint: membersEndpoint },
        groupMemberSchema,
        { ...query },
        options,
      ),
    async addMember(groupId, recipientId, options) {
      segment('recipientId', recipientId);
      // Adding an existing member succeeds (201), so a retry is harmless: retried like a GET.
      await send(
        ctx,
        {
          method: 'POST',
          path: `${one(groupId)}/members`,
          endpoint: membersEndpoint,
          json: { recipientId },
          retry: 'safe',
        },
        options,
      );
    },
    async removeMember(groupId, recipientId, options) {
      await send(
        ctx,
        {
          method: 'DELETE',
          path: `${one(groupId)}/members/${segment('recipientId', recipientId)}`,
          endpoint: `${membersEndpoint}/{recipientId}`,
        },
        options,
      );
    },
  };
}
