// Which of the binaries this package ships runs here. Shared by the `indus-tool`
// launcher (bin/indus-tool.js) and the client's default binary.

import { fileURLToPath } from "node:url";

/**
 * `process.platform`-`process.arch` -> the Rust target triple whose build the package
 * ships in vendor/<triple>/indus-tool. The x86_64 Linux build is static (no libc
 * loaded at all), so it serves glibc and musl systems alike.
 */
const TARGETS: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-gnu",
};

/** The target triple of the shipped binary for this platform, if there is one. */
export function targetTriple(
  platform: string = process.platform,
  arch: string = process.arch,
): string | undefined {
  return TARGETS[`${platform}-${arch}`];
}

/** What the launcher prints (and binaryPath throws) on a platform without a binary. */
export function unsupportedPlatformMessage(
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  const supported = Object.keys(TARGETS)
    .map((k) => `${k} (${TARGETS[k]})`)
    .join(", ");
  return (
    `indus-tool: this npm package has no binary for ${platform} on ${arch}; ` +
    `it ships one for ${supported} only. ` +
    `Build it from source instead (Linux, Rust 1.89 or newer): in a checkout of the ` +
    `indus-tool repository run \`cargo install --locked --path .\` (see its README), ` +
    `then point the client at it with the INDUS_TOOL_BIN environment variable ` +
    `or the Toolbox's \`binary\` option.`
  );
}

/**
 * The path of the indus-tool binary this package ships for this platform (or the
 * platform and arch given), as `@vscode/ripgrep` exports `rgPath`. Throws an Error
 * with {@link unsupportedPlatformMessage} where the package has none. The file may
 * still be missing in a package that was not built with its prepack step.
 */
export function binaryPath(
  options: { platform?: string; arch?: string } = {},
): string {
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const triple = targetTriple(platform, arch);
  if (!triple) throw new Error(unsupportedPlatformMessage(platform, arch));
  return fileURLToPath(new URL(`../vendor/${triple}/indus-tool`, import.meta.url));
}
