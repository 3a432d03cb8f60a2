/**
 * @module lemon-skills/skills
 * The skill catalog without MCP: discovery, manifest, activation and prompt rendering.
 */
export { SkillRegistry, type SkillList, type ShadowedSkill, type InvalidSkill, type ListOptions } from "./registry.ts";
export type { SkillEntry, SkillStatus, ActivationState, Missing } from "./entry.ts";
export { renderListing, renderRelevantBlock } from "./prompt.ts";
export { parseSkillText } from "./frontmatter.ts";
export { buildManifest } from "./manifest.ts";
export { createContext, type ContextOptions, type LemonContext } from "../context.ts";
export { LemonError, type ErrorCode } from "../errors.ts";
export type { Diagnostic } from "../diagnostics.ts";
