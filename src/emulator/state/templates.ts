import type { Clock } from '../clock.js';
import { ApiError, fail } from '../errors.js';
import { newId } from '../ids.js';
import { isoUtc } from '../time.js';
import type { EnvState, Template } from './model.js';

export interface TemplateInput {
  name: string;
  senderName: string;
  message?: string | undefined;
  imageAlignment?: 'left' | 'center' | 'right' | undefined;
  imageSize?: number | undefined;
  borderColor?: string | undefined;
  buttonColor?: string | undefined;
  buttonFontColor?: string | undefined;
}

/** E-mail templates (spec 2.4, 4.5). Field rules are checked by the route schema. */
export class TemplatesService {
  constructor(private readonly core: { readonly clock: Clock }) {}

  create(env: EnvState, input: TemplateInput): Template {
    const t: Template = {
      templateId: newId.template(),
      name: input.name,
      senderName: input.senderName,
      ...(input.message !== undefined ? { message: input.message } : {}),
      imageAlignment: input.imageAlignment ?? 'center',
      imageSize: input.imageSize ?? 40,
      ...(input.borderColor ? { borderColor: input.borderColor } : {}),
      ...(input.buttonColor ? { buttonColor: input.buttonColor } : {}),
      ...(input.buttonFontColor ? { buttonFontColor: input.buttonFontColor } : {}),
      isDefault: false,
      createdAtMs: this.core.clock.nowMs(),
    };
    env.templates.set(t.templateId, t);
    return t;
  }

  list(env: EnvState): Template[] {
    return [...env.templates.values()];
  }

  get(env: EnvState, templateId: string): Template {
    const t = env.templates.get(templateId);
    if (!t) throw fail.notFound(`Template ${templateId}`);
    return t;
  }

  /** The default template stays; one used by active campaigns must first be removed from them. */
  delete(env: EnvState, templateId: string): void {
    const t = this.get(env, templateId);
    if (t.isDefault) throw new ApiError('DEFAULT_TEMPLATE', 'The default template cannot be deleted');
    const users = [...env.campaigns.values()]
      .filter((c) => !c.deletedAtMs && c.templateId === templateId)
      .map((c) => c.campaignId);
    if (users.length > 0)
      throw new ApiError('TEMPLATE_IN_USE', 'The template is used by active campaigns; remove it from them first', {
        campaignIds: users,
      });
    env.templates.delete(templateId);
  }
}

export function serializeTemplate(t: Template) {
  return {
    templateId: t.templateId,
    name: t.name,
    senderName: t.senderName,
    message: t.message ?? null,
    imageAlignment: t.imageAlignment,
    imageSize: t.imageSize,
    borderColor: t.borderColor ?? null,
    buttonColor: t.buttonColor ?? null,
    buttonFontColor: t.buttonFontColor ?? null,
    isDefault: t.isDefault,
    createdAt: isoUtc(t.createdAtMs),
  };
}
