/**
 * @module schema/finding
 * One audit finding (install.md §7.4) as stored in `skills.audit.json` and printed by
 * `lemon skill audit --json`.
 */
import { Type, type Static } from "@sinclair/typebox";

export const Severity = Type.Union([
  Type.Literal("critical"),
  Type.Literal("high"),
  Type.Literal("medium"),
  Type.Literal("low"),
]);
export type Severity = Static<typeof Severity>;

export const Verdict = Type.Union([Type.Literal("pass"), Type.Literal("warn"), Type.Literal("block")]);
export type Verdict = Static<typeof Verdict>;

export const Finding = Type.Object({
  rule: Type.String(),
  category: Type.String(),
  severity: Severity,
  file: Type.String(),
  line: Type.Integer({ minimum: 0 }),
  message: Type.String(),
  excerpt: Type.String(),
});
export type Finding = Static<typeof Finding>;

export const SeverityCounts = Type.Object({
  critical: Type.Integer({ minimum: 0 }),
  high: Type.Integer({ minimum: 0 }),
  medium: Type.Integer({ minimum: 0 }),
  low: Type.Integer({ minimum: 0 }),
});
export type SeverityCounts = Static<typeof SeverityCounts>;
