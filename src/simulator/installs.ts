// Distribution mode in the simulator (the README's installation modes): several workspaces (one Enterprise Grid
// org among them), Slack's OAuth v2 (the authorize page, oauth.v2.access with a code or a refresh
// token), a bot token per installation with optional rotation (xoxe refresh tokens, expiry), and
// uninstalling (tokens revoked, app_uninstalled and tokens_revoked sent to the app). Every Web API call
// is attributed to the installation whose token it carried, so a test can assert which one it was.
import { randomBytes } from 'node:crypto';

export interface SimTeam {
  id: string;
  name: string;
  domain: string;
  /** The Enterprise Grid org the workspace belongs to. */
  enterpriseId?: string;
  enterpriseName?: string;
}

export interface SimInstallation {
  /** `team:<id>` or `enterprise:<id>` (org-wide install). */
  key: string;
  teamId: string | undefined;
  enterpriseId: string | undefined;
  orgWide: boolean;
  botToken: string;
  refreshToken: string | undefined;
  /** ms since epoch; undefined without rotation. */
  expiresAt: number | undefined;
  /** Tokens handed out before (rotated away) still name this installation, but are refused after expiry. */
  revoked: boolean;
  scopes: string[];
  installerUserId: string;
}

export interface SimOAuthOptions {
  clientId: string;
  clientSecret: string;
  /** token_rotation_enabled: tokens expire and come with a refresh token. Default false. */
  tokenRotation?: boolean;
  /** Lifetime of a rotating access token; default Slack's 12 h. */
  expiresInSeconds?: number;
}

/** The workspaces of distribution mode's simulator: the seed's, a second one, and a Grid org with two. */
export function defaultTeams(seedTeam: { id: string; name: string; domain: string }): SimTeam[] {
  return [
    seedTeam,
    { id: 'T_SECOND', name: 'Second Co', domain: 'second-co' },
    { id: 'T_GRID_A', name: 'Grid Sales', domain: 'grid-sales', enterpriseId: 'E_GRID', enterpriseName: 'Grid Corp' },
    {
      id: 'T_GRID_B',
      name: 'Grid Support',
      domain: 'grid-support',
      enterpriseId: 'E_GRID',
      enterpriseName: 'Grid Corp',
    },
  ];
}

interface PendingCode {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  orgWide: boolean;
  scopes: string[];
  userId: string;
  expiresAt: number;
}

export type OAuthAnswer = Record<string, unknown> & { ok: boolean; error?: string };

export class SimInstalls {
  readonly installations = new Map<string, SimInstallation>();
  private readonly codes = new Map<string, PendingCode>();
  /** Every token ever issued (rotated ones too), to its installation key. */
  private readonly tokens = new Map<string, { key: string; expiresAt: number | undefined }>();
  private readonly refreshTokens = new Map<string, string>();
  /** Times oauth.v2.access answered with grant_type=refresh_token. */
  refreshes = 0;
  expiresInSeconds: number;

  constructor(
    readonly teams: SimTeam[],
    readonly oauth: SimOAuthOptions,
    private readonly app: { appId: string; botId: string; botUserId: string },
    private readonly now: () => number,
  ) {
    this.expiresInSeconds = oauth.expiresInSeconds ?? 43_200;
  }

  team(id: string): SimTeam | undefined {
    return this.teams.find((t) => t.id === id);
  }

  /** The authorize page's approval: a one-time code for the redirect. */
  approve(choice: {
    teamId?: string;
    enterpriseId?: string;
    orgWide?: boolean;
    scopes: string[];
    userId: string;
  }): string {
    const code = `${randomBytes(8).toString('hex')}.${randomBytes(8).toString('hex')}`;
    const team = choice.teamId ? this.team(choice.teamId) : undefined;
    this.codes.set(code, {
      teamId: choice.orgWide ? undefined : choice.teamId,
      enterpriseId: choice.orgWide ? choice.enterpriseId : team?.enterpriseId,
      orgWide: Boolean(choice.orgWide),
      scopes: choice.scopes,
      userId: choice.userId,
      expiresAt: this.now() + 600_000,
    });
    return code;
  }

