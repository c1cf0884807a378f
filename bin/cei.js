#!/usr/bin/env node
// The package's command. The sources are TypeScript run through tsx's loader, so that
// `npx cei` works on a fresh clone with no build step.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
