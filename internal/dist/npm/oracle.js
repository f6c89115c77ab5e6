#!/usr/bin/env node
// The bin of @agent-oracle/oracle: runs the oracle binary of this platform,
// which npm installed as one of the package's optional dependencies, with
// this process's arguments, standard streams and exit status.
"use strict";
const { spawnSync } = require("node:child_process");

const platforms = __PLATFORMS__;

function fail(message) {
  process.stderr.write("error: " + message + "\n");
  process.exit(2);
}

function binary() {
  if (process.env.ORACLE_BINARY_PATH) {
    return process.env.ORACLE_BINARY_PATH;
  }
  const key = process.platform + " " + process.arch;
  const entry = platforms[key];
  if (!entry) {
    fail(
      "unsupported_platform: no oracle binary for " + key + " in this package; " +
        "build one from source (go install github.com/agent-oracle/oracle/cmd/oracle@latest) " +
        "and name it in ORACLE_BINARY_PATH",
    );
  }
  try {
    return require.resolve(entry[0] + "/" + entry[1]);
  } catch {
    fail(
      "missing_binary: the package " + entry[0] + " is not installed beside @agent-oracle/oracle; " +
        "install again without --omit=optional or --no-optional",
    );
  }
}

const result = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (result.error) {
  fail("cannot run oracle: " + result.error.message);
}
if (result.signal) {
  // End as the binary ended, so that a shell sees the same signal.
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 2 : result.status);