  /** oauth.v2.access: a code from the authorize page, or a refresh token (grant_type=refresh_token). */
  access(args: Record<string, unknown>, basicAuth: { id: string; secret: string } | undefined): OAuthAnswer {
    const clientId = typeof args.client_id === 'string' ? args.client_id : basicAuth?.id;
    const clientSecret = typeof args.client_secret === 'string' ? args.client_secret : basicAuth?.secret;
    if (clientId !== this.oauth.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== this.oauth.clientSecret) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') return this.refresh(args.refresh_token);
    const code = typeof args.code === 'string' ? this.codes.get(args.code) : undefined;
    if (!code || code.expiresAt < this.now()) return { ok: false, error: 'invalid_code' };
    this.codes.delete(args.code as string);
    const key = code.orgWide ? `enterprise:${code.enterpriseId}` : `team:${code.teamId}`;
    // Re-installing replaces the installation's tokens: the old ones stop working.
    const previous = this.installations.get(key);
    if (previous) this.revokeTokensOf(key);
    const installation: SimInstallation = {
      key,
      teamId: code.teamId,
      enterpriseId: code.enterpriseId,
      orgWide: code.orgWide,
      botToken: '',
      refreshToken: undefined,
      expiresAt: undefined,
      revoked: false,
      scopes: code.scopes,
      installerUserId: code.userId,
    };
    this.installations.set(key, installation);
    this.issue(installation);
    const team = code.teamId ? this.team(code.teamId) : undefined;
    const enterpriseName = this.teams.find((t) => t.enterpriseId === code.enterpriseId)?.enterpriseName;
    return {
      ok: true,
      app_id: this.app.appId,
      authed_user: { id: code.userId },
      scope: code.scopes.join(','),
      token_type: 'bot',
      access_token: installation.botToken,
      bot_user_id: this.app.botUserId,
      ...(installation.refreshToken
        ? { refresh_token: installation.refreshToken, expires_in: this.expiresInSeconds }
        : {}),
      team: team ? { id: team.id, name: team.name } : null,
      enterprise: code.enterpriseId ? { id: code.enterpriseId, name: enterpriseName ?? code.enterpriseId } : null,
      is_enterprise_install: code.orgWide,
    };
  }

  private refresh(refreshToken: unknown): OAuthAnswer {
    const key = typeof refreshToken === 'string' ? this.refreshTokens.get(refreshToken) : undefined;
    const installation = key ? this.installations.get(key) : undefined;
    if (!installation || installation.revoked) return { ok: false, error: 'invalid_refresh_token' };
    this.refreshTokens.delete(refreshToken as string);
    this.issue(installation);
    this.refreshes++;
    const team = installation.teamId ? this.team(installation.teamId) : undefined;
    return {
      ok: true,
      app_id: this.app.appId,
      scope: installation.scopes.join(','),
      token_type: 'bot',
      access_token: installation.botToken,
      refresh_token: installation.refreshToken,
      expires_in: this.expiresInSeconds,
      bot_user_id: this.app.botUserId,
      team: team ? { id: team.id, name: team.name } : null,
      enterprise: installation.enterpriseId ? { id: installation.enterpriseId, name: installation.enterpriseId } : null,
      is_enterprise_install: installation.orgWide,
    };
  }

  private issue(installation: SimInstallation): void {
    const rotating = this.oauth.tokenRotation === true;
    // Rotating tokens are `xoxe.xoxb-…` at Slack; refresh tokens `xoxe-…`.
    installation.botToken = `${rotating ? 'xoxe.' : ''}xoxb-${installation.key.replace(/[^A-Za-z0-9]/g, '')}-${randomBytes(10).toString('hex')}`;
    installation.expiresAt = rotating ? this.now() + this.expiresInSeconds * 1000 : undefined;
    this.tokens.set(installation.botToken, { key: installation.key, expiresAt: installation.expiresAt });
    if (rotating) {
      installation.refreshToken = `xoxe-1-${randomBytes(16).toString('hex')}`;
      this.refreshTokens.set(installation.refreshToken, installation.key);
    }
  }

  /**
   * Whose token is this: the installation (and so the workspace or org) a Web API call acts for.
   * `error`: a token Slack would refuse (revoked by an uninstall, or expired).
   */
  owner(
    token: string,
  ): { installation: SimInstallation } | { error: 'invalid_auth' | 'token_revoked' | 'token_expired' } | undefined {
    const issued = this.tokens.get(token);
    if (!issued) return undefined;
    const installation = this.installations.get(issued.key);
    if (!installation || installation.revoked) return { error: 'token_revoked' };
    if (issued.expiresAt !== undefined && issued.expiresAt <= this.now()) return { error: 'token_expired' };
    // An older token of a re-installed installation is no longer valid.
    if (issued.expiresAt === undefined && installation.botToken !== token) return { error: 'invalid_auth' };
    return { installation };
  }

  private revokeTokensOf(key: string): void {
    for (const [token, issued] of this.tokens) if (issued.key === key) this.tokens.delete(token);
    for (const [refresh, owner] of this.refreshTokens) if (owner === key) this.refreshTokens.delete(refresh);
  }

  /** apps.uninstall: the installation's tokens stop working at once. */
  uninstall(key: string): SimInstallation | undefined {
    const installation = this.installations.get(key);
    if (!installation || installation.revoked) return undefined;
    installation.revoked = true;
    return installation;
  }
}
