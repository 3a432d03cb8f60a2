/**
 * @module skills/settings-codec
 * The strict codec of `skills.json` for rewrites (bounded like every lemon state file: 1 MiB for
 * reads and rewrites alike). Only writes load it, with TypeBox and the transaction code; reads
 * check with the schema's generated check (settings.ts), and both reject the same documents
 * (tests/core/skills/schema-checks.test.ts).
 */
import { jsonCodec } from "../fsx/update.ts";
import { emptySkillsJson, MAX_SKILLS_JSON_BYTES } from "../schema/skills-data.ts";
import { SkillsJson } from "../schema/skills-json.ts";

/** The `skills.json` codec of `update()`. */
export const skillsJsonCodec = jsonCodec(SkillsJson, emptySkillsJson, { maxBytes: MAX_SKILLS_JSON_BYTES });
