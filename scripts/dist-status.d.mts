/** Why dist/ under `repo` (a directory URL) cannot be used, or undefined when it is current. */
export function distStaleReason(repo: URL): string | undefined;
