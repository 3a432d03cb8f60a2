// Text modules (`import x from "./f.md" with { type: "text" }`, inlined by Bun). Each file that
// imports one references this file, so a consumer type-checking lemon's sources finds it too.
declare module "*.md" {
  const text: string;
  export default text;
}
