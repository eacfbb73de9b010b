/**
 * LTI Deep Linking 2.0 content items the tool returns (https://www.imsglobal.org/spec/lti-dl/v2p0#lti-resource-link),
 * without ltijs: the adapter (provider.ts) signs them.
 */
export interface LtiResourceLinkItem {
  type: 'ltiResourceLink';
  title: string;
  text?: string;
  /** The tool's launch URL; absent: the tool's default target link URI. */
  url?: string;
  custom?: Record<string, string>;
  /** Ask the platform to open the link in a new window (LTI-DL 2.0 §3.4.1 `window`); set by the adapter where the platform accepts 'window'. */
  window?: { targetName?: string; width?: number; height?: number; windowFeatures?: string };
  iframe?: { src?: string; width?: number; height?: number };
}

export interface DeepLinkingResponse {
  /** deep_link_return_url of the request: the form posts the JWT there. */
  returnUrl: string;
  /** The signed LtiDeepLinkingResponse, posted as the form field `JWT`. */
  jwt: string;
}

/** The custom parameter that carries the tool's exam id in a resource link it created. */
export const EXAM_ID_CUSTOM_PARAMETER = 'proctor_exam_id';

export function examResourceLink(input: { title: string; text?: string; launchUrl: string; examId: string }): LtiResourceLinkItem {
  return {
    type: 'ltiResourceLink',
    title: input.title,
    ...(input.text ? { text: input.text } : {}),
    url: input.launchUrl,
    custom: { [EXAM_ID_CUSTOM_PARAMETER]: input.examId },
  };
}
