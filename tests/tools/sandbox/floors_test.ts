import assert from "node:assert/strict";
import {
  foldName,
  isProtectedPath,
  isSensitivePath,
} from "../../../tools/sandbox/floors.ts";

const posix = { os: "posix" as const };

Deno.test("foldName() lowercases, drops streams and trailing dots/spaces", () => {
  const table: [string, string][] = [
    [".ENV", ".env"],
    [".env:secret:$DATA", ".env"],
    [".env.", ".env"],
    [".env. . ", ".env"],
    ["Config", "config"],
    ["a.b", "a.b"],
    ["...", ""],
  ];
  for (const [input, want] of table) assert.equal(foldName(input), want, input);
});

Deno.test("isSensitivePath() covers segments, basenames and nested rules", () => {
  const table: [string, boolean][] = [
    ["/ws/.env", true],
    ["/ws/.ENV", true],
    ["/ws/.env:stream", true],
    ["/ws/.env.", true],
    ["/ws/app/.env.production", true],
    ["/ws/.envrc", true],
    ["/ws/.SSH/id_rsa", true],
    ["/ws/.aws/credentials", true],
    ["/ws/.env/dir/file", true],
    ["/ws/.relavium/config.toml", true],
    ["/ws/.netrc", true],
    ["/ws/.NPMRC ", true],
    ["/ws/.pypirc", true],
    ["/ws/.pgpass", true],
    ["/ws/.dockercfg", true],
    ["/ws/.gitconfig", true],
    ["/ws/.git-credentials", true],
    ["/ws/.docker/config.json", true],
    ["/ws/docker/config.json", false],
    ["/ws/.git/config", true],
    ["/ws/repo.git/CONFIG", true],
    ["/ws/.git/HEAD", false],
    ["/ws/src/config", false],
    ["/home/u/.config/git/credentials", true],
    ["/ws/credentials", false],
    ["/ws/src/env.ts", false],
    ["/ws/README.md", false],
  ];
  for (const [path, want] of table) {
    assert.equal(isSensitivePath(path, posix), want, path);
  }
});

Deno.test("isSensitivePath() includes configured own dirs", () => {
  const opts = { os: "posix" as const, ownDirs: ["/data/relavium-home"] };
  assert.equal(isSensitivePath("/data/relavium-home/history.db", opts), true);
  assert.equal(isSensitivePath("/data/relavium-home2/x", opts), false);
});

Deno.test("isProtectedPath() covers segments and shell profiles", () => {
  const table: [string, boolean][] = [
    ["/ws/.git/hooks/pre-commit", true],
    ["/ws/.GIT./config", true],
    ["/ws/.ssh/authorized_keys", true],
    ["/ws/.relavium/agents/a.yaml", true],
    ["/ws/.bashrc", true],
    ["/ws/.ZSHRC:stream", true],
    ["/ws/.profile. ", true],
    ["/ws/config.fish", true],
    ["/ws/Microsoft.PowerShell_profile.ps1", true],
    ["/ws/.gitconfig", true],
    ["/ws/src/main.ts", false],
    ["/ws/.gitignore", false],
    ["/ws/.env", false],
  ];
  for (const [path, want] of table) {
    assert.equal(isProtectedPath(path, posix), want, path);
  }
});

Deno.test("floors fold Windows paths with either separator", () => {
  const win = { os: "windows" as const };
  assert.equal(isSensitivePath("C:\\ws\\.SSH\\id_rsa", win), true);
  assert.equal(isSensitivePath("C:/ws/app/.env:x", win), true);
  assert.equal(isProtectedPath("C:\\ws\\.git\\config", win), true);
});
