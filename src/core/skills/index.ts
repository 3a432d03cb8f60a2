/**
 * @module lemon-skills/skills
 * The skill catalog without MCP: discovery, manifest, activation, lint, check, inspect and prompt
 * rendering. `SkillRegistry` is the skills API of one instance (what `createLemon().skills` wraps).
 */
export {
  SkillRegistry,
  type SkillList,
  type ShadowedSkill,
  type InvalidSkill,
  type ListOptions,
  type ViewOptions,
  type LintCallOptions,
  type ToggleOptions,
  type ToggleResult,
  type RegistryOptions,
} from "./registry.ts";
export type { SkillEntry, SkillStatus, ActivationState, Missing } from "./entry.ts";
export type { CheckReport, SkillCheck, SkillInspection, InspectManifest } from "./reports.ts";
export type { LintReport, LintResult, LintIssue, Severity } from "./lint.ts";
export { renderListing, renderRelevantBlock } from "./prompt.ts";
export {
  readSkillFile,
  parseSkillBytes,
  type SkillFile,
  type SkillFileOk,
  type SkillFileFailed,
} from "./skill-file.ts";
export { parseSkillText } from "./frontmatter.ts";
export type { ApprovalRequest, Approver } from "./install/approval.ts";
export type {
  InstallOptions,
  InstallResult,
  ListSourceOptions,
  UninstallOptions,
  UpdateOptions,
} from "./install/api.ts";
export type { UpdateItem, UpdateResult } from "./install/update.ts";
export type { LockRecord, LockAgent } from "./lockfile.ts";
export { AGENT_LABELS, type AgentLabel } from "./install/destination.ts";
export { buildManifest } from "./manifest.ts";
export { createContext, type ContextOptions, type LemonContext } from "../context.ts";
export { LemonError, type ErrorCode } from "../errors.ts";
export type { Diagnostic } from "../diagnostics.ts";
