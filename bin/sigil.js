#!/usr/bin/env node
// The `sigil` command (npx sigil ...): runs the TypeScript CLI through tsx's loader, no build step needed.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
